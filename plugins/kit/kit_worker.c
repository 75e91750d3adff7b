/*
 * The async worker: ordered jobs on one thread, a barrier, a sticky first
 * error, buffer references held until a job is done; see kit.h.
 *
 * Jobs are numbered as they are pushed (seq, from 1).  The queue is in
 * that order and one thread runs it, so a barrier waits only while the
 * queue's head or the running job is numbered at most the last number
 * given when it began: jobs pushed after it do not make it wait longer,
 * and a job dropped from the middle does not end it early.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <perfsink/kit.h>

struct perfsink_kit_worker {
	struct perfsink_kit_worker_conf conf;
	pthread_t thread;
	int started, joined;
	/*
	 * Leaf lock: no job runs and no host call is made under it but
	 * buf_get.  work_cv: a job was queued, or stop.  done_cv (monotonic,
	 * for wait's deadline): a job left the queue or was done.
	 */
	pthread_mutex_t mu;
	pthread_cond_t work_cv, done_cv;
	struct perfsink_kit_job *head, *tail;
	size_t queued;
	uint64_t pushed;        /* the last seq given */
	uint64_t running;       /* seq of the job being run, 0: none */
	int stop, err;
};

/*
 * A job leaves for good: its reference back to the engine, then its
 * owner's done.  buf and done are read before run: a job without done may
 * be gone once run started (kit.h).
 */
static void job_release(struct perfsink_kit_worker *w, struct perfsink_kit_job *job,
			struct perfsink_buf *buf, void (*done)(struct perfsink_kit_job *))
{
	if (buf)
		w->conf.host->buf_put(buf);
	if (done)
		done(job);
}

/* Under w->mu: the oldest job, unlinked. */
static struct perfsink_kit_job *queue_take(struct perfsink_kit_worker *w)
{
	struct perfsink_kit_job *job = w->head;

	w->head = job->next;
	if (!w->head)
		w->tail = NULL;
	job->next = NULL;
	w->queued--;
	return job;
}

static void *worker_main(void *arg)
{
	struct perfsink_kit_worker *w = arg;

	unsigned in_row = 0;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		struct perfsink_kit_job *job;
		struct perfsink_buf *buf;
		void (*done)(struct perfsink_kit_job *);
		int err, r;

		if (w->conf.idle && (!w->head ? !w->stop : in_row >= PERFSINK_KIT_WORKER_BATCH)) {
			int more = w->head != NULL;

			pthread_mutex_unlock(&w->mu);
			w->conf.idle(w->conf.arg, more);
			pthread_mutex_lock(&w->mu);
			in_row = 0;
			continue;
		}
		while (!w->head && !w->stop)
			pthread_cond_wait(&w->work_cv, &w->mu);
		if (!w->head)
			break;
		in_row++;
		job = queue_take(w);
		w->running = job->seq;
		err = w->err;
		pthread_cond_broadcast(&w->done_cv); /* room for a waiting push */
		pthread_mutex_unlock(&w->mu);
		buf = job->buf;
		done = job->done;
		r = job->run(job, err);
		job_release(w, job, buf, done);
		pthread_mutex_lock(&w->mu);
		if (r < 0 && !w->err)
			w->err = r;
		w->running = 0;
		pthread_cond_broadcast(&w->done_cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

int perfsink_kit_worker_new(const struct perfsink_kit_worker_conf *conf,
			    struct perfsink_kit_worker **out)
{
	struct perfsink_kit_worker *w = calloc(1, sizeof(*w));
	pthread_condattr_t mono;
	int r;

	if (!w)
		return -ENOMEM;
	w->conf = *conf;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->work_cv, NULL);
	pthread_condattr_init(&mono);
	pthread_condattr_setclock(&mono, CLOCK_MONOTONIC);
	pthread_cond_init(&w->done_cv, &mono);
	pthread_condattr_destroy(&mono);
	r = pthread_create(&w->thread, NULL, worker_main, w);
	if (r) {
		perfsink_kit_worker_free(w);
		return -r;
	}
	w->started = 1;
	*out = w;
	return 0;
}

int perfsink_kit_worker_push(struct perfsink_kit_worker *w, struct perfsink_kit_job *job)
{
	int err;

	pthread_mutex_lock(&w->mu);
	while (!w->err && !w->stop && w->conf.max_queued && w->queued >= w->conf.max_queued)
		pthread_cond_wait(&w->done_cv, &w->mu);
	err = w->err ? w->err : w->stop ? -ESHUTDOWN : 0;
	if (!err) {
		if (job->buf)
			w->conf.host->buf_get(job->buf);
		job->next = NULL;
		if (w->tail)
			w->tail->next = job;
		else
			w->head = job;
		w->tail = job;
		w->queued++;
		job->seq = ++w->pushed;
		pthread_cond_signal(&w->work_cv);
	}
	pthread_mutex_unlock(&w->mu);
	if (!err && w->conf.wake)
		w->conf.wake(w->conf.arg);
	if (err && job->done)
		job->done(job);
	return err;
}

/* Under w->mu: a job numbered ticket or less is queued or running. */
static int before(const struct perfsink_kit_worker *w, uint64_t ticket)
{
	return (w->running && w->running <= ticket) || (w->head && w->head->seq <= ticket);
}

int perfsink_kit_worker_wait(struct perfsink_kit_worker *w, int64_t deadline_ms)
{
	struct timespec until = { deadline_ms / 1000, (deadline_ms % 1000) * 1000000 };
	uint64_t ticket;
	int r = 0;

	pthread_mutex_lock(&w->mu);
	ticket = w->pushed;
	while (before(w, ticket) && !r) {
		if (deadline_ms < 0)
			pthread_cond_wait(&w->done_cv, &w->mu);
		else if (pthread_cond_timedwait(&w->done_cv, &w->mu, &until) == ETIMEDOUT &&
			 before(w, ticket))
			r = -ETIMEDOUT;
	}
	if (w->err)
		r = w->err;
	pthread_mutex_unlock(&w->mu);
	return r;
}

int perfsink_kit_worker_barrier(struct perfsink_kit_worker *w)
{
	return perfsink_kit_worker_wait(w, -1);
}

int perfsink_kit_worker_fail(struct perfsink_kit_worker *w, int err)
{
	int first;

	pthread_mutex_lock(&w->mu);
	first = err < 0 && !w->err;
	if (first) {
		w->err = err;
		pthread_cond_broadcast(&w->done_cv); /* a push waiting for room ends */
	}
	pthread_mutex_unlock(&w->mu);
	return first;
}

int perfsink_kit_worker_error(struct perfsink_kit_worker *w)
{
	int err;

	pthread_mutex_lock(&w->mu);
	err = w->err;
	pthread_mutex_unlock(&w->mu);
	return err;
}

size_t perfsink_kit_worker_pending(struct perfsink_kit_worker *w)
{
	size_t n;

	pthread_mutex_lock(&w->mu);
	n = w->queued + (w->running != 0);
	pthread_mutex_unlock(&w->mu);
	return n;
}

size_t perfsink_kit_worker_drop(struct perfsink_kit_worker *w,
				int (*match)(const struct perfsink_kit_job *job, void *arg), void *arg)
{
	struct perfsink_kit_job **pp, *gone = NULL, *prev = NULL, *job;
	size_t n = 0;

	pthread_mutex_lock(&w->mu);
	for (pp = &w->head; (job = *pp);) {
		if (match(job, arg)) {
			*pp = job->next;
			job->next = gone;
			gone = job;
			n++;
			continue;
		}
		prev = job;
		pp = &job->next;
	}
	w->tail = prev;
	w->queued -= n;
	pthread_cond_broadcast(&w->done_cv);
	pthread_mutex_unlock(&w->mu);
	/* Released outside the lock, as the thread does (the caller's thread). */
	while ((job = gone)) {
		gone = job->next;
		job_release(w, job, job->buf, job->done);
	}
	return n;
}

int perfsink_kit_worker_stop(struct perfsink_kit_worker *w)
{
	pthread_mutex_lock(&w->mu);
	w->stop = 1;
	pthread_cond_broadcast(&w->work_cv);
	pthread_cond_broadcast(&w->done_cv);
	pthread_mutex_unlock(&w->mu);
	if (w->conf.wake)
		w->conf.wake(w->conf.arg);
	if (w->started && !w->joined) {
		pthread_join(w->thread, NULL);
		w->joined = 1;
	}
	return perfsink_kit_worker_error(w);
}

void perfsink_kit_worker_free(struct perfsink_kit_worker *w)
{
	if (!w)
		return;
	perfsink_kit_worker_stop(w);
	pthread_cond_destroy(&w->work_cv);
	pthread_cond_destroy(&w->done_cv);
	pthread_mutex_destroy(&w->mu);
	free(w);
}
