/*
 * The drainer: the per-CPU rings, their buffer pools, and the way out to the
 * sinks.  A pass copies every ring's ready records into pooled buffers
 * (counting samples, LOST records and mapped files while the bytes are in
 * cache) and ends with FINISHED_ROUND; dispatch hands buffers to the sinkset
 * in stream order.  It never starts or ends an output: the session tells it
 * when a new stream begins (drainer_new_stream).
 *
 * Engine thread only.  The fields are the drainer's; the session reads the
 * counters, rings and pools for the summary and writes none of them.
 */
#ifndef PS_DRAIN_H
#define PS_DRAIN_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/bytes.h"
#include "format/bpf_info.h"
#include "format/sample_chain.h"
#include "probe/dso_set.h"
#include <perfsink/sink.h>

struct record_opts;
struct ps_evlist;
struct sinkset;
struct ring;
struct pool;
struct psbuf;

/* FINISHED_ROUND, appended to a pass's last buffer: every buffer has room for it. */
#define DRAIN_ROUND_BYTES 8

/* What a pass read, for the output that its buffers go to. */
struct drain_seen {
	uint64_t ring_bytes;         /* records copied, FINISHED_ROUND not included */
	uint64_t samples;
	uint64_t first_time, last_time; /* sample time range; set when samples > 0 */
};

/* The buffers of one pass, in stream order; storage is the drainer's. */
struct drain_batch {
	struct psbuf **buf;
	unsigned n;
	struct drain_seen seen;
};

struct drainer {
	/* Borrowed from the session, which outlives the drainer. */
	const struct ps_evlist *evl;
	struct sinkset *ss;
	const atomic_int *stop;    /* non-zero: waits for a free buffer give up */
	struct ps_bpf_info *bpf;     /* the output's: BPF_EVENT PROG_LOAD adds to it; NULL: not */

	struct ring *rings;          /* one per CPU of evl */
	struct pool **pools;         /* the buffers of each ring */
	unsigned nr_rings;
	struct psbuf **batch;        /* nr_rings: a pass's buffers */
	struct dso_set dsos;         /* every file mapped in what went out, for BUILD_ID */
	unsigned time_off;           /* offset of TIME in a SAMPLE record */
	struct sample_layout layout; /* where a sample's call chain is */
	unsigned ksym_id_size;       /* sample_id bytes of KSYMBOL/BPF_EVENT records (record_fix.h) */
	uint64_t records_fixed;      /* of those, sized too large by the kernel and repaired */
	uint32_t stack_user;         /* DWARF: bytes of user stack asked per sample, else 0 */
	uint32_t stack_tail;         /* bytes of the fields after STACK_USER in a sample */

	/* Where the current stream is: reset by drainer_new_stream. */
	uint64_t seq;                /* the next buffer's seq */
	uint64_t stream_off;         /* bytes dispatched: the next buffer's stream offset */

	/* Counters for the summary. */
	uint64_t samples, ring_bytes, buffers;
	uint64_t lost_records;       /* PERF_RECORD_LOST records read */
	uint64_t lost_in_records;    /* samples those records say were lost */
	uint64_t lost_samples;       /* the kernel's per-event counts (LOST_SAMPLES) */
	uint64_t stack_cut;          /* DWARF samples whose stack copy filled stack_user */
	int error;                   /* first sink failure a dispatch saw (negative errno) */
};

/*
 * Map one ring per CPU of evl (opened; every other event of a CPU redirected
 * into its ring) and a pool of o->aio buffers for each.  evl, ss and stop
 * are borrowed for the drainer's life.  0 or a negative errno, with a
 * message in err when there is more to say than the errno; the caller
 * calls drainer_free either way.
 */
int drainer_init(struct drainer *d, const struct record_opts *o, const struct ps_evlist *evl,
		 struct sinkset *ss, const atomic_int *stop, char *err, size_t errlen);
/* Unmap the rings, release the pools (buffers in flight keep theirs). Safe on a zeroed d. */
void drainer_free(struct drainer *d);
/* Bytes of every buffer: a ring's size and room for FINISHED_ROUND. */
size_t drainer_buffer_size(const struct drainer *d);
/* Every pool's buffers as regions (pool_regions), malloc'd into *out; 0 or -ENOMEM. */
int drainer_pool_regions(const struct drainer *d, struct perfsink_region **out, unsigned *n);

/*
 * One pass over every ring into b, which holds the buffers until
 * drainer_dispatch; the last one ends with FINISHED_ROUND.  Returns the
 * number of buffers (0: the rings were empty).  Buffers are placed for the
 * stream offsets they will have, so no output may begin before they are
 * dispatched.
 */
unsigned drainer_pass(struct drainer *d, struct drain_batch *b);
/*
 * Hand b's buffers to the sinkset in order and drop the drainer's
 * references; b is empty after.  0, or the first sink failure (the rest
 * are still dispatched).
 */
int drainer_dispatch(struct drainer *d, struct drain_batch *b);
/*
 * Records built by the engine (recs->err: not built), as one buffer at the
 * current stream offset.  0 or a negative errno.
 */
int drainer_dispatch_bytes(struct drainer *d, const struct bytes *recs);
/* LOST_SAMPLES from the kernel's per-event counts, as perf 6.1 writes them, dispatched. */
int drainer_lost_samples(struct drainer *d);
/* A new stream begins: the next buffer has seq 0 at offset 0. */
void drainer_new_stream(struct drainer *d);

/* Whether a ring read in passes (not --overwrite) holds unread data. */
bool drainer_has_data(const struct drainer *d);
/* Bytes left in the rings read in passes. */
uint64_t drainer_unread_bytes(const struct drainer *d);
/* Samples the kernel dropped: its counts, or the LOST records if they say more. */
uint64_t drainer_kernel_lost(const struct drainer *d);

#endif
