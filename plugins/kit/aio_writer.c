/*
 * Ordered asynchronous appends with POSIX AIO (see aio_writer.h).
 *
 * Locking: one mutex, w->lock, guards every field below it in struct perfsink_kit_aiow;
 * it nests inside nothing and nothing nests inside it: callbacks run with
 * it released.
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

enum cb_state { CB_FREE = 0, CB_BUSY, CB_RESUBMIT, CB_DONE };

struct aiow_cb {
	struct aiocb cb;
	enum cb_state state;
	const uint8_t *data;
	size_t len, done;
	uint64_t off, seq;
	int err;
	perfsink_kit_aiow_done_fn fn;
	void *arg;
};

struct perfsink_kit_aiow {
	int fd;
	unsigned n;
	struct aiow_cb *cbs;
	const struct aiocb **suspend_list;
	perfsink_kit_aiow_commit_fn on_commit;
	void *commit_arg;
	void *done_ctx;
	pthread_t thread;

	pthread_mutex_t lock;
	pthread_cond_t cv_free; /* a control block was released */
	pthread_cond_t cv_work; /* something was submitted, or stop */
	uint64_t offset;        /* next append offset */
	uint64_t committed;     /* end of the completed, error-free prefix */
	uint64_t next_seq;      /* seq of the next write */
	uint64_t commit_seq;    /* seq of the oldest write not yet released */
	unsigned used;          /* control blocks not CB_FREE */
	unsigned in_callbacks;  /* released, their done() not yet returned */
	struct released *rel;   /* completion thread's scratch, n entries */
	int err;
	bool stop;
	struct perfsink_kit_aiow_stats st;
};

static int submit(struct perfsink_kit_aiow *w, struct aiow_cb *c)
{
	memset(&c->cb, 0, sizeof(c->cb));
	c->cb.aio_fildes = w->fd;
	c->cb.aio_buf = (void *)(c->data + c->done);
	c->cb.aio_nbytes = c->len - c->done;
	c->cb.aio_offset = (off_t)(c->off + c->done);
	/* perf --aio: separate priority queues keep glibc's per-queue walk short. */
	long delta_max = sysconf(_SC_AIO_PRIO_DELTA_MAX);
	long prio = delta_max - (long)(c - w->cbs);
	c->cb.aio_reqprio = prio > 0 ? (int)prio : 0;
	c->cb.aio_sigevent.sigev_notify = SIGEV_NONE;
	w->st.writes++;
	if (aio_write(&c->cb) == 0) {
		c->state = CB_BUSY;
		return 0;
	}
	return -errno;
}

/* Look at one busy block; returns true when its state changed. */
static bool reap_one(struct perfsink_kit_aiow *w, struct aiow_cb *c)
{
	int r = aio_error(&c->cb);
	if (r == EINPROGRESS)
		return false;
	ssize_t ret = aio_return(&c->cb);
	if (r == 0 && ret == 0)
		r = EIO; /* no progress on a regular file: never loop on it */
	if (r != 0) {
		c->err = -r;
		c->state = CB_DONE;
		return true;
	}
	w->st.bytes += (uint64_t)ret;
	c->done += (size_t)ret;
	if (c->done < c->len) {
		w->st.retries++;
		c->state = CB_RESUBMIT;
	} else {
		c->state = CB_DONE;
	}
	return true;
}

static void resubmit_pending(struct perfsink_kit_aiow *w)
{
	for (unsigned i = 0; i < w->n; i++) {
		struct aiow_cb *c = &w->cbs[i];
		if (c->state != CB_RESUBMIT)
			continue;
		int r = submit(w, c);
		if (r == -EAGAIN) {
			w->st.retries++;
			continue; /* stays CB_RESUBMIT; tried again next round */
		}
		if (r < 0) {
			c->err = r;
			c->state = CB_DONE;
		}
	}
}

static struct aiow_cb *find_seq(struct perfsink_kit_aiow *w, uint64_t seq)
{
	for (unsigned i = 0; i < w->n; i++)
		if (w->cbs[i].state != CB_FREE && w->cbs[i].seq == seq)
			return &w->cbs[i];
	return NULL;
}

struct released {
	perfsink_kit_aiow_done_fn fn;
	void *arg;
	int err;
};

/* Release finished blocks in submission order; returns how many in out. */
static unsigned release_in_order(struct perfsink_kit_aiow *w, struct released *out,
				 bool *committed_moved)
{
	unsigned k = 0;
	struct aiow_cb *c;
	while ((c = find_seq(w, w->commit_seq)) && c->state == CB_DONE) {
		if (c->err && !w->err)
			w->err = c->err;
		if (!w->err) {
			w->committed = c->off + c->len;
			*committed_moved = true;
		}
		out[k++] = (struct released){ c->fn, c->arg, c->err ? c->err : w->err };
		c->state = CB_FREE;
		w->used--;
		w->commit_seq++;
	}
	if (k)
		pthread_cond_broadcast(&w->cv_free);
	return k;
}

static void *completion_thread(void *arg)
{
	struct perfsink_kit_aiow *w = arg;
	struct released *rel = w->rel;

	pthread_mutex_lock(&w->lock);
	while (!(w->stop && w->used == 0)) {
		if (w->used == 0) {
			pthread_cond_wait(&w->cv_work, &w->lock);
			continue;
		}
		unsigned k = 0;
		for (unsigned i = 0; i < w->n; i++)
			if (w->cbs[i].state == CB_BUSY)
				w->suspend_list[k++] = &w->cbs[i].cb;
		pthread_mutex_unlock(&w->lock);
		/* Bounded wait: blocks submitted after the snapshot are seen next round. */
		struct timespec ts = { 0, 2 * 1000 * 1000 };
		if (k)
			aio_suspend(w->suspend_list, (int)k, &ts);
		else
			nanosleep(&ts, NULL); /* only resubmissions pending (EAGAIN) */
		pthread_mutex_lock(&w->lock);

		for (unsigned i = 0; i < w->n; i++)
			if (w->cbs[i].state == CB_BUSY)
				reap_one(w, &w->cbs[i]);
		resubmit_pending(w);
		bool moved = false;
		unsigned nrel = release_in_order(w, rel, &moved);
		uint64_t committed = w->committed;
		w->in_callbacks += nrel + (moved ? 1 : 0);
		pthread_mutex_unlock(&w->lock);
		for (unsigned i = 0; i < nrel; i++)
			if (rel[i].fn)
				rel[i].fn(w->done_ctx, rel[i].arg, rel[i].err);
		if (moved && w->on_commit)
			w->on_commit(w->commit_arg, committed);
		pthread_mutex_lock(&w->lock);
		/* Only now is nothing of these writes left: perfsink_kit_aiow_drain waits for it. */
		w->in_callbacks -= nrel + (moved ? 1 : 0);
		if (nrel || moved)
			pthread_cond_broadcast(&w->cv_free);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
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
	w->n = cfg->nr_cb;
	w->offset = w->committed = cfg->offset;
	w->on_commit = cfg->on_commit;
	w->commit_arg = cfg->commit_arg;
	w->done_ctx = cfg->done_ctx;
	w->cbs = calloc(w->n, sizeof(*w->cbs));
	w->suspend_list = calloc(w->n, sizeof(*w->suspend_list));
	w->rel = calloc(w->n, sizeof(*w->rel));
	if (!w->cbs || !w->suspend_list || !w->rel)
		goto nomem;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cv_free, NULL);
	pthread_cond_init(&w->cv_work, NULL);
	int r = pthread_create(&w->thread, NULL, completion_thread, w);
	if (r) {
		pthread_mutex_destroy(&w->lock);
		pthread_cond_destroy(&w->cv_free);
		pthread_cond_destroy(&w->cv_work);
		free(w->cbs);
		free(w->suspend_list);
		free(w->rel);
		free(w);
		return -r;
	}
	*out = w;
	return 0;
nomem:
	free(w->cbs);
	free(w->suspend_list);
	free(w->rel);
	free(w);
	return -ENOMEM;
}

static struct aiow_cb *wait_free_cb(struct perfsink_kit_aiow *w)
{
	bool waited = false;
	for (;;) {
		if (w->err)
			return NULL;
		for (unsigned i = 0; i < w->n; i++)
			if (w->cbs[i].state == CB_FREE)
				return &w->cbs[i];
		if (!waited)
			w->st.waits++;
		waited = true;
		pthread_cond_wait(&w->cv_free, &w->lock);
	}
}

int perfsink_kit_aiow_write(struct perfsink_kit_aiow *w, const void *data, size_t len,
			    perfsink_kit_aiow_done_fn done, void *arg)
{
	if (len == 0) {
		if (done)
			done(w->done_ctx, arg, 0);
		return 0;
	}
	pthread_mutex_lock(&w->lock);
	struct aiow_cb *c = wait_free_cb(w);
	if (!c) {
		int err = w->err;
		pthread_mutex_unlock(&w->lock);
		return err;
	}
	*c = (struct aiow_cb){ .data = data, .len = len, .off = w->offset,
			       .seq = w->next_seq, .fn = done, .arg = arg };
	int r;
	while ((r = submit(w, c)) == -EAGAIN) {
		/* glibc could not queue it (threads or memory): let completions run. */
		w->st.retries++;
		pthread_mutex_unlock(&w->lock);
		usleep(200);
		pthread_mutex_lock(&w->lock);
	}
	if (r < 0) {
		c->state = CB_FREE;
		if (!w->err)
			w->err = r;
		pthread_mutex_unlock(&w->lock);
		return r;
	}
	w->offset += len;
	w->next_seq++;
	w->used++;
	pthread_cond_signal(&w->cv_work);
	pthread_mutex_unlock(&w->lock);
	return 0;
}

int perfsink_kit_aiow_drain(struct perfsink_kit_aiow *w)
{
	pthread_mutex_lock(&w->lock);
	while (w->used || w->in_callbacks)
		pthread_cond_wait(&w->cv_free, &w->lock);
	int err = w->err;
	pthread_mutex_unlock(&w->lock);
	return err;
}

uint64_t perfsink_kit_aiow_offset(const struct perfsink_kit_aiow *w)
{
	pthread_mutex_lock((pthread_mutex_t *)&w->lock);
	uint64_t v = w->offset;
	pthread_mutex_unlock((pthread_mutex_t *)&w->lock);
	return v;
}

uint64_t perfsink_kit_aiow_committed(const struct perfsink_kit_aiow *w)
{
	pthread_mutex_lock((pthread_mutex_t *)&w->lock);
	uint64_t v = w->committed;
	pthread_mutex_unlock((pthread_mutex_t *)&w->lock);
	return v;
}

int perfsink_kit_aiow_error(const struct perfsink_kit_aiow *w)
{
	pthread_mutex_lock((pthread_mutex_t *)&w->lock);
	int v = w->err;
	pthread_mutex_unlock((pthread_mutex_t *)&w->lock);
	return v;
}

void perfsink_kit_aiow_stats(const struct perfsink_kit_aiow *w, struct perfsink_kit_aiow_stats *out)
{
	pthread_mutex_lock((pthread_mutex_t *)&w->lock);
	*out = w->st;
	pthread_mutex_unlock((pthread_mutex_t *)&w->lock);
}

void perfsink_kit_aiow_destroy(struct perfsink_kit_aiow *w)
{
	if (!w)
		return;
	perfsink_kit_aiow_drain(w);
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->cv_work);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->cv_free);
	pthread_cond_destroy(&w->cv_work);
	free(w->cbs);
	free(w->suspend_list);
	free(w->rel);
	free(w);
}
