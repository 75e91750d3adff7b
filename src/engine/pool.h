/*
 * Refcounted buffers.  A pool holds the buffers of one ring; a buffer comes
 * out with one reference (the engine's), every sink that keeps it takes its
 * own, and the last put returns it to its pool, from any thread.  The pool
 * is refcounted too: each buffer out of it holds a reference, so the pool
 * outlives every buffer still in flight even after the engine let go.
 *
 * Locking: pool->lock guards the free list; taken on get and on the last
 * put of a buffer, never with another lock held.
 */
#ifndef PS_POOL_H
#define PS_POOL_H
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <perfsink/sink.h>

struct pool;

struct psbuf {
	struct perfsink_buf pub; /* first: sinks see only this */
	uint8_t *mem;            /* PERFSINK_BUF_ALIGN-aligned, cap + ALIGN bytes */
	size_t cap;              /* bytes usable from pub.data, wherever placed */
	uint32_t refs;           /* atomic */
	uint32_t samples;        /* SAMPLE records in pub.data: what a sink that loses it loses */
	struct pool *pool;       /* NULL: heap buffer, freed at the last put */
	struct psbuf *next_free;
};

struct pool {
	pthread_mutex_t lock;
	pthread_cond_t returned;
	struct psbuf *bufs;
	unsigned n;
	struct psbuf *free_list;
	unsigned nfree;
	uint32_t refs;           /* atomic: owner + buffers out */
	uint64_t waits;          /* pool_get had to wait (backpressure) */
};

/* n buffers of cap bytes each; 0 or -ENOMEM. */
int pool_create(unsigned n, size_t cap, struct pool **out);
/* The owner lets go; the pool is freed when its last buffer comes back. */
void pool_release(struct pool *p);
/*
 * A free buffer with len 0 and one reference; waits while all are out.
 * With cancel, gives up and returns NULL once *cancel is non-zero (a stop
 * was requested while a sink holds every buffer); it looks every 50 ms.
 */
struct psbuf *pool_get(struct pool *p, const atomic_int *cancel);
/* Non-blocking: NULL when all are out. */
struct psbuf *pool_try_get(struct pool *p);
/*
 * The memory of p's buffers, one region each (mem, cap + ALIGN), into
 * out[0 .. n); returns p->n.  Fixed for the pool's life.
 */
unsigned pool_regions(const struct pool *p, struct perfsink_region *out, unsigned n);
/* Buffers currently out of the pool. */
unsigned pool_out(struct pool *p);

/* A one-off buffer of cap bytes, freed at its last put. */
struct psbuf *heapbuf_new(size_t cap);

/*
 * Place the data of an empty buffer for the stream offset pos (sink ABI
 * 1.2: data - pos is a multiple of PERFSINK_BUF_ALIGN); returns where the
 * cap bytes of records go.
 */
uint8_t *psbuf_place(struct psbuf *b, uint64_t pos);

void psbuf_get(struct perfsink_buf *b);
void psbuf_put(struct perfsink_buf *b);

static inline struct psbuf *psbuf_of(struct perfsink_buf *b)
{
	return (struct psbuf *)b;
}

#endif
