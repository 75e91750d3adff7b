/*
 * Ordered asynchronous appends with POSIX AIO (kit.h, perfsink_kit_aiow):
 * the POSIX AIO backend of the kit's write queue (write_queue.h), which
 * orders, waits, fails and counts.  Here: one aiocb per slot, submitted
 * with aio_write, reaped by a completion thread with aio_suspend.
 *
 * Locking: the queue's lock (w->q.lock) also guards cbs[]; callbacks run
 * with it released.
 */
#include <aio.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <perfsink/kit.h>
#include "write_queue.h"

/* The backend's side of a WQ_BUSY slot (same index in q.slots). */
struct aiow_cb {
	struct aiocb cb;
	bool resubmit;   /* not in flight: the rest waits to be submitted (EAGAIN, short write) */
};

struct perfsink_kit_aiow {
	struct write_queue q;
	int fd;
	struct aiow_cb *cbs;
	const struct aiocb **suspend_list;
	pthread_t thread;
	bool stop;       /* q.lock */
};

static int submit(void *ctx, struct perfsink_kit_wq_slot *s)
{
	struct perfsink_kit_aiow *w = ctx;
	long i = s->index;
	struct aiocb *cb = &w->cbs[i].cb;
	memset(cb, 0, sizeof(*cb));
	cb->aio_fildes = w->fd;
	cb->aio_buf = (void *)(s->data + s->done);
	cb->aio_nbytes = s->len - s->done;
	cb->aio_offset = (off_t)(s->off + s->done);
	/* perf --aio: separate priority queues keep glibc's per-queue walk short. */
	long delta_max = sysconf(_SC_AIO_PRIO_DELTA_MAX);
	long prio = delta_max - i;
	cb->aio_reqprio = prio > 0 ? (int)prio : 0;
	cb->aio_sigevent.sigev_notify = SIGEV_NONE;
	w->q.st.writes++;
	if (aio_write(cb) == 0) {
		w->cbs[i].resubmit = false;
		return 0;
	}
	return errno == EAGAIN ? WQ_AGAIN : -errno;
}

static bool in_flight(const struct perfsink_kit_aiow *w, unsigned i)
{
	return w->q.slots[i].state == WQ_BUSY && !w->cbs[i].resubmit;
}

/* Look at one slot in flight; lock held. */
static void reap_one(struct perfsink_kit_aiow *w, unsigned i)
{
	struct wq_slot *s = &w->q.slots[i];
	struct perfsink_kit_wq_slot *io = &s->io;
	int r = aio_error(&w->cbs[i].cb);
	if (r == EINPROGRESS)
		return;
	ssize_t ret = aio_return(&w->cbs[i].cb);
	if (r == 0 && ret == 0)
		r = EIO; /* no progress on a regular file: never loop on it */
	if (r != 0) {
		wq_finish(s, -r);
		return;
	}
	w->q.st.bytes += (uint64_t)ret;
	io->done += (size_t)ret;
	if (io->done < io->len) {
		w->q.st.retries++;
		w->cbs[i].resubmit = true;
	} else {
		wq_finish(s, 0);
	}
}

static void resubmit_pending(struct perfsink_kit_aiow *w)
{
	for (unsigned i = 0; i < w->q.n; i++) {
		struct wq_slot *s = &w->q.slots[i];
		if (s->state != WQ_BUSY || !w->cbs[i].resubmit)
			continue;
		int r = submit(w, &s->io);
		if (r == WQ_AGAIN) {
			w->q.st.retries++;
			continue; /* stays to resubmit; tried again next round */
		}
		if (r < 0)
			wq_finish(s, r);
	}
}

static void *completion_thread(void *arg)
{
	struct perfsink_kit_aiow *w = arg;
	struct write_queue *q = &w->q;

	pthread_mutex_lock(&q->lock);
	while (!(w->stop && q->used == 0)) {
		if (q->used == 0) {
			pthread_cond_wait(&q->cv_work, &q->lock);
			continue;
		}
		unsigned k = 0;
		for (unsigned i = 0; i < q->n; i++)
			if (in_flight(w, i))
				w->suspend_list[k++] = &w->cbs[i].cb;
		pthread_mutex_unlock(&q->lock);
		/* Bounded wait: blocks submitted after the snapshot are seen next round. */
		struct timespec ts = { 0, 2 * 1000 * 1000 };
		if (k)
			aio_suspend(w->suspend_list, (int)k, &ts);
		else
			nanosleep(&ts, NULL); /* only resubmissions pending (EAGAIN) */
		pthread_mutex_lock(&q->lock);

		for (unsigned i = 0; i < q->n; i++)
			if (in_flight(w, i))
				reap_one(w, i);
		resubmit_pending(w);
		wq_release(q);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

static void free_writer(struct perfsink_kit_aiow *w)
{
	wq_fini(&w->q);
	free(w->cbs);
	free(w->suspend_list);
	free(w);
}

int perfsink_kit_aiow_create(const struct perfsink_kit_aiow_config *cfg,
			     struct perfsink_kit_aiow **out)
{
	if (cfg->nr_cb < 1 || cfg->fd < 0)
		return -EINVAL;
	struct perfsink_kit_aiow *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = cfg->fd;
	struct perfsink_kit_wq_config qc = { .slots = cfg->nr_cb, .offset = cfg->offset,
				.on_commit = cfg->on_commit, .commit_arg = cfg->commit_arg,
				.done_ctx = cfg->done_ctx, .submit = submit, .submit_ctx = w };
	int r = wq_init(&w->q, &qc);
	if (r < 0) {
		free(w);
		return r;
	}
	w->cbs = calloc(cfg->nr_cb, sizeof(*w->cbs));
	w->suspend_list = calloc(cfg->nr_cb, sizeof(*w->suspend_list));
	r = !w->cbs || !w->suspend_list ? ENOMEM
		: pthread_create(&w->thread, NULL, completion_thread, w);
	if (r) {
		free_writer(w);
		return -r;
	}
	*out = w;
	return 0;
}

int perfsink_kit_aiow_write(struct perfsink_kit_aiow *w, const void *data, size_t len,
			    perfsink_kit_aiow_done_fn done, void *arg)
{
	return wq_write(&w->q, data, len, done, arg);
}

int perfsink_kit_aiow_drain(struct perfsink_kit_aiow *w) { return wq_drain(&w->q); }

/* The getters are const in kit.h's ABI; the lock they take is not. */
uint64_t perfsink_kit_aiow_offset(const struct perfsink_kit_aiow *w)
{
	return wq_offset((struct write_queue *)&w->q);
}

uint64_t perfsink_kit_aiow_committed(const struct perfsink_kit_aiow *w)
{
	return wq_committed((struct write_queue *)&w->q);
}

int perfsink_kit_aiow_error(const struct perfsink_kit_aiow *w)
{
	return wq_error((struct write_queue *)&w->q);
}

void perfsink_kit_aiow_stats(const struct perfsink_kit_aiow *w, struct perfsink_kit_aiow_stats *out)
{
	wq_stats((struct write_queue *)&w->q, out);
}

void perfsink_kit_aiow_destroy(struct perfsink_kit_aiow *w)
{
	if (!w)
		return;
	wq_drain(&w->q);
	pthread_mutex_lock(&w->q.lock);
	w->stop = true;
	pthread_cond_signal(&w->q.cv_work);
	pthread_mutex_unlock(&w->q.lock);
	pthread_join(w->thread, NULL);
	free_writer(w);
}
