/*
 * Ordered appends through io_uring (uring_writer.h).
 *
 * Locking: w->lock guards the slots, the counters and the submission
 * queue; callbacks run with it released.  The completion thread alone
 * reads the completion queue, without the lock.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "uring_writer.h"

enum slot_state { SLOT_FREE = 0, SLOT_BUSY, SLOT_DONE };

struct slot {
	enum slot_state state;
	const uint8_t *data;
	size_t len, done;
	uint64_t off, seq;
	int err;
	perfsink_kit_aiow_done_fn fn;
	void *arg;
};

struct released {
	perfsink_kit_aiow_done_fn fn;
	void *arg;
	int err;
};

#define STOP_TAG 1 /* user_data of the NOP that ends the completion thread */

struct uring_writer {
	struct uring_io *io;
	int fd;
	unsigned n;
	struct slot *slots;
	struct released *rel;
	perfsink_kit_aiow_commit_fn on_commit;
	void *commit_arg;
	void *done_ctx;
	pthread_t thread;

	pthread_mutex_t lock;
	pthread_cond_t cv_free;  /* a slot was released */
	uint64_t offset, committed, next_seq, commit_seq;
	unsigned used, in_callbacks;
	int err;
	struct uring_writer_stats st;
	const struct perfsink_instance *log_inst; /* destroy's -v line; NULL: none */
};

/* Queue the rest of slot s; lock held.  0 or -errno (no SQE: the ring is too small). */
static int submit(struct uring_writer *w, struct slot *s)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&w->io->ring);
	if (!sqe)
		return -EBUSY;
	const uint8_t *p = s->data + s->done;
	size_t len = s->len - s->done;
	int idx = uring_io_fixed_index(w->io, p, len);
	if (idx >= 0) {
		io_uring_prep_write_fixed(sqe, w->fd, p, (unsigned)len, s->off + s->done, idx);
		w->st.fixed++;
	} else {
		io_uring_prep_write(sqe, w->fd, p, (unsigned)len, s->off + s->done);
	}
	io_uring_sqe_set_data(sqe, s);
	w->st.writes++;
	int r = io_uring_submit(&w->io->ring);
	return r < 0 ? r : 0;
}

/* One completion for slot s; lock held. */
static void complete(struct uring_writer *w, struct slot *s, int res)
{
	if (res == -EAGAIN || res == -EINTR || (res > 0 && s->done + (size_t)res < s->len)) {
		if (res > 0) {
			s->done += (size_t)res;
			w->st.bytes += (uint64_t)res;
		}
		w->st.retries++;
		int r = submit(w, s);
		if (r == 0)
			return;
		res = r;
	}
	if (res == 0)
		res = -EIO; /* no progress on a regular file: never loop on it */
	if (res > 0) {
		s->done += (size_t)res;
		w->st.bytes += (uint64_t)res;
	} else {
		s->err = res;
	}
	s->state = SLOT_DONE;
}

static struct slot *find_seq(struct uring_writer *w, uint64_t seq)
{
	struct slot *s = &w->slots[seq % w->n];
	return s->state != SLOT_FREE && s->seq == seq ? s : NULL;
}

/* Release finished slots in submission order into w->rel; lock held. */
static unsigned release_in_order(struct uring_writer *w, bool *moved)
{
	unsigned k = 0;
	struct slot *s;
	while ((s = find_seq(w, w->commit_seq)) && s->state == SLOT_DONE) {
		if (s->err && !w->err)
			w->err = s->err;
		if (!w->err) {
			w->committed = s->off + s->len;
			*moved = true;
		}
		w->rel[k++] = (struct released){ s->fn, s->arg, s->err ? s->err : w->err };
		s->state = SLOT_FREE;
		w->used--;
		w->commit_seq++;
	}
	return k;
}

/* Callbacks of what was released, outside the lock. */
static void run_callbacks(struct uring_writer *w, unsigned nrel, bool moved, uint64_t committed)
{
	for (unsigned i = 0; i < nrel; i++)
		if (w->rel[i].fn)
			w->rel[i].fn(w->done_ctx, w->rel[i].arg, w->rel[i].err);
	if (moved && w->on_commit)
		w->on_commit(w->commit_arg, committed);
}

static void *completion_thread(void *arg)
{
	struct uring_writer *w = arg;
	for (;;) {
		struct io_uring_cqe *cqe;
		int r = io_uring_wait_cqe(&w->io->ring, &cqe);
		if (r == -EINTR || r == -EAGAIN)
			continue;
		if (r < 0)
			break; /* cannot happen on a live ring; the writer's users hang otherwise */
		pthread_mutex_lock(&w->lock);
		bool stop = false;
		unsigned seen = 0, head;
		io_uring_for_each_cqe(&w->io->ring, head, cqe) {
			seen++;
			if (cqe->user_data == STOP_TAG)
				stop = true;
			else
				complete(w, io_uring_cqe_get_data(cqe), cqe->res);
		}
		io_uring_cq_advance(&w->io->ring, seen);
		bool moved = false;
		unsigned nrel = release_in_order(w, &moved);
		uint64_t committed = w->committed;
		unsigned cb = nrel + (moved ? 1 : 0);
		w->in_callbacks += cb;
		pthread_mutex_unlock(&w->lock);
		run_callbacks(w, nrel, moved, committed);
		pthread_mutex_lock(&w->lock);
		/* Only now is nothing of these writes left: uring_writer_drain waits for it. */
		w->in_callbacks -= cb;
		if (cb)
			pthread_cond_broadcast(&w->cv_free);
		pthread_mutex_unlock(&w->lock);
		if (stop)
			break;
	}
	return NULL;
}

int uring_writer_create(const struct uring_writer_config *cfg, struct uring_writer **out)
{
	if (cfg->slots < 1 || cfg->slots >= cfg->io->depth || cfg->fd < 0)
		return -EINVAL;
	struct uring_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	*w = (struct uring_writer){ .io = cfg->io, .fd = cfg->fd, .n = cfg->slots,
				    .on_commit = cfg->on_commit, .commit_arg = cfg->commit_arg,
				    .done_ctx = cfg->done_ctx };
	w->offset = w->committed = cfg->offset;
	w->slots = calloc(w->n, sizeof(*w->slots));
	w->rel = calloc(w->n, sizeof(*w->rel));
	if (!w->slots || !w->rel) {
		free(w->slots);
		free(w->rel);
		free(w);
		return -ENOMEM;
	}
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cv_free, NULL);
	int r = pthread_create(&w->thread, NULL, completion_thread, w);
	if (r) {
		pthread_mutex_destroy(&w->lock);
		pthread_cond_destroy(&w->cv_free);
		free(w->slots);
		free(w->rel);
		free(w);
		return -r;
	}
	*out = w;
	return 0;
}

/*
 * Slots are used in seq order (slot seq % n), so the next one is free once
 * the write n before it was released.
 */
static struct slot *wait_free_slot(struct uring_writer *w)
{
	bool waited = false;
	for (;;) {
		if (w->err)
			return NULL;
		struct slot *s = &w->slots[w->next_seq % w->n];
		if (s->state == SLOT_FREE)
			return s;
		if (!waited)
			w->st.waits++;
		waited = true;
		pthread_cond_wait(&w->cv_free, &w->lock);
	}
}

int uring_writer_write(struct uring_writer *w, const void *data, size_t len,
		       perfsink_kit_aiow_done_fn done, void *arg)
{
	if (len == 0) {
		if (done)
			done(w->done_ctx, arg, 0);
		return 0;
	}
	pthread_mutex_lock(&w->lock);
	struct slot *s = wait_free_slot(w);
	if (!s) {
		int err = w->err;
		pthread_mutex_unlock(&w->lock);
		return err;
	}
	*s = (struct slot){ .data = data, .len = len, .off = w->offset, .seq = w->next_seq,
			    .fn = done, .arg = arg };
	int r = submit(w, s);
	if (r < 0) {
		s->state = SLOT_FREE;
		if (!w->err)
			w->err = r;
		pthread_mutex_unlock(&w->lock);
		return r;
	}
	s->state = SLOT_BUSY;
	w->offset += len;
	w->next_seq++;
	w->used++;
	pthread_mutex_unlock(&w->lock);
	return 0;
}

int uring_writer_drain(struct uring_writer *w)
{
	pthread_mutex_lock(&w->lock);
	while (w->used || w->in_callbacks)
		pthread_cond_wait(&w->cv_free, &w->lock);
	int err = w->err;
	pthread_mutex_unlock(&w->lock);
	return err;
}

uint64_t uring_writer_offset(struct uring_writer *w)
{
	pthread_mutex_lock(&w->lock);
	uint64_t v = w->offset;
	pthread_mutex_unlock(&w->lock);
	return v;
}

uint64_t uring_writer_committed(struct uring_writer *w)
{
	pthread_mutex_lock(&w->lock);
	uint64_t v = w->committed;
	pthread_mutex_unlock(&w->lock);
	return v;
}

void uring_writer_stats(struct uring_writer *w, struct uring_writer_stats *out)
{
	pthread_mutex_lock(&w->lock);
	*out = w->st;
	pthread_mutex_unlock(&w->lock);
}

/* A NOP the completion thread recognises as its end; lock held.  0 or -errno. */
static int submit_stop(struct uring_writer *w)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&w->io->ring);
	if (!sqe)
		return -EBUSY;
	io_uring_prep_nop(sqe);
	io_uring_sqe_set_data64(sqe, STOP_TAG);
	int r = io_uring_submit(&w->io->ring);
	return r < 0 ? r : 0;
}

void uring_writer_set_log(struct uring_writer *w, const struct perfsink_instance *inst)
{
	w->log_inst = inst;
}

void uring_writer_destroy(struct uring_writer *w)
{
	if (!w)
		return;
	uring_writer_drain(w);
	if (w->log_inst)
		w->log_inst->host->log(w->log_inst, PERFSINK_LOG_DEBUG,
				       "%llu writes, %llu from fixed buffers, %llu waited for a slot",
				       (unsigned long long)w->st.writes, (unsigned long long)w->st.fixed,
				       (unsigned long long)w->st.waits);
	pthread_mutex_lock(&w->lock);
	int r = submit_stop(w);
	pthread_mutex_unlock(&w->lock);
	if (r < 0) /* the ring is idle and has room: only a dead ring refuses a NOP */
		pthread_cancel(w->thread);
	pthread_join(w->thread, NULL);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->cv_free);
	free(w->slots);
	free(w->rel);
	free(w);
}
