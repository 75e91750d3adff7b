/*
 * zstage: one compression stage (sink ABI 1.9, COMPRESSED INPUT): RING
 * buffers in, PERFSINK_BUF_COMPRESSED buffers out, in stream order,
 * compressed once for every instance that reads from it.
 *
 *   engine thread --push--> FIFO of items --> workers claim the oldest
 *                                             unclaimed one, compress it
 *                                             into a heap buffer and drop
 *                                             the raw reference at once
 *   engine thread <--pop--- the FIFO's head, once done (stream order)
 *
 * SYNTH buffers pass through as they are (done when pushed).  Raw pool
 * buffers are held only while they wait for or are in compression, never
 * while done items wait for the engine, so the drain's pool_get always
 * gets one back from the workers.  A compression failure (no memory, a
 * zstd error) hands the records on raw, as perf reads them in a
 * compressed stream: the stage itself never fails.
 *
 * THREADS.  push, pop, stats, destroy: the engine thread.  Locking: one
 * mutex z->mu guards the FIFO and counters, taken with no other lock
 * held; compression runs without it.
 */
#ifndef PS_ZSTAGE_H
#define PS_ZSTAGE_H
#include <stdbool.h>
#include <stdint.h>
#include "engine/pool.h"

struct zstage;

struct zstage_stats {
	uint64_t bytes_in;  /* bytes pushed (every buffer) */
	uint64_t buffers;   /* buffers pushed */
	uint64_t comp_in;   /* RING bytes compressed */
	uint64_t comp_out;  /* bytes they became (COMPRESSED records and tails) */
	uint64_t raw_kept;  /* RING buffers handed on raw after a failure */
};

/* A stage of `threads` workers (>= 1) for zstd level and chunk; 0 or -errno. */
int zstage_create(uint32_t level, uint32_t chunk, unsigned threads, struct zstage **out);
/* Queue b (the stage takes its own reference); 0 or -ENOMEM. */
int zstage_push(struct zstage *z, struct psbuf *b);
/*
 * The oldest buffer when it is done, with one reference for the caller;
 * NULL when the FIFO is empty or (wait false) its head is not done yet.
 */
struct psbuf *zstage_pop(struct zstage *z, bool wait);
void zstage_stats(struct zstage *z, struct zstage_stats *out);
/* Stop the workers, drop what is queued, free. */
void zstage_destroy(struct zstage *z);

#endif
