/*
 * The output: what the sinks are writing.  It describes the stream (events,
 * machine, session, ring shape), builds the records every output begins
 * with (kernel MMAP, the target's tasks, FINISHED_INIT; with --overwrite the
 * latest maps of the target, perf's --tail-synthesize), points the stream
 * at the BUILD_IDs of the files mapped, and decides and makes the cuts
 * between outputs (--switch-output size, time or SIGUSR2, --overwrite dumps).
 *
 * It never reads the rings and never dispatches: the records it builds go
 * out through the drainer, which the session calls.  Engine thread only;
 * the sinks read the streams it hands them (see sink.h).
 */
#ifndef PS_OUTPUT_H
#define PS_OUTPUT_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <perfsink/sink.h>
#include "base/bytes.h"
#include "format/bpf_info.h"
#include "format/machine.h"
#include "format/stream.h"
#include "format/feat_clock.h"

struct record_opts;
struct ps_evlist;
struct ps_events;
struct sinkset;
struct dso_set;
struct drain_seen;
struct segment;

/* The rings, as the stream describes them. */
struct output_shape {
	unsigned nr_rings;
	unsigned nr_buffers;
	size_t buffer_size;
	size_t ring_mmap_len;
	const struct perfsink_region *pool_regions; /* the drainer's pools; outlive the output */
	unsigned nr_pool_regions;
};

struct output {
	/* Borrowed from the session, which outlives the output. */
	const struct record_opts *o;
	const struct ps_events *events;
	struct sinkset *ss;
	bool system_wide;
	pid_t target;               /* the task whose records are synthesized (not system-wide) */

	/*
	 * One stream per output, kept until the end: a cut finishes the old
	 * one while the next begins, and a sink that failed at a rotation keeps
	 * pointing at the stream it had, which must stay as it was.
	 */
	struct segment *seg;        /* current; older ones behind it */
	/* What sinks with rotate = false see: one output for the whole run. */
	struct perfsink_stream whole;
	struct perfsink_stream_priv whole_priv;
	uint64_t seg_bytes;         /* ring bytes in the current output */
	int64_t seg_start_ns;       /* CLOCK_MONOTONIC */
	bool cut_waiting;           /* size or time reached: cut before the next data */

	struct bytes tail_synth;    /* --overwrite: latest records of the target */
	struct bytes build_ids;     /* BUILD_ID payload of the output being finished */
	struct bytes tracing;       /* TRACING_DATA */
	const char **names;         /* event names, for the stream */
	struct ps_machine machine;  /* read once at the start, for the header features */
	struct ps_bpf_info bpf;     /* BPF programs seen, for BPF_PROG_INFO / BPF_BTF */
	struct ps_clock clock;      /* -k: CLOCKID and CLOCK_DATA */
	char session[40];
	char hostname[65];

	uint64_t rotations;         /* cuts made: a counter for the summary */
};

/*
 * Describe the first output: the events of evl (open and described), the
 * machine, a new session id, the rings' shape, perfsink's argc/argv (the
 * CMDLINE feature; borrowed for the run).  target: the workload's pid, or 0.
 * o, evl and ss are borrowed for the output's life.  0 or a negative errno;
 * the caller calls output_free either way.
 */
int output_init(struct output *out, const struct record_opts *o, const struct ps_evlist *evl,
		struct sinkset *ss, const struct output_shape *shape, pid_t workload,
		int argc, char **argv);
/* Free every stream and what they point to; after the sinks closed.  Safe on a zeroed out. */
void output_free(struct output *out);

/* start() every sink on the first output (sinkset_start). */
int output_start(struct output *out);
/*
 * Append to b the records an output begins with: kernel MMAP, the target's
 * tasks (initial: before the workload runs; target_gone: it exited, its
 * records are in the ring already), the tail snapshot with --overwrite,
 * FINISHED_INIT.  Warns, when initial, about what will not resolve.
 * Errors are b->err's.
 */
void output_synthesize(struct output *out, bool initial, bool target_gone, struct bytes *b);
/* --overwrite with one task: refresh the snapshot of its maps. */
void output_refresh_tail(struct output *out, bool target_gone);

/* A pass went out into the current output: its samples and bytes. */
void output_count(struct output *out, const struct drain_seen *seen);
/* Point the current output (and the whole run's) at the build-ids of the
 * files in dsos, and read the BPF programs loaded meanwhile: at a cut and at the end. */
void output_build_ids_update(struct output *out, struct dso_set *dsos);
/* The build-ids only: while recording, every PERFSINK_BUILD_IDS_EVERY_MS. */
void output_build_ids_refresh(struct output *out, struct dso_set *dsos);
/*
 * --switch-output size or time: once reached, a cut waits for the next data
 * (so no output is left empty).  Returns cut_waiting.
 */
bool output_check_due(struct output *out);
/* A SIGUSR2 cut is about to be made: it stands for a size or time cut waiting. */
void output_clear_waiting(struct output *out);
/*
 * End the current output (its BUILD_IDs from dsos) and begin the next: the
 * sinks rotate to it.  Clears cut_waiting.  *began: the next output began
 * (then the stream restarts at offset 0, even when a sink failed to rotate).
 * 0, -ENOMEM (nothing began), or the sinkset's error.
 */
int output_cut(struct output *out, struct dso_set *dsos, bool *began);

#endif
