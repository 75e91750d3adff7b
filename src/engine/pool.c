#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "engine/pool.h"

static void pool_free(struct pool *p)
{
	for (unsigned i = 0; i < p->n; i++)
		free(p->bufs[i].mem);
	free(p->bufs);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->returned);
	free(p);
}

static void pool_unref(struct pool *p)
{
	if (__atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) == 0)
		pool_free(p);
}

/* cap bytes from any offset below PERFSINK_BUF_ALIGN (psbuf_place). */
static uint8_t *aligned_block(size_t cap)
{
	void *m = NULL;
	return posix_memalign(&m, PERFSINK_BUF_ALIGN, cap + PERFSINK_BUF_ALIGN) ? NULL : m;
}

uint8_t *psbuf_place(struct psbuf *b, uint64_t pos)
{
	uint8_t *at = b->mem + pos % PERFSINK_BUF_ALIGN;
	b->pub.data = at;
	return at;
}

unsigned pool_regions(const struct pool *p, struct perfsink_region *out, unsigned n)
{
	for (unsigned i = 0; i < p->n && i < n; i++)
		out[i] = (struct perfsink_region){ p->bufs[i].mem, p->bufs[i].cap + PERFSINK_BUF_ALIGN };
	return p->n;
}

int pool_create(unsigned n, size_t cap, struct pool **out)
{
	struct pool *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->bufs = calloc(n, sizeof(*p->bufs));
	if (!p->bufs) {
		free(p);
		return -ENOMEM;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->returned, NULL);
	p->n = n;
	p->refs = 1;
	for (unsigned i = 0; i < n; i++) {
		struct psbuf *b = &p->bufs[i];
		b->mem = aligned_block(cap);
		if (!b->mem) {
			pool_free(p);
			return -ENOMEM;
		}
		b->cap = cap;
		b->pool = p;
		b->next_free = p->free_list;
		p->free_list = b;
	}
	p->nfree = n;
	*out = p;
	return 0;
}

void pool_release(struct pool *p)
{
	if (p)
		pool_unref(p);
}

static struct psbuf *take(struct pool *p)
{
	struct psbuf *b = p->free_list;
	p->free_list = b->next_free;
	p->nfree--;
	b->refs = 1;
	b->samples = 0;
	memset(&b->pub, 0, sizeof(b->pub));
	b->pub.data = b->mem;
	__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
	return b;
}

struct psbuf *pool_get(struct pool *p, const atomic_int *cancel)
{
	pthread_mutex_lock(&p->lock);
	if (!p->free_list) {
		p->waits++;
		while (!p->free_list) {
			if (cancel && atomic_load(cancel)) {
				pthread_mutex_unlock(&p->lock);
				return NULL;
			}
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 50 * 1000 * 1000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&p->returned, &p->lock, &ts);
		}
	}
	struct psbuf *b = take(p);
	pthread_mutex_unlock(&p->lock);
	return b;
}

struct psbuf *pool_try_get(struct pool *p)
{
	pthread_mutex_lock(&p->lock);
	struct psbuf *b = p->free_list ? take(p) : NULL;
	pthread_mutex_unlock(&p->lock);
	return b;
}

unsigned pool_out(struct pool *p)
{
	pthread_mutex_lock(&p->lock);
	unsigned out = p->n - p->nfree;
	pthread_mutex_unlock(&p->lock);
	return out;
}

struct psbuf *heapbuf_new(size_t cap)
{
	struct psbuf *b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->mem = aligned_block(cap);
	if (!b->mem) {
		free(b);
		return NULL;
	}
	b->cap = cap;
	b->refs = 1;
	b->pub.data = b->mem;
	return b;
}

void psbuf_get(struct perfsink_buf *pub)
{
	__atomic_add_fetch(&psbuf_of(pub)->refs, 1, __ATOMIC_RELAXED);
}

void psbuf_put(struct perfsink_buf *pub)
{
	struct psbuf *b = psbuf_of(pub);
	if (__atomic_sub_fetch(&b->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	struct pool *p = b->pool;
	if (!p) {
		free(b->mem);
		free(b);
		return;
	}
	pthread_mutex_lock(&p->lock);
	b->next_free = p->free_list;
	p->free_list = b;
	p->nfree++;
	pthread_cond_signal(&p->returned);
	pthread_mutex_unlock(&p->lock);
	pool_unref(p);
}
