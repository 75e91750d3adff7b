/*
 * Spill memory of a uring_file instance: where a pooled buffer's bytes go
 * when the disk falls behind the events.  A direct write holds its pooled
 * buffer until the disk has it; behind a busy neighbour's writeback that
 * is hundreds of milliseconds, the pool runs out and the rings overflow.
 * aio_file's writes end in the page cache, which absorbs the wait; here
 * the writer (uring_writer.h) copies the bytes into a chunk of this memory
 * instead, gives the pooled buffer back at once, and writes from the copy.
 *
 * One mapping of the cap's size is reserved at creation (pages never
 * touched cost nothing), cut into chunks of one pooled buffer each; how
 * many of them may be in use follows the disk's measured rate.  When
 * the last chunk in use comes back, the pages touched go back to the
 * kernel: a spill episode raises the process's memory only while it lasts.
 *
 * THREADS.  get from the sink's thread, put from the writer's completion
 * thread: the spill has its own lock, which nests inside the writer's.
 * OWNERSHIP.  A chunk is the getter's until it puts it back.
 */
#ifndef PS_URING_SPILL_H
#define PS_URING_SPILL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct uring_spill;

struct uring_spill_stats {
	uint64_t chunks;      /* chunks handed out over the run */
	uint64_t bytes;       /* bytes copied into them */
	uint64_t full;        /* gets refused: every chunk allowed (the fitted size) in use */
	uint64_t peak;        /* most bytes of chunks in use at once */
};

/*
 * Up to cap bytes in chunks of chunk bytes (rounded up to 4 KiB: O_DIRECT
 * needs aligned memory).  0 or -errno; cap below one chunk is -EINVAL.
 */
int uring_spill_create(size_t cap, size_t chunk, struct uring_spill **out);
/* How many chunks it has (writes it can hold in flight). */
unsigned uring_spill_nr_chunks(const struct uring_spill *sp);
/* A chunk for len bytes, or NULL: len is larger than a chunk, or the fitted size is in use (counted). */
void *uring_spill_get(struct uring_spill *sp, size_t len);
/* Give back a chunk of uring_spill_get. */
void uring_spill_put(struct uring_spill *sp, void *p);
/* Chunks in use now. */
unsigned uring_spill_in_use(struct uring_spill *sp);
/* Whether p lies in this spill's memory (false for sp NULL). */
bool uring_spill_owns(const struct uring_spill *sp, const void *p);
void uring_spill_get_stats(struct uring_spill *sp, struct uring_spill_stats *out);
/*
 * Fit the chunks that may be in use to the disk's rate, bytes_per_s with
 * writes in flight: room for URING_SPILL_SECONDS of the best rate seen,
 * at least URING_SPILL_FLOOR bytes, at most the cap.  A spill holds the
 * bytes of a stall of the disk at the rate it keeps up with; beyond that,
 * memory only delays a loss.  Until a rate is seen: the floor.  Grows only.
 */
#define URING_SPILL_SECONDS 1
#define URING_SPILL_FLOOR (64u << 20)
void uring_spill_fit_rate(struct uring_spill *sp, uint64_t bytes_per_s);
/* Chunks that may be in use now (the fitted size). */
unsigned uring_spill_limit(struct uring_spill *sp);
/* Every chunk must be back. */
void uring_spill_destroy(struct uring_spill *sp);

#endif
