/*
 * The kit's async worker (kit 1.7, perfsink_kit_worker_*): jobs run in the
 * order queued, a barrier waits for what was queued before it, the first
 * error sticks and reaches the later jobs, every buffer reference taken is
 * given back once its job is done, and stop runs what is still queued.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <perfsink/kit.h>

#define NJOBS 160

/* A buffer and its reference count, as the host's pool keeps it. */
struct tbuf {
	struct perfsink_buf pub;
	atomic_int refs;
};

static void t_get(struct perfsink_buf *b)
{
	atomic_fetch_add(&((struct tbuf *)b)->refs, 1);
}

static void t_put(struct perfsink_buf *b)
{
	atomic_fetch_sub(&((struct tbuf *)b)->refs, 1);
}

static const struct perfsink_host host = { .buf_get = t_get, .buf_put = t_put };

struct tjob {
	struct perfsink_kit_job job;
	int id;
	int fail_with;              /* run returns this */
	atomic_int *gate;           /* run waits while it is 0 */
};

/* What the jobs saw, in the order they ran (the worker's thread). */
static int ran[NJOBS * 2], ran_err[NJOBS * 2], nran, nfreed;
static struct tjob jobs[NJOBS];
static struct tbuf bufs[NJOBS];

static int t_run(struct perfsink_kit_job *j, int err)
{
	struct tjob *t = (struct tjob *)j;

	while (t->gate && !atomic_load(t->gate))
		usleep(1000);
	/* The reference is still held while the job runs. */
	if (j->buf)
		assert_int_equal(atomic_load(&((struct tbuf *)j->buf)->refs), 1);
	ran_err[nran] = err;
	ran[nran++] = t->id;
	return t->fail_with;
}

static void t_done(struct perfsink_kit_job *j)
{
	(void)j;
	nfreed++;
}

static int setup(void **state)
{
	(void)state;
	memset(jobs, 0, sizeof(jobs));
	memset(bufs, 0, sizeof(bufs));
	nran = nfreed = 0;
	for (int i = 0; i < NJOBS; i++) {
		jobs[i].id = i;
		jobs[i].job.run = t_run;
		jobs[i].job.done = t_done;
		jobs[i].job.buf = &bufs[i].pub;
	}
	return 0;
}

static struct perfsink_kit_worker *worker(size_t max_queued)
{
	struct perfsink_kit_worker_conf c = { &host, max_queued };
	struct perfsink_kit_worker *w = NULL;

	assert_int_equal(perfsink_kit_worker_new(&c, &w), 0);
	assert_non_null(w);
	return w;
}

static void refs_all_zero(void)
{
	for (int i = 0; i < NJOBS; i++)
		assert_int_equal(atomic_load(&bufs[i].refs), 0);
}

static void test_order_and_refs(void **state)
{
	struct perfsink_kit_worker *w = worker(4); /* push waits: backpressure */

	(void)state;
	for (int i = 0; i < NJOBS; i++)
		assert_int_equal(perfsink_kit_worker_push(w, &jobs[i].job), 0);
	assert_int_equal(perfsink_kit_worker_barrier(w), 0);
	assert_int_equal(nran, NJOBS);
	for (int i = 0; i < NJOBS; i++) {
		assert_int_equal(ran[i], i);
		assert_int_equal(ran_err[i], 0);
	}
	assert_int_equal(nfreed, NJOBS);
	refs_all_zero();
	assert_int_equal(perfsink_kit_worker_pending(w), 0);
	perfsink_kit_worker_free(w);
}

/* The barrier waits for the running job and those before it, not later ones. */
static void test_barrier(void **state)
{
	atomic_int gate = 0;
	struct perfsink_kit_worker *w = worker(0);
	int64_t soon;
	struct timespec ts;

	(void)state;
	jobs[0].gate = &gate;
	assert_int_equal(perfsink_kit_worker_push(w, &jobs[0].job), 0);
	assert_int_equal(perfsink_kit_worker_push(w, &jobs[1].job), 0);
	/* Held buffers: one reference each while queued or running. */
	assert_int_equal(atomic_load(&bufs[0].refs), 1);
	assert_int_equal(atomic_load(&bufs[1].refs), 1);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	soon = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + 50;
	assert_int_equal(perfsink_kit_worker_wait(w, soon), -ETIMEDOUT);
	assert_int_equal(nran, 0);
	assert_int_equal(perfsink_kit_worker_pending(w), 2);
	atomic_store(&gate, 1);
	assert_int_equal(perfsink_kit_worker_barrier(w), 0);
	assert_int_equal(nran, 2);
	assert_int_equal(nfreed, 2);
	refs_all_zero();
	/* With nothing queued it returns at once. */
	assert_int_equal(perfsink_kit_worker_barrier(w), 0);
	perfsink_kit_worker_free(w);
}

/* The first error sticks; the jobs already queued run with it; pushes are refused. */
static void test_sticky_error(void **state)
{
	struct perfsink_kit_worker *w = worker(0);
	atomic_int gate = 0;

	(void)state;
	jobs[0].gate = &gate;
	jobs[1].fail_with = -EPIPE;
	jobs[2].fail_with = -EIO; /* not the first: ignored */
	for (int i = 0; i < 4; i++)
		assert_int_equal(perfsink_kit_worker_push(w, &jobs[i].job), 0);
	atomic_store(&gate, 1);
	assert_int_equal(perfsink_kit_worker_barrier(w), -EPIPE);
	assert_int_equal(nran, 4);
	assert_int_equal(ran_err[0], 0);
	assert_int_equal(ran_err[1], 0);
	assert_int_equal(ran_err[2], -EPIPE);
	assert_int_equal(ran_err[3], -EPIPE);
	assert_int_equal(perfsink_kit_worker_error(w), -EPIPE);
	/* Refused: not run, no reference kept, released at once. */
	assert_int_equal(perfsink_kit_worker_push(w, &jobs[4].job), -EPIPE);
	assert_int_equal(nran, 4);
	assert_int_equal(nfreed, 5);
	assert_int_equal(perfsink_kit_worker_fail(w, -ENOSPC), 0);
	assert_int_equal(perfsink_kit_worker_stop(w), -EPIPE);
	refs_all_zero();
	perfsink_kit_worker_free(w);
}

/* fail() from outside the thread (an I/O completion) sets it the same way, once. */
static void test_fail_outside(void **state)
{
	struct perfsink_kit_worker *w = worker(0);

	(void)state;
	assert_int_equal(perfsink_kit_worker_fail(w, -ENOSPC), 1);
	assert_int_equal(perfsink_kit_worker_fail(w, -EIO), 0);
	assert_int_equal(perfsink_kit_worker_barrier(w), -ENOSPC);
	assert_int_equal(perfsink_kit_worker_push(w, &jobs[0].job), -ENOSPC);
	assert_int_equal(atomic_load(&bufs[0].refs), 0);
	perfsink_kit_worker_free(w);
}

/* stop with jobs still queued: they all run, in order, then the thread ends. */
static void test_stop_with_queued(void **state)
{
	struct perfsink_kit_worker *w = worker(0);
	atomic_int gate = 0;

	(void)state;
	jobs[0].gate = &gate;
	for (int i = 0; i < 10; i++)
		assert_int_equal(perfsink_kit_worker_push(w, &jobs[i].job), 0);
	atomic_store(&gate, 1);
	assert_int_equal(perfsink_kit_worker_stop(w), 0);
	assert_int_equal(nran, 10);
	for (int i = 0; i < 10; i++)
		assert_int_equal(ran[i], i);
	assert_int_equal(nfreed, 10);
	refs_all_zero();
	assert_int_equal(perfsink_kit_worker_push(w, &jobs[10].job), -ESHUTDOWN);
	assert_int_equal(nfreed, 11);
	assert_int_equal(perfsink_kit_worker_stop(w), 0);
	perfsink_kit_worker_free(w);
	refs_all_zero();
}

static int odd(const struct perfsink_kit_job *j, void *arg)
{
	(void)arg;
	return ((const struct tjob *)j)->id % 2;
}

/* drop takes queued jobs out unrun, their references given back; a barrier still waits for the rest. */
static void test_drop(void **state)
{
	struct perfsink_kit_worker *w = worker(0);
	atomic_int gate = 0;

	(void)state;
	jobs[0].gate = &gate;
	for (int i = 0; i < 8; i++)
		assert_int_equal(perfsink_kit_worker_push(w, &jobs[i].job), 0);
	/* Job 0 holds the thread (running or about to): the odd ones are all queued. */
	assert_int_equal(perfsink_kit_worker_drop(w, odd, NULL), 4);
	assert_int_equal(atomic_load(&bufs[1].refs), 0);
	assert_int_equal(atomic_load(&bufs[7].refs), 0);
	assert_int_equal(atomic_load(&bufs[6].refs), 1);
	atomic_store(&gate, 1);
	assert_int_equal(perfsink_kit_worker_barrier(w), 0);
	assert_int_equal(nran, 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(ran[i], 2 * i);
	assert_int_equal(nfreed, 8);
	refs_all_zero();
	perfsink_kit_worker_free(w);
}

/* A job without a buffer nor done: nothing to give back. */
static void test_plain_job(void **state)
{
	struct perfsink_kit_worker *w = worker(0);

	(void)state;
	jobs[0].job.buf = NULL;
	jobs[0].job.done = NULL;
	assert_int_equal(perfsink_kit_worker_push(w, &jobs[0].job), 0);
	assert_int_equal(perfsink_kit_worker_barrier(w), 0);
	assert_int_equal(nran, 1);
	assert_int_equal(nfreed, 0);
	perfsink_kit_worker_free(w);
	perfsink_kit_worker_free(NULL);
}

/* The idle hook: called when nothing is queued, and between batches of jobs; push wakes it. */
static atomic_int idles, idles_more, wakes;

static void t_idle(void *arg, int more)
{
	(void)arg;
	atomic_fetch_add(more ? &idles_more : &idles, 1);
	usleep(1000); /* a wait of its own, cut short by nothing here */
}

static void t_wake(void *arg)
{
	(void)arg;
	atomic_fetch_add(&wakes, 1);
}

/* Whether *v became non-zero within 10 s (a loaded CI machine's bound, not a timing). */
static bool became_nonzero(atomic_int *v)
{
	for (int ms = 0; ms < 10000 && !atomic_load(v); ms++)
		usleep(1000);
	return atomic_load(v) != 0;
}

static void test_idle_hook(void **state)
{
	struct perfsink_kit_worker_conf c = { .host = &host, .idle = t_idle, .wake = t_wake };
	struct perfsink_kit_worker *w = NULL;
	atomic_int gate = 0;

	(void)state;
	assert_int_equal(perfsink_kit_worker_new(&c, &w), 0);
	assert_true(became_nonzero(&idles)); /* nothing queued: the thread idles */
	jobs[0].gate = &gate;
	for (int i = 0; i < NJOBS; i++)
		assert_int_equal(perfsink_kit_worker_push(w, &jobs[i].job), 0);
	assert_int_equal(atomic_load(&wakes), NJOBS);
	atomic_store(&gate, 1);
	assert_int_equal(perfsink_kit_worker_barrier(w), 0);
	/* PERFSINK_KIT_WORKER_BATCH (64) jobs in a row, then a turn of idle that must not wait. */
	assert_true(atomic_load(&idles_more) >= 2); /* 160 queued: after 64 and after 128 */
	for (int i = 0; i < NJOBS; i++)
		assert_int_equal(ran[i], i);
	perfsink_kit_worker_free(w);
	assert_int_equal(atomic_load(&wakes), NJOBS + 1); /* stop wakes it too */
	refs_all_zero();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_order_and_refs, setup),
		cmocka_unit_test_setup(test_barrier, setup),
		cmocka_unit_test_setup(test_sticky_error, setup),
		cmocka_unit_test_setup(test_fail_outside, setup),
		cmocka_unit_test_setup(test_stop_with_queued, setup),
		cmocka_unit_test_setup(test_drop, setup),
		cmocka_unit_test_setup(test_plain_job, setup),
		cmocka_unit_test_setup(test_idle_hook, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
