/*
 * Spill memory (uring_spill.h): one reserved mapping, a stack of free
 * chunk indices.  The lowest indices are handed out first, so the pages
 * an episode touches stay at the start of the mapping and giving them
 * back is one madvise over that prefix.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "uring_spill.h"

#define SPILL_ALIGN 4096

struct uring_spill {
	pthread_mutex_t lock;
	uint8_t *base;
	size_t chunk;
	unsigned n;
	unsigned *free_idx;  /* stack of free chunk indices, lowest on top */
	unsigned nfree;
	unsigned touched;    /* chunks [0, touched) may hold pages since the last give-back */
	unsigned limit;      /* chunks that may be in use (uring_spill_fit_rate) */
	struct uring_spill_stats st;
};

/* Chunks for bytes, at least the floor's, at most all. */
static unsigned chunks_for(const struct uring_spill *sp, uint64_t bytes)
{
	if (bytes < URING_SPILL_FLOOR)
		bytes = URING_SPILL_FLOOR;
	uint64_t c = (bytes + sp->chunk - 1) / sp->chunk;
	return c >= sp->n ? sp->n : (unsigned)c;
}

int uring_spill_create(size_t cap, size_t chunk, struct uring_spill **out)
{
	chunk = (chunk + SPILL_ALIGN - 1) / SPILL_ALIGN * SPILL_ALIGN;
	if (!chunk || cap / chunk < 1 || cap / chunk > 1u << 20)
		return -EINVAL;
	struct uring_spill *sp = calloc(1, sizeof(*sp));
	if (!sp)
		return -ENOMEM;
	sp->chunk = chunk;
	sp->n = (unsigned)(cap / chunk);
	sp->free_idx = calloc(sp->n, sizeof(*sp->free_idx));
	void *m = mmap(NULL, sp->n * chunk, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (!sp->free_idx || m == MAP_FAILED) {
		free(sp->free_idx);
		free(sp);
		return m == MAP_FAILED ? -errno : -ENOMEM;
	}
	sp->base = m;
	for (unsigned i = 0; i < sp->n; i++)
		sp->free_idx[i] = sp->n - 1 - i;
	sp->nfree = sp->n;
	sp->limit = chunks_for(sp, URING_SPILL_FLOOR);
	pthread_mutex_init(&sp->lock, NULL);
	*out = sp;
	return 0;
}

unsigned uring_spill_nr_chunks(const struct uring_spill *sp)
{
	return sp->n;
}

void *uring_spill_get(struct uring_spill *sp, size_t len)
{
	void *p = NULL;
	pthread_mutex_lock(&sp->lock);
	if (len > sp->chunk) {
		/* not spilled: the caller writes from its own buffer */
	} else if (!sp->nfree || sp->n - sp->nfree >= uring_spill_limit(sp)) {
		sp->st.full++;
	} else {
		unsigned i = sp->free_idx[--sp->nfree];
		p = sp->base + (size_t)i * sp->chunk;
		if (i + 1 > sp->touched)
			sp->touched = i + 1;
		sp->st.chunks++;
		sp->st.bytes += len;
		uint64_t in_use = (uint64_t)(sp->n - sp->nfree) * sp->chunk;
		if (in_use > sp->st.peak)
			sp->st.peak = in_use;
	}
	pthread_mutex_unlock(&sp->lock);
	return p;
}

void uring_spill_put(struct uring_spill *sp, void *p)
{
	pthread_mutex_lock(&sp->lock);
	sp->free_idx[sp->nfree++] = (unsigned)(((uint8_t *)p - sp->base) / sp->chunk);
	if (sp->nfree == sp->n) {
		/* The episode is over: its memory goes back (the stack is whole again, lowest on top). */
		madvise(sp->base, (size_t)sp->touched * sp->chunk, MADV_DONTNEED);
		sp->touched = 0;
		for (unsigned i = 0; i < sp->n; i++)
			sp->free_idx[i] = sp->n - 1 - i;
	}
	pthread_mutex_unlock(&sp->lock);
}

unsigned uring_spill_in_use(struct uring_spill *sp)
{
	pthread_mutex_lock(&sp->lock);
	unsigned n = sp->n - sp->nfree;
	pthread_mutex_unlock(&sp->lock);
	return n;
}

bool uring_spill_owns(const struct uring_spill *sp, const void *p)
{
	return sp && (const uint8_t *)p >= sp->base && (const uint8_t *)p < sp->base + (size_t)sp->n * sp->chunk;
}

void uring_spill_get_stats(struct uring_spill *sp, struct uring_spill_stats *out)
{
	pthread_mutex_lock(&sp->lock);
	*out = sp->st;
	pthread_mutex_unlock(&sp->lock);
}

/* limit is written by the writer's I/O thread and read by the getter: atomic, no lock. */
void uring_spill_fit_rate(struct uring_spill *sp, uint64_t bytes_per_s)
{
	unsigned lim = chunks_for(sp, bytes_per_s * URING_SPILL_SECONDS);
	if (lim > uring_spill_limit(sp))
		__atomic_store_n(&sp->limit, lim, __ATOMIC_RELAXED);
}

unsigned uring_spill_limit(struct uring_spill *sp)
{
	return __atomic_load_n(&sp->limit, __ATOMIC_RELAXED);
}

void uring_spill_destroy(struct uring_spill *sp)
{
	if (!sp)
		return;
	munmap(sp->base, (size_t)sp->n * sp->chunk);
	pthread_mutex_destroy(&sp->lock);
	free(sp->free_idx);
	free(sp);
}
