/* Buffer pool: references, return to the pool, backpressure, lifetime. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "engine/pool.h"

static void get_gives_one_reference(void **state)
{
	struct pool *p;
	assert_int_equal(pool_create(2, 4096, &p), 0);
	struct psbuf *b = pool_get(p, NULL);
	assert_non_null(b);
	assert_int_equal(b->refs, 1);
	assert_ptr_equal(b->pub.data, b->mem);
	assert_int_equal(b->pub.len, 0);
	assert_int_equal(pool_out(p), 1);
	psbuf_put(&b->pub);
	assert_int_equal(pool_out(p), 0);
	pool_release(p);
}

/* Sink ABI 1.2: data at its stream offset modulo PERFSINK_BUF_ALIGN, cap usable. */
static void place_keeps_stream_alignment(void **state)
{
	static const uint64_t pos[] = { 0, 8, 4088, 4096, 4104, 123456 };
	struct pool *p;
	assert_int_equal(pool_create(1, 8192, &p), 0);
	for (unsigned i = 0; i < sizeof(pos) / sizeof(pos[0]); i++) {
		struct psbuf *b = pool_get(p, NULL);
		uint8_t *at = psbuf_place(b, pos[i]);
		assert_ptr_equal(at, b->pub.data);
		assert_int_equal(((uintptr_t)at - pos[i]) % PERFSINK_BUF_ALIGN, 0);
		memset(at, 0xab, b->cap); /* all of cap is ours (ASan checks) */
		psbuf_put(&b->pub);
	}
	pool_release(p);
	struct psbuf *h = heapbuf_new(100);
	assert_int_equal(((uintptr_t)psbuf_place(h, 4000) - 4000) % PERFSINK_BUF_ALIGN, 0);
	memset(psbuf_place(h, 4000), 0, 100);
	psbuf_put(&h->pub);
}

static void last_put_returns_buffer(void **state)
{
	struct pool *p;
	assert_int_equal(pool_create(1, 64, &p), 0);
	struct psbuf *b = pool_get(p, NULL);
	psbuf_get(&b->pub); /* sink A */
	psbuf_get(&b->pub); /* sink B */
	psbuf_put(&b->pub); /* engine */
	assert_null(pool_try_get(p));
	psbuf_put(&b->pub); /* A completes */
	assert_null(pool_try_get(p));
	psbuf_put(&b->pub); /* B completes */
	struct psbuf *again = pool_try_get(p);
	assert_ptr_equal(again, b);
	psbuf_put(&again->pub);
	assert_int_equal(p->waits, 0);
	pool_release(p);
}

struct later {
	struct psbuf *b;
};

/* A sink's completion thread returning b whenever it runs. */
static void *put_from_thread(void *arg)
{
	struct later *l = arg;
	psbuf_put(&l->b->pub);
	return NULL;
}

/* The pool's waits counter under its lock. */
static uint64_t pool_waits(struct pool *p)
{
	pthread_mutex_lock(&p->lock);
	uint64_t w = p->waits;
	pthread_mutex_unlock(&p->lock);
	return w;
}

/*
 * A sink's completion thread: returns b once the engine is waiting for a
 * buffer (a condition, not a delay: on a loaded machine the engine may
 * reach pool_get late).
 */
static void *put_when_waited_for(void *arg)
{
	struct later *l = arg;
	while (pool_waits(l->b->pool) == 0)
		usleep(1000);
	psbuf_put(&l->b->pub);
	return NULL;
}

/* All buffers held by a sink: pool_get waits until one comes back. */
static void exhausted_pool_waits_for_return(void **state)
{
	struct pool *p;
	assert_int_equal(pool_create(2, 64, &p), 0);
	struct psbuf *a = pool_get(p, NULL), *b = pool_get(p, NULL);
	assert_null(pool_try_get(p));
	struct later l = { b };
	pthread_t t;
	pthread_create(&t, NULL, put_when_waited_for, &l);
	struct psbuf *c = pool_get(p, NULL); /* blocks until the thread puts b */
	pthread_join(t, NULL);
	assert_ptr_equal(c, b);
	assert_int_equal(p->waits, 1);
	psbuf_put(&a->pub);
	psbuf_put(&c->pub);
	pool_release(p);
}

/* The owner lets go first; buffers in flight keep the pool alive. */
static void pool_outlives_buffers_in_flight(void **state)
{
	struct pool *p;
	assert_int_equal(pool_create(3, 128, &p), 0);
	struct psbuf *a = pool_get(p, NULL), *b = pool_get(p, NULL);
	pool_release(p);
	/* Released above, before the threads exist: whichever puts last frees it. */
	struct later la = { a }, lb = { b };
	pthread_t t1, t2;
	pthread_create(&t1, NULL, put_from_thread, &la);
	pthread_create(&t2, NULL, put_from_thread, &lb);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	/* ASan / valgrind report a leak or a use after free if this is wrong. */
}

/* A stop request ends the wait: NULL, and nothing taken. */
static void cancelled_wait_returns_null(void **state)
{
	struct pool *p;
	atomic_int stop = 0;
	assert_int_equal(pool_create(1, 64, &p), 0);
	struct psbuf *a = pool_get(p, &stop);
	assert_non_null(a);
	atomic_store(&stop, 1);
	assert_null(pool_get(p, &stop));
	assert_int_equal(pool_out(p), 1);
	psbuf_put(&a->pub);
	pool_release(p);
}

static void heap_buffer_freed_at_last_put(void **state)
{
	struct psbuf *h = heapbuf_new(100);
	assert_non_null(h);
	assert_null(h->pool);
	psbuf_get(&h->pub);
	psbuf_put(&h->pub);
	psbuf_put(&h->pub);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(get_gives_one_reference),
		cmocka_unit_test(place_keeps_stream_alignment),
		cmocka_unit_test(last_put_returns_buffer),
		cmocka_unit_test(exhausted_pool_waits_for_return),
		cmocka_unit_test(pool_outlives_buffers_in_flight),
		cmocka_unit_test(cancelled_wait_returns_null),
		cmocka_unit_test(heap_buffer_freed_at_last_put),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
