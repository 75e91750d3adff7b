/*
 * The I/O thread of a uring_file ring (uring_io.h): it sets the ring up,
 * then loops: run a call, let the client queue its SQEs, enter them and
 * wait for one completion (io_uring_submit_and_wait), hand the
 * completions to the client.  The kick is a read on an eventfd kept in
 * flight, so the engine's new work ends that wait like a completion.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "uring_io.h"

/* Kernel ABI values, for liburing 2.2's headers (the kernel says -EINVAL before 6.1). */
#ifndef IORING_SETUP_SINGLE_ISSUER
#define IORING_SETUP_SINGLE_ISSUER (1U << 12)
#endif
#ifndef IORING_SETUP_DEFER_TASKRUN
#define IORING_SETUP_DEFER_TASKRUN (1U << 13)
#endif

#define REAP_BATCH 64

struct io_uring_sqe *uring_io_sqe(struct uring_io *io)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&io->ring);
	if (!sqe && io_uring_submit(&io->ring) >= 0)
		sqe = io_uring_get_sqe(&io->ring);
	return sqe;
}

/* The read that a kick completes; its user data is &io->efd_val. */
static int arm_kick(struct uring_io *io)
{
	struct io_uring_sqe *sqe = uring_io_sqe(io);
	if (!sqe)
		return -EBUSY;
	io_uring_prep_read(sqe, io->efd, &io->efd_val, sizeof(io->efd_val), 0);
	io_uring_sqe_set_data(sqe, &io->efd_val);
	return 0;
}

/*
 * An O_DIRECT append cannot be issued without blocking (ext4 and xfs take
 * the inode lock exclusively to move i_size), so io_uring hands such a
 * write to an io-wq worker of the submitting thread; left alone it starts
 * one per write in flight, and they queue on the inode lock.  One worker
 * writes them in order with no lock handoff; the limit belongs to the
 * submitting thread, which is this ring's alone.  A kernel without the
 * call (before 5.15) keeps its default.
 */
static void limit_workers(struct uring_io *io)
{
	unsigned v[2] = { 1, 0 };
	(void)io_uring_register_iowq_max_workers(&io->ring, v);
}

/*
 * The ring, a single issuer's where the kernel has it (6.1): completions
 * then run only when this thread waits for them.  Else a plain ring: the
 * same thread still does all the work, the kernel only runs completion
 * work as task work of it (uring_io.single_issuer tells the sink to say so).
 */
static int setup(struct uring_io *io)
{
	struct io_uring_params p;
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
	int r = io_uring_queue_init_params(io->depth, &io->ring, &p);
	io->single_issuer = r == 0;
	if (r == -EINVAL)
		r = io_uring_queue_init(io->depth, &io->ring, 0);
	if (r < 0)
		return r;
	limit_workers(io);
	r = arm_kick(io);
	if (r < 0)
		io_uring_queue_exit(&io->ring);
	return r;
}

/* Hand the completions on in batches; re-arm the kick if it fired. */
static void reap(struct uring_io *io, const struct uring_io_client *c, void *ctx)
{
	struct uring_io_cqe batch[REAP_BATCH];
	struct io_uring_cqe *cqe;
	unsigned k = 0, seen = 0, head;
	bool rearm = false;
	io_uring_for_each_cqe(&io->ring, head, cqe) {
		seen++;
		void *d = io_uring_cqe_get_data(cqe);
		if (d == &io->efd_val) {
			rearm = true;
			continue;
		}
		if (k == REAP_BATCH) {
			if (c)
				c->complete(ctx, batch, k);
			k = 0;
		}
		batch[k++] = (struct uring_io_cqe){ d, cqe->res };
	}
	io_uring_cq_advance(&io->ring, seen);
	if (k && c)
		c->complete(ctx, batch, k);
	if (rearm && arm_kick(io) < 0)
		io->kicked = false; /* unreachable: the kick's own SQE is free again */
}

/* Lock held by the caller of the kick. */
static void kick_locked(struct uring_io *io)
{
	if (!io->kicked) {
		uint64_t one = 1;
		io->kicked = true;
		/* Never blocks: an eventfd's counter is far from its maximum. */
		(void)!write(io->efd, &one, sizeof(one));
	}
	pthread_cond_broadcast(&io->cv); /* a dead ring's thread waits on it instead */
}

void uring_io_kick(struct uring_io *io)
{
	pthread_mutex_lock(&io->lock);
	kick_locked(io);
	pthread_mutex_unlock(&io->lock);
}

static bool fatal(int r)
{
	return r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY && r != -ETIME;
}

/* One round; false when stopped. */
static bool round_trip(struct uring_io *io)
{
	pthread_mutex_lock(&io->lock);
	while (io->dead && !io->calling && !io->stop && !io->kicked)
		pthread_cond_wait(&io->cv, &io->lock);
	io->kicked = false;
	int (*fn)(struct uring_io *, void *) = io->calling ? io->call_fn : NULL;
	void *arg = io->call_arg;
	bool stop = io->stop;
	const struct uring_io_client *c = io->client;
	void *ctx = io->client_ctx;
	int dead = io->dead;
	pthread_mutex_unlock(&io->lock);
	if (fn) {
		int r = fn(io, arg);
		pthread_mutex_lock(&io->lock);
		io->call_ret = r;
		io->calling = false;
		pthread_cond_broadcast(&io->cv);
		pthread_mutex_unlock(&io->lock);
		return true;
	}
	if (stop)
		return false;
	if (dead) {
		if (c)
			c->dead(ctx, dead);
		return true;
	}
	if (c)
		c->submit(ctx);
	int r = io_uring_submit_and_wait(&io->ring, 1);
	if (fatal(r)) {
		pthread_mutex_lock(&io->lock);
		io->dead = r;
		pthread_mutex_unlock(&io->lock);
		if (c)
			c->dead(ctx, r);
		return true;
	}
	reap(io, c, ctx);
	return true;
}

static void *io_thread(void *arg)
{
	struct uring_io *io = arg;
	int r = setup(io);
	pthread_mutex_lock(&io->lock);
	io->call_ret = r;
	io->calling = false;
	pthread_cond_broadcast(&io->cv);
	pthread_mutex_unlock(&io->lock);
	if (r < 0)
		return NULL;
	while (round_trip(io))
		;
	uring_io_unregister(io);
	io_uring_queue_exit(&io->ring);
	return NULL;
}

/* Lock held: wait for the call in progress (the setup, or fn) to return. */
static int wait_call(struct uring_io *io)
{
	while (io->calling)
		pthread_cond_wait(&io->cv, &io->lock);
	return io->call_ret;
}

int uring_io_init(struct uring_io *io, unsigned depth, char *why, size_t n)
{
	memset(io, 0, sizeof(*io));
	io->depth = depth;
	io->efd = eventfd(0, EFD_CLOEXEC);
	if (io->efd < 0) {
		int r = -errno;
		uring_io_say_unavailable(r, why, n);
		return r;
	}
	pthread_mutex_init(&io->lock, NULL);
	pthread_cond_init(&io->cv, NULL);
	io->calling = true; /* the setup, which the thread runs first */
	int r = -pthread_create(&io->thread, NULL, io_thread, io);
	if (r == 0) {
		pthread_mutex_lock(&io->lock);
		r = wait_call(io);
		pthread_mutex_unlock(&io->lock);
		if (r < 0)
			pthread_join(io->thread, NULL);
	}
	if (r < 0) {
		uring_io_say_unavailable(r, why, n);
		pthread_mutex_destroy(&io->lock);
		pthread_cond_destroy(&io->cv);
		close(io->efd);
		return r;
	}
	io->ready = 1;
	return 0;
}

int uring_io_call(struct uring_io *io, int (*fn)(struct uring_io *io, void *arg), void *arg)
{
	pthread_mutex_lock(&io->lock);
	wait_call(io);
	io->call_fn = fn;
	io->call_arg = arg;
	io->calling = true;
	kick_locked(io);
	int r = wait_call(io);
	pthread_mutex_unlock(&io->lock);
	return r;
}

struct attach_args {
	const struct uring_io_client *c;
	void *ctx;
};

/* On the I/O thread: so a detach returns only once no callback of the old client runs. */
static int do_attach(struct uring_io *io, void *arg)
{
	const struct attach_args *a = arg;
	pthread_mutex_lock(&io->lock);
	io->client = a->c;
	io->client_ctx = a->ctx;
	pthread_mutex_unlock(&io->lock);
	return 0;
}

void uring_io_attach(struct uring_io *io, const struct uring_io_client *c, void *ctx)
{
	struct attach_args a = { c, ctx };
	uring_io_call(io, do_attach, &a);
}

void uring_io_detach(struct uring_io *io)
{
	struct attach_args a = { NULL, NULL };
	uring_io_call(io, do_attach, &a);
}

void uring_io_exit(struct uring_io *io)
{
	if (!io->ready)
		return;
	pthread_mutex_lock(&io->lock);
	io->stop = true;
	kick_locked(io);
	pthread_mutex_unlock(&io->lock);
	pthread_join(io->thread, NULL);
	pthread_mutex_destroy(&io->lock);
	pthread_cond_destroy(&io->cv);
	close(io->efd);
	io->ready = 0;
}
