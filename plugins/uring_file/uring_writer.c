/*
 * Ordered appends through io_uring (uring_writer.h): a backend of the
 * kit's write queue (kit.h, perfsink_kit_wq), which orders, waits, fails
 * and counts as for aio_file.  The caller's thread only queues: the
 * queue's submit puts the slot on this writer's list and kicks the ring's
 * I/O thread (uring_io.h), which makes the SQEs, enters them, reaps the
 * completions and releases the slots.  No system call of the caller's
 * can wait for the disk, an inode or an extent lock; the caller's one
 * system call per sink write is the kick (an eventfd write), none while
 * the I/O thread has not yet looked at the last one.
 *
 * Locking: the queue's lock (perfsink_kit_wq_lock) also guards the list,
 * sio, the counts and the rate meter; callbacks run with it released.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "uring_writer.h"

/* What the writer keeps per slot (by perfsink_kit_wq_slot.index): also each SQE's user data. */
struct slot_io {
	struct uring_writer *w;
	struct perfsink_kit_wq_slot *s;
	bool pooled;          /* its bytes lie in a pooled buffer it still holds */
	void *chunk;          /* the spill chunk its bytes were copied to and go out from, or NULL */
	bool in_kernel;       /* its SQE was made; a completion will come */
	bool live;            /* between submit and finish */
};

/* The disk's rate, for the spill's size (uring_spill_fit_rate): bytes over time with writes in flight. */
struct rate_meter {
	uint64_t bytes;
	uint64_t busy_ns;
	uint64_t last_ns;     /* of the last look while something was in flight; 0: idle */
};

#define RATE_WINDOW_NS 100000000ull /* 100 ms with writes in flight */

struct uring_writer {
	struct perfsink_kit_wq *q;
	struct uring_io *io;
	int fd;
	unsigned n;           /* slots */
	struct slot_io *sio;
	struct perfsink_kit_wq_slot **list; /* slots waiting for an SQE, oldest first (ring of n) */
	struct perfsink_kit_wq_slot **spilling; /* I/O thread's scratch: slots it copies (n) */
	unsigned head, len;
	unsigned busy;        /* slots between submit and finish */
	bool plugged;         /* kicks wait for unplug (uring_writer_plug) */
	bool unkicked;        /* plugged: a slot was queued and the I/O thread not told */
	struct uring_spill *spill; /* NULL: writes never spill */
	unsigned spill_at;    /* pooled buffers held by writes in flight from which writes spill */
	unsigned pooled_busy; /* writes in flight from pooled buffers */
	unsigned spilled_busy; /* writes in flight from spill chunks */
	unsigned in_kernel;   /* SQEs made and not completed */
	struct rate_meter rate;
	uint64_t st_fixed;    /* submissions that were write_fixed */
	uint64_t st_spilled;  /* writes made from a spill chunk */
	void *done_ctx;
	const struct perfsink_instance *log_inst; /* destroy's -v line; NULL: none */
	struct uring_writer **ref; /* cleared by destroy; NULL: none */
};

static const struct uring_io_client writer_client;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Lock held: slot s waits for an SQE. */
static void list_push(struct uring_writer *w, struct perfsink_kit_wq_slot *s)
{
	w->list[(w->head + w->len) % w->n] = s;
	w->len++;
}

static struct perfsink_kit_wq_slot *list_pop(struct uring_writer *w)
{
	if (!w->len)
		return NULL;
	struct perfsink_kit_wq_slot *s = w->list[w->head];
	w->head = (w->head + 1) % w->n;
	w->len--;
	return s;
}

/* The queue's submit, on the caller's thread, lock held: the I/O thread makes the SQE. */
static int submit(void *ctx, struct perfsink_kit_wq_slot *s)
{
	struct uring_writer *w = ctx;
	const void *p = s->data + s->done;
	w->sio[s->index] = (struct slot_io){ .w = w, .s = s,
		.pooled = uring_io_fixed_index(w->io, p, s->len - s->done) >= 0, .live = true };
	w->busy++;
	list_push(w, s);
	if (w->plugged)
		w->unkicked = true;
	else
		uring_io_kick(w->io);
	return 0;
}

/* I/O thread, lock held: the SQE of slot s (its rest); false when the ring has none free. */
static bool make_sqe(struct uring_writer *w, struct perfsink_kit_wq_slot *s)
{
	struct io_uring_sqe *sqe = uring_io_sqe(w->io);
	if (!sqe)
		return false;
	struct slot_io *si = &w->sio[s->index];
	const uint8_t *p = (si->chunk ? si->chunk : s->data) + s->done;
	size_t len = s->len - s->done;
	int idx = uring_io_fixed_index(w->io, p, len);
	if (idx >= 0) {
		io_uring_prep_write_fixed(sqe, w->fd, p, (unsigned)len, s->off + s->done, idx);
		w->st_fixed++;
	} else {
		io_uring_prep_write(sqe, w->fd, p, (unsigned)len, s->off + s->done);
	}
	io_uring_sqe_set_data(sqe, si);
	si->in_kernel = true;
	if (!w->in_kernel++ && !w->rate.last_ns)
		w->rate.last_ns = now_ns();
	perfsink_kit_wq_counters(w->q)->writes++;
	return true;
}

/*
 * I/O thread, lock held: whether slot s's bytes go to a spill chunk (then
 * taken for it): a first submission from a pooled buffer while other
 * writes in flight hold spill_at of them (s itself counts in pooled_busy),
 * with spill memory free.
 */
static bool spill_take(struct uring_writer *w, struct perfsink_kit_wq_slot *s)
{
	struct slot_io *si = &w->sio[s->index];
	if (!w->spill || !si->pooled || s->done || w->pooled_busy <= w->spill_at)
		return false;
	si->chunk = uring_spill_get(w->spill, s->len);
	if (!si->chunk)
		return false;
	si->pooled = false;
	w->pooled_busy--;
	w->spilled_busy++;
	return true;
}

/*
 * I/O thread, lock not held: copy slot s to its chunk, give the pooled
 * buffer back (its done(), taken from the queue) and write from the chunk.
 * The copy is this thread's, never the drain loop's: when the disk falls
 * behind, the engine's pass costs what it costs when the disk keeps up.
 */
static void spill_one(struct uring_writer *w, struct perfsink_kit_wq_slot *s)
{
	struct slot_io *si = &w->sio[s->index];
	memcpy(si->chunk, s->data, s->len); /* the slot's bytes are fixed until it finishes */
	perfsink_kit_aiow_done_fn fn;
	void *arg;
	perfsink_kit_wq_lock(w->q);
	perfsink_kit_wq_detach(w->q, s, &fn, &arg);
	w->st_spilled++;
	if (!make_sqe(w, s))
		list_push(w, s); /* cannot happen (the ring is deeper than the slots); next round */
	perfsink_kit_wq_unlock(w->q);
	if (fn)
		fn(w->done_ctx, arg, 0);
}

/* The client's submit (I/O thread): an SQE for every slot on the list. */
static void client_submit(void *ctx)
{
	struct uring_writer *w = ctx;
	unsigned k = 0;
	perfsink_kit_wq_lock(w->q);
	struct perfsink_kit_wq_slot *s;
	while ((s = list_pop(w))) {
		if (spill_take(w, s)) {
			w->spilling[k++] = s;
		} else if (!make_sqe(w, s)) {
			/* Cannot happen (the ring is deeper than the slots); next round. */
			w->head = (w->head + w->n - 1) % w->n;
			w->len++;
			break;
		}
	}
	perfsink_kit_wq_unlock(w->q);
	for (unsigned i = 0; i < k; i++)
		spill_one(w, w->spilling[i]);
}

/* Lock held: slot s is done with res (bytes or -errno), its buffer accounting undone. */
static void finish(struct uring_writer *w, struct perfsink_kit_wq_slot *s, int res)
{
	struct slot_io *si = &w->sio[s->index];
	if (si->pooled)
		w->pooled_busy--;
	if (si->chunk) {
		w->spilled_busy--;
		uring_spill_put(w->spill, si->chunk);
		si->chunk = NULL;
	}
	si->live = false;
	w->busy--;
	perfsink_kit_wq_finish(w->q, s, res);
}

/* Lock held: one completion of slot si's SQE. */
static void complete_one(struct uring_writer *w, struct slot_io *si, int res)
{
	struct perfsink_kit_wq_slot *s = si->s;
	struct perfsink_kit_aiow_stats *st = perfsink_kit_wq_counters(w->q);
	si->in_kernel = false;
	w->in_kernel--;
	if (res > 0) {
		s->done += (size_t)res;
		st->bytes += (uint64_t)res;
		w->rate.bytes += (uint64_t)res;
	}
	if (res == -EAGAIN || res == -EINTR || (res > 0 && s->done < s->len)) {
		st->retries++;
		list_push(w, s); /* the rest, at the next round of the I/O thread */
		return;
	}
	if (res == 0)
		res = -EIO; /* no progress on a regular file: never loop on it */
	finish(w, s, res > 0 ? 0 : res);
}

/*
 * Lock held, after a batch: the time since the last look counts as busy
 * if writes were in flight; every 100 ms busy, the spill is fitted to the
 * rate seen.
 */
static void meter(struct uring_writer *w)
{
	struct rate_meter *m = &w->rate;
	uint64_t t = now_ns();
	if (m->last_ns)
		m->busy_ns += t - m->last_ns;
	m->last_ns = w->in_kernel ? t : 0;
	if (m->busy_ns < RATE_WINDOW_NS)
		return;
	if (w->spill)
		uring_spill_fit_rate(w->spill, m->bytes * 1000000000ull / m->busy_ns);
	m->bytes = m->busy_ns = 0;
}

static void client_complete(void *ctx, const struct uring_io_cqe *c, unsigned n)
{
	struct uring_writer *w = ctx;
	perfsink_kit_wq_lock(w->q);
	for (unsigned i = 0; i < n; i++)
		complete_one(w, c[i].data, c[i].res);
	meter(w);
	perfsink_kit_wq_release(w->q);
	perfsink_kit_wq_unlock(w->q);
}

/* The ring is dead: every slot not finished fails with err (nothing of it will complete). */
static void client_dead(void *ctx, int err)
{
	struct uring_writer *w = ctx;
	perfsink_kit_wq_lock(w->q);
	w->len = 0;
	for (unsigned i = 0; i < w->n; i++) {
		struct slot_io *si = &w->sio[i];
		si->in_kernel = false;
		if (si->live)
			finish(w, si->s, err);
	}
	w->in_kernel = 0;
	perfsink_kit_wq_release(w->q);
	perfsink_kit_wq_unlock(w->q);
}

static const struct uring_io_client writer_client = {
	.submit = client_submit,
	.complete = client_complete,
	.dead = client_dead,
};

int uring_writer_create(const struct uring_writer_config *cfg, struct uring_writer **out)
{
	if (cfg->slots < 1 || cfg->slots >= cfg->io->depth || cfg->fd < 0)
		return -EINVAL;
	struct uring_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->io = cfg->io;
	w->fd = cfg->fd;
	w->n = cfg->slots;
	w->spill = cfg->spill;
	w->spill_at = cfg->spill_at ? cfg->spill_at : 1;
	w->done_ctx = cfg->done_ctx;
	w->sio = calloc(w->n, sizeof(*w->sio));
	w->list = calloc(w->n, sizeof(*w->list));
	w->spilling = calloc(w->n, sizeof(*w->spilling));
	struct perfsink_kit_wq_config qc = { .slots = cfg->slots, .offset = cfg->offset,
					     .on_commit = cfg->on_commit, .commit_arg = cfg->commit_arg,
					     .done_ctx = cfg->done_ctx, .submit = submit, .submit_ctx = w };
	int r = !w->sio || !w->list || !w->spilling ? -ENOMEM : perfsink_kit_wq_create(&qc, &w->q);
	if (r < 0) {
		free(w->sio);
		free(w->list);
		free(w->spilling);
		free(w);
		return r;
	}
	uring_io_attach(w->io, &writer_client, w);
	*out = w;
	return 0;
}

/* The bytes go out from where they are; a pooled buffer counts in pooled_busy until its write completes. */
static int write_held(struct uring_writer *w, const void *data, size_t len, bool pooled,
		      perfsink_kit_aiow_done_fn done, void *arg)
{
	int r = perfsink_kit_wq_write(w->q, data, len, done, arg);
	if (r < 0 && pooled) {
		perfsink_kit_wq_lock(w->q);
		w->pooled_busy--;
		perfsink_kit_wq_unlock(w->q);
	}
	return r;
}

/* Lock held: tell the I/O thread what plugging held back. */
static void kick_held(struct uring_writer *w)
{
	if (w->unkicked) {
		w->unkicked = false;
		uring_io_kick(w->io);
	}
}

int uring_writer_write(struct uring_writer *w, const void *data, size_t len,
		       perfsink_kit_aiow_done_fn done, void *arg)
{
	if (len == 0)
		return perfsink_kit_wq_write(w->q, data, len, done, arg);
	bool pooled = uring_io_fixed_index(w->io, data, len) >= 0;
	perfsink_kit_wq_lock(w->q);
	/* The queue waits for a free slot: not for one whose write was never handed on. */
	if (w->busy == w->n)
		kick_held(w);
	/* Counted before the write can complete: finish() counts it down. */
	if (pooled)
		w->pooled_busy++;
	perfsink_kit_wq_unlock(w->q);
	return write_held(w, data, len, pooled, done, arg);
}

void uring_writer_plug(struct uring_writer *w)
{
	perfsink_kit_wq_lock(w->q);
	w->plugged = true;
	perfsink_kit_wq_unlock(w->q);
}

int uring_writer_unplug(struct uring_writer *w)
{
	perfsink_kit_wq_lock(w->q);
	w->plugged = false;
	kick_held(w);
	perfsink_kit_wq_unlock(w->q);
	pthread_mutex_lock(&w->io->lock);
	int r = w->io->dead;
	pthread_mutex_unlock(&w->io->lock);
	return r;
}

int uring_writer_drain(struct uring_writer *w)
{
	int r = uring_writer_unplug(w);
	int e = perfsink_kit_wq_drain(w->q);
	return e < 0 ? e : r;
}

uint64_t uring_writer_offset(struct uring_writer *w) { return perfsink_kit_wq_offset(w->q); }
uint64_t uring_writer_committed(struct uring_writer *w) { return perfsink_kit_wq_committed(w->q); }

void uring_writer_stats(struct uring_writer *w, struct uring_writer_stats *out)
{
	perfsink_kit_wq_lock(w->q);
	const struct perfsink_kit_aiow_stats *st = perfsink_kit_wq_counters(w->q);
	*out = (struct uring_writer_stats){ .writes = st->writes, .fixed = w->st_fixed,
					    .spilled = w->st_spilled, .bytes = st->bytes,
					    .retries = st->retries, .waits = st->waits };
	perfsink_kit_wq_unlock(w->q);
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
	uring_io_detach(w->io);
	if (w->log_inst) {
		struct uring_writer_stats st;
		uring_writer_stats(w, &st);
		w->log_inst->host->log(w->log_inst, PERFSINK_LOG_DEBUG,
				       "%llu writes, %llu from fixed buffers, %llu from spill memory, "
				       "%llu waited for a slot",
				       (unsigned long long)st.writes, (unsigned long long)st.fixed,
				       (unsigned long long)st.spilled, (unsigned long long)st.waits);
	}
	if (w->ref && *w->ref == w)
		*w->ref = NULL;
	perfsink_kit_wq_destroy(w->q);
	free(w->sio);
	free(w->list);
	free(w->spilling);
	free(w);
}
