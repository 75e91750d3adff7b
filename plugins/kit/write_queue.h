/*
 * The ordering core of the kit's asynchronous append writers, without
 * their I/O: the POSIX AIO writer (aio_writer.c, perfsink_kit_aiow) and
 * uring_file's io_uring writer share it, so both order, wait, fail and
 * count the same way.  The kit's own view of it; sinks use it through
 * kit.h's perfsink_kit_wq_* (wq_public.c, kit 1.7), which wraps these.
 *
 * What it keeps: n slots, one per write in flight, each with a sequence
 * number; the append offset; waiting for a free slot (counted in waits);
 * releasing finished writes to their done() strictly in submission order;
 * the committed prefix (on_commit); the first error, sticky; the counters
 * of struct perfsink_kit_aiow_stats.  What a backend brings: submit (queue
 * a slot's remaining bytes) and a completion thread that reaps, marks
 * slots finished (wq_finish) and hands them on (wq_release).
 *
 * LOCKING.  q->lock guards every field of the queue and of its slots, and
 * the backend's submission state: submit is called with it held.  It
 * nests inside nothing; done() and on_commit() run with it released.
 * THREADS.  wq_write/_drain from one thread (the writer's caller); the
 * completion thread calls wq_finish and wq_release with q->lock held.
 * done() and on_commit() run on the completion thread and must not call
 * back into the writer.
 * OWNERSHIP.  A write's bytes stay valid until its done() ran.
 * ERRORS.  The first failed write (submit or completion) makes the queue
 * failed: every later wq_write and wq_drain returns that error; writes in
 * flight still complete, with done(arg, err).
 */
#ifndef PS_KIT_WRITE_QUEUE_H
#define PS_KIT_WRITE_QUEUE_H
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <perfsink/kit.h>

enum wq_state { WQ_FREE = 0, WQ_BUSY, WQ_DONE };

/* io: what the backend sees of the write (kit.h, perfsink_kit_wq_slot). */
struct wq_slot {
	struct perfsink_kit_wq_slot io;
	enum wq_state state;
	int err;             /* set by wq_finish */
	perfsink_kit_aiow_done_fn fn;
	void *arg;
};

struct wq_released {
	perfsink_kit_aiow_done_fn fn;
	void *arg;
	int err;
};

/* submit returns this when nothing was queued and it should be tried again after a pause. */
#define WQ_AGAIN PERFSINK_KIT_WQ_AGAIN


/* Its config is kit.h's struct perfsink_kit_wq_config. */

struct write_queue {
	unsigned n;
	struct wq_slot *slots;
	struct wq_slot **by_seq;   /* slot of seq at [seq % n] while it is not free */
	struct wq_released *rel;   /* completion thread's scratch, n entries */
	struct perfsink_kit_wq_config cfg;

	pthread_mutex_t lock;
	pthread_cond_t cv_free;    /* a slot was released, or its callbacks returned */
	pthread_cond_t cv_work;    /* a write was queued (for a backend that waits on it) */
	uint64_t offset;           /* next append offset */
	uint64_t committed;        /* end of the completed, error-free prefix */
	uint64_t next_seq;         /* seq of the next write */
	uint64_t commit_seq;       /* seq of the oldest write not yet released */
	unsigned used;             /* slots not WQ_FREE */
	unsigned in_callbacks;     /* released, their done() not yet returned */
	int err;                   /* the first error, sticky */
	struct perfsink_kit_aiow_stats st; /* writes, bytes, retries: the backend's to count */
};

/* 0, or -EINVAL / -ENOMEM with nothing to wq_fini. */
int wq_init(struct write_queue *q, const struct perfsink_kit_wq_config *cfg);
/* After the last write was drained and the completion thread is gone. */
void wq_fini(struct write_queue *q);

/*
 * Queue len bytes at the append offset and advance it; waits for a free
 * slot.  On 0, done() runs exactly once (at once for len 0); on error it
 * does not and nothing was queued.
 */
int wq_write(struct write_queue *q, const void *data, size_t len,
	     perfsink_kit_aiow_done_fn done, void *arg);
/* Wait until nothing is in flight and no callback runs; the sticky error or 0. */
int wq_drain(struct write_queue *q);
uint64_t wq_offset(struct write_queue *q);
uint64_t wq_committed(struct write_queue *q);
int wq_error(struct write_queue *q);
void wq_stats(struct write_queue *q, struct perfsink_kit_aiow_stats *out);

/* q->lock held: the slot holding seq while it is not free, else NULL. */
struct wq_slot *wq_slot_of_seq(struct write_queue *q, uint64_t seq);

/* q->lock held: slot s is finished, all its bytes on file (err 0) or failed (-errno). */
void wq_finish(struct wq_slot *s, int err);
/*
 * q->lock held: release the finished slots in submission order, run their
 * done() and on_commit with the lock dropped, return with it held.
 */
void wq_release(struct write_queue *q);

#endif
