/*
 * The engine's state, shared by its parts: engine.c (the session: setup,
 * the loop that runs the output step then the drainer, exit), drain.c (the
 * drainer: rings to buffers to sinks), segment.c (the output: synthesized
 * records, cuts between outputs).  drain.c never calls segment.c.  Still one
 * struct: the drainer advances seq/seg_bytes/seg_stream that the output
 * resets at a cut.  Engine thread only.
 */
#ifndef PS_ENGINE_PRIV_H
#define PS_ENGINE_PRIV_H
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <perfsink/sink.h>
#include "base/bytes.h"
#include "probe/dso_set.h"
#include "engine/evlist.h"
#include "engine/sinkset.h"
#include "format/machine.h"
#include "format/stream.h"
#include "engine/workload.h"
#include "engine/control.h"

struct record_opts;
struct ring;
struct pool;
struct psbuf;

struct segment {
	struct perfsink_stream stream;
	struct perfsink_stream_priv priv;
	struct segment *prev;
};

#define ROUND_BYTES 8
#define POLL_MS 100

struct engine {
	const struct record_opts *o;
	struct ps_evlist evl;
	struct ring *rings;
	struct pool **pools;
	unsigned nr_rings;
	struct pollfd *pfds;        /* rings, then the signal pipe */
	struct sinkset ss;
	/*
	 * One stream per output, kept until the end: rotate() finishes the old
	 * one while the next begins, and a sink that failed at a rotation keeps
	 * pointing at the stream it had, which must stay as it was.
	 */
	struct segment *seg;        /* current; ->prev: older ones */
	/* What sinks with rotate = false see: one output for the whole run. */
	struct perfsink_stream whole;
	struct perfsink_stream_priv whole_priv;
	uint64_t seg_bytes;         /* ring bytes in the current segment */
	uint64_t seg_stream;        /* bytes dispatched in it: the next buffer's stream offset */
	int64_t seg_start_ns;       /* CLOCK_MONOTONIC */
	bool rotate_requested;      /* SIGUSR2 */
	bool rotation_pending;      /* size or time reached: cut before the next data */
	struct bytes tail_synth;    /* --overwrite: latest records of the target */
	struct dso_set dsos;        /* every file mapped, for BUILD_ID */
	struct bytes build_ids;     /* BUILD_ID payload of the output being finished */
	const char **names;
	struct bytes tracing;
	struct ps_machine machine;  /* read once at the start, for the header features */
	struct ps_clock clock;      /* -k: CLOCKID and CLOCK_DATA */
	struct control ctl;         /* --control channel, -D's enable time */
	struct workload wl;
	bool child_done;
	int child_status;
	uint64_t seq;
	unsigned time_off;          /* offset of TIME in a SAMPLE record */
	uint32_t stack_user;        /* DWARF: bytes of user stack asked per sample, else 0 */
	uint32_t stack_tail;        /* bytes of the fields after STACK_USER in a sample */
	struct timespec t0;
	char session[40];
	char hostname[65];
	/* counters for the summary */
	uint64_t wakeups, samples, lost_records, lost_in_records, lost_samples;
	uint64_t ring_bytes, buffers, rotations;
	uint64_t stack_cut;         /* DWARF samples whose stack copy filled stack_user */
	int error;                  /* first runtime error (negative errno) */
	uint64_t unread_bytes;      /* left in the rings: every buffer held at the stop */
};

#define CUR_STREAM(e) (&(e)->seg->stream)
#define CUR_PRIV(e) (&(e)->seg->priv)

/* clock_gettime(clk) in nanoseconds. */
int64_t engine_now_ns(clockid_t clk);
/* Set by a second SIGINT/SIGTERM/SIGHUP: waits for a buffer give up. */
extern volatile int engine_stop_requested;

/*
 * drain.c: the drainer.  Rings to pooled buffers to the sinks; it never
 * starts or ends an output (the session calls segment_cut_pending first).
 */
/* Hand one buffer to every sink and drop the engine's reference. */
int drain_dispatch(struct engine *e, struct psbuf *b);
/* Records built by the engine, as one buffer. */
int drain_dispatch_bytes(struct engine *e, const struct bytes *recs);
/* One pass over every ring, ended by FINISHED_ROUND; >0 buffers, 0 none, <0 a sink failed. */
int drain_pass(struct engine *e);
/* Whether a ring read in passes holds unread data. */
bool drain_has_data(const struct engine *e);
/* LOST_SAMPLES from the kernel's per-event counts, as perf 6.1 writes them. */
int drain_lost_samples(struct engine *e);

/*
 * segment.c: the output.  What every output begins with, and when one
 * output ends and the next begins; it never reads the rings.
 */
/* Kernel MMAP, the target's tasks, FINISHED_INIT; initial: before the workload runs. */
int segment_synthesize(struct engine *e, bool initial);
/* --overwrite with one task: refresh the snapshot of its maps. */
void segment_refresh_tail(struct engine *e);
/* Finish the current output and begin the next (no drain). */
int segment_next(struct engine *e);
/* A --switch-output cut that waited for data: made now if the rings hold some. 0 or -EPIPE. */
int segment_cut_pending(struct engine *e);
/* --switch-output size or time reached. */
bool segment_rotation_due(struct engine *e);
/* Read the build-ids of the DSOs seen and point the current output at them. */
void segment_build_ids_update(struct engine *e);

/*
 * session_control.c: --control and -D.  Open the channel (0 or -errno,
 * reason in err); enable the events at the start (all, or with -D only the
 * tracking event); the poll timeout shortened to the -D deadline; one step
 * after each poll (the deadline, the commands), true when asked to stop.
 */
int engine_control_open(struct engine *e, char *err, size_t errlen);
void engine_control_start(struct engine *e);
int engine_control_timeout(const struct engine *e, int timeout_ms);
bool engine_control_step(struct engine *e);

#endif
