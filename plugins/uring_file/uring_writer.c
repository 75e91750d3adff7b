/*
 * Ordered appends through io_uring (uring_writer.h): the io_uring backend
 * of the kit's write queue (kit/write_queue.h), which orders, waits, fails
 * and counts as for aio_file.  Here: one SQE per slot, a completion thread
 * that reaps the completion queue.  While the writer is plugged (one sink
 * write: with O_DIRECT a block, then the middle), SQEs are queued and
 * entered together at unplug.
 *
 * The completion thread sleeps until the oldest write from a pooled
 * buffer (its bytes in a registered buffer) can be released, not at every
 * completion: with O_DIRECT a buffer may make two writes, a block then its
 * middle, and waking for the block frees nothing the engine waits for.
 * Releases go in submission order, so that buffer cannot go back before
 * every write ahead of it completed: waiting for that many completions
 * delays no release.
 *
 * Locking: the queue's lock (w->q.lock) also guards the submission queue,
 * the plug, sio and the counters; callbacks run with it released.  The
 * completion thread alone reads the completion queue, without the lock.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kit/write_queue.h"
#include "uring_writer.h"

#define STOP_TAG 1 /* user_data of the NOP that ends the completion thread */

/* What the writer keeps per slot (q.slots[i] is sio[i]). */
struct slot_io {
	bool pooled;          /* its bytes lie in a registered (pooled) buffer */
	bool spilled;         /* its bytes lie in a chunk of the spill */
};

struct uring_writer {
	struct write_queue q;
	struct uring_io *io;
	int fd;
	pthread_t thread;
	struct slot_io *sio;  /* one per slot */
	bool plugged;         /* SQEs wait for unplug (uring_writer_plug) */
	unsigned queued;      /* plugged: SQEs queued, not submitted */
	struct uring_spill *spill; /* NULL: writes never spill */
	unsigned spill_at;    /* pooled buffers held by writes in flight from which writes spill */
	unsigned pooled_busy; /* writes in flight from pooled buffers */
	unsigned spilled_busy; /* writes in flight from spill chunks */
	uint64_t st_fixed;    /* submissions that were write_fixed */
	uint64_t st_spilled;  /* writes made from a spill chunk */
	uint64_t st_async;    /* submissions handed to io_uring's workers (behind()) */
	const struct perfsink_instance *log_inst; /* destroy's -v line; NULL: none */
	struct uring_writer **ref; /* cleared by destroy; NULL: none */
};

static struct slot_io *sio_of(struct uring_writer *w, const struct wq_slot *s)
{
	return &w->sio[s - w->q.slots];
}

/*
 * Lock held: enter what is queued; 0 or -errno.  A transient refusal
 * (no memory for requests, completions to reap first) is retried after a
 * pause with the lock dropped, as the write queue does for WQ_AGAIN.
 */
static int flush(struct uring_writer *w)
{
	while (w->queued) {
		int r = io_uring_submit(&w->io->ring);
		if (r >= 0) {
			/* 0: the submission queue is empty, nothing of ours is left in it. */
			w->queued = r == 0 || (unsigned)r >= w->queued ? 0 : w->queued - (unsigned)r;
		} else if (r == -EAGAIN || r == -EBUSY) {
			pthread_mutex_unlock(&w->q.lock);
			usleep(200);
			pthread_mutex_lock(&w->q.lock);
		} else if (r != -EINTR) {
			return r; /* only a dead ring: its writes never complete (see completion_thread) */
		}
	}
	return 0;
}

/*
 * Lock held: is the disk behind the events (writes in flight hold
 * spill_at pooled buffers, or spill chunks)?  Then a write issued inline
 * can block the caller in the block layer for as long as the disk takes
 * to make room (100 ms and more seen beside a busy neighbour), and the
 * rings overflow meanwhile: writes go to io_uring's workers instead.
 */
static bool behind(struct uring_writer *w)
{
	return w->pooled_busy >= w->spill_at || w->spilled_busy;
}

/* Queue the rest of slot s; lock held.  0 or -errno (no SQE: the ring is too small). */
static int submit(void *ctx, struct wq_slot *s)
{
	struct uring_writer *w = ctx;
	const uint8_t *p = s->data + s->done;
	size_t len = s->len - s->done;
	int idx = uring_io_fixed_index(w->io, p, len);
	struct slot_io *si = sio_of(w, s);
	*si = (struct slot_io){ .pooled = idx >= 0, .spilled = uring_spill_owns(w->spill, s->data) };
	struct io_uring_sqe *sqe = io_uring_get_sqe(&w->io->ring);
	if (!sqe)
		return -EBUSY;
	if (idx >= 0) {
		io_uring_prep_write_fixed(sqe, w->fd, p, (unsigned)len, s->off + s->done, idx);
		w->st_fixed++;
	} else {
		io_uring_prep_write(sqe, w->fd, p, (unsigned)len, s->off + s->done);
	}
	io_uring_sqe_set_data(sqe, s);
	if (behind(w)) {
		io_uring_sqe_set_flags(sqe, IOSQE_ASYNC);
		w->st_async++;
	}
	w->q.st.writes++;
	w->queued++;
	return w->plugged ? 0 : flush(w);
}

/* One completion for slot s; lock held. */
static void complete(struct uring_writer *w, struct wq_slot *s, int res)
{
	if (res == -EAGAIN || res == -EINTR || (res > 0 && s->done + (size_t)res < s->len)) {
		if (res > 0) {
			s->done += (size_t)res;
			w->q.st.bytes += (uint64_t)res;
		}
		w->q.st.retries++;
		/* Entered now even while the writer is plugged: the plugging thread may wait for this slot. */
		int r = submit(w, s);
		if (r == 0)
			r = flush(w);
		if (r == 0)
			return;
		res = r;
	}
	if (res == 0)
		res = -EIO; /* no progress on a regular file: never loop on it */
	if (res > 0) {
		s->done += (size_t)res;
		w->q.st.bytes += (uint64_t)res;
	}
	struct slot_io *si = sio_of(w, s);
	if (si->pooled)
		w->pooled_busy--;
	if (si->spilled) {
		w->spilled_busy--;
		uring_spill_put(w->spill, (void *)s->data);
	}
	wq_finish(s, res > 0 ? 0 : res);
}

/*
 * Lock held: completions to wait for, up to and including the oldest write
 * in flight from a pooled buffer (the writes in flight, in submission
 * order, each make one); 1 when none is from one (a block, the header, no
 * fixed buffers, or nothing in flight: the stop NOP).
 */
static unsigned completions_to_wait(struct uring_writer *w)
{
	unsigned k = 0;
	for (uint64_t seq = w->q.commit_seq; seq < w->q.next_seq; seq++) {
		struct wq_slot *s = wq_slot_of_seq(&w->q, seq);
		if (!s || s->state != WQ_BUSY)
			continue;
		k++;
		if (sio_of(w, s)->pooled)
			return k;
	}
	return 1;
}

static void *completion_thread(void *arg)
{
	struct uring_writer *w = arg;
	for (;;) {
		struct io_uring_cqe *cqe;
		pthread_mutex_lock(&w->q.lock);
		unsigned want = completions_to_wait(w);
		pthread_mutex_unlock(&w->q.lock);
		int r = io_uring_wait_cqe_nr(&w->io->ring, &cqe, want);
		if (r == -EINTR || r == -EAGAIN)
			continue;
		if (r < 0)
			break; /* cannot happen on a live ring; the writer's users hang otherwise */
		pthread_mutex_lock(&w->q.lock);
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
		wq_release(&w->q);
		pthread_mutex_unlock(&w->q.lock);
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
	w->io = cfg->io;
	w->fd = cfg->fd;
	w->spill = cfg->spill;
	w->spill_at = cfg->spill_at ? cfg->spill_at : 1;
	w->sio = calloc(cfg->slots, sizeof(*w->sio));
	if (!w->sio) {
		free(w);
		return -ENOMEM;
	}
	struct wq_config qc = { .slots = cfg->slots, .offset = cfg->offset,
				.on_commit = cfg->on_commit, .commit_arg = cfg->commit_arg,
				.done_ctx = cfg->done_ctx, .submit = submit, .submit_ctx = w };
	int r = wq_init(&w->q, &qc);
	if (r == 0) {
		r = -pthread_create(&w->thread, NULL, completion_thread, w);
		if (r < 0)
			wq_fini(&w->q);
	}
	if (r < 0) {
		free(w->sio);
		free(w);
		return r;
	}
	*out = w;
	return 0;
}

/*
 * Lock held: a spill chunk for a write from a pooled buffer while writes
 * in flight hold spill_at of them, or NULL (no spill, not pooled, no
 * pressure, or the spill is full: the write holds its pooled buffer).
 */
static void *spill_chunk(struct uring_writer *w, size_t len, bool pooled)
{
	if (!w->spill || !pooled || w->pooled_busy < w->spill_at)
		return NULL;
	return uring_spill_get(w->spill, len);
}

/* The bytes go out from chunk c; the pooled buffer goes back (done) as soon as the write is queued. */
static int write_spilled(struct uring_writer *w, void *c, const void *data, size_t len,
			 perfsink_kit_aiow_done_fn done, void *arg)
{
	memcpy(c, data, len); /* without the lock: the completion thread goes on meanwhile */
	int r = wq_write(&w->q, c, len, NULL, NULL);
	pthread_mutex_lock(&w->q.lock);
	if (r < 0)
		w->spilled_busy--;
	else
		w->st_spilled++;
	pthread_mutex_unlock(&w->q.lock);
	if (r < 0) {
		uring_spill_put(w->spill, c);
		return r;
	}
	if (done)
		done(w->q.cfg.done_ctx, arg, 0);
	return 0;
}

/* The bytes go out from where they are; a pooled buffer counts in pooled_busy until its write completes. */
static int write_held(struct uring_writer *w, const void *data, size_t len, bool pooled,
		      perfsink_kit_aiow_done_fn done, void *arg)
{
	int r = wq_write(&w->q, data, len, done, arg);
	if (r < 0 && pooled) {
		pthread_mutex_lock(&w->q.lock);
		w->pooled_busy--;
		pthread_mutex_unlock(&w->q.lock);
	}
	return r;
}

int uring_writer_write(struct uring_writer *w, const void *data, size_t len,
		       perfsink_kit_aiow_done_fn done, void *arg)
{
	if (len == 0)
		return wq_write(&w->q, data, len, done, arg);
	bool pooled = uring_io_fixed_index(w->io, data, len) >= 0;
	/* wq_write waits for a free slot: not for one whose write is still queued here. */
	pthread_mutex_lock(&w->q.lock);
	int r = w->q.used == w->q.n ? flush(w) : 0;
	void *c = r < 0 ? NULL : spill_chunk(w, len, pooled);
	/* Counted before the write can complete: complete() counts it down. */
	if (c)
		w->spilled_busy++;
	else if (r == 0 && pooled)
		w->pooled_busy++;
	pthread_mutex_unlock(&w->q.lock);
	if (r < 0)
		return r;
	return c ? write_spilled(w, c, data, len, done, arg) : write_held(w, data, len, pooled, done, arg);
}

void uring_writer_plug(struct uring_writer *w)
{
	pthread_mutex_lock(&w->q.lock);
	w->plugged = true;
	pthread_mutex_unlock(&w->q.lock);
}

int uring_writer_unplug(struct uring_writer *w)
{
	pthread_mutex_lock(&w->q.lock);
	w->plugged = false;
	int r = flush(w);
	pthread_mutex_unlock(&w->q.lock);
	return r;
}

int uring_writer_drain(struct uring_writer *w)
{
	int r = uring_writer_unplug(w);
	int e = wq_drain(&w->q);
	return e < 0 ? e : r;
}
uint64_t uring_writer_offset(struct uring_writer *w) { return wq_offset(&w->q); }
uint64_t uring_writer_committed(struct uring_writer *w) { return wq_committed(&w->q); }

void uring_writer_stats(struct uring_writer *w, struct uring_writer_stats *out)
{
	struct perfsink_kit_aiow_stats st;
	pthread_mutex_lock(&w->q.lock);
	st = w->q.st;
	*out = (struct uring_writer_stats){ .writes = st.writes, .fixed = w->st_fixed,
					    .spilled = w->st_spilled, .bytes = st.bytes,
					    .retries = st.retries, .waits = st.waits };
	pthread_mutex_unlock(&w->q.lock);
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

void uring_writer_set_ref(struct uring_writer *w, struct uring_writer **ref)
{
	w->ref = ref;
	*ref = w;
}

void uring_writer_destroy(struct uring_writer *w)
{
	if (!w)
		return;
	uring_writer_drain(w);
	if (w->log_inst)
		w->log_inst->host->log(w->log_inst, PERFSINK_LOG_DEBUG,
				       "%llu writes, %llu from fixed buffers, %llu from spill memory, "
				       "%llu issued by io_uring's workers, %llu waited for a slot",
				       (unsigned long long)w->q.st.writes, (unsigned long long)w->st_fixed,
				       (unsigned long long)w->st_spilled, (unsigned long long)w->st_async,
				       (unsigned long long)w->q.st.waits);
	pthread_mutex_lock(&w->q.lock);
	int r = submit_stop(w);
	pthread_mutex_unlock(&w->q.lock);
	if (r < 0) /* the ring is idle and has room: only a dead ring refuses a NOP */
		pthread_cancel(w->thread);
	pthread_join(w->thread, NULL);
	if (w->ref && *w->ref == w)
		*w->ref = NULL;
	wq_fini(&w->q);
	free(w->sio);
	free(w);
}
