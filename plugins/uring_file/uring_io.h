/*
 * One io_uring for a uring_file instance, kept for the whole run so the
 * pool's buffers are registered (fixed buffers) once, and the one thread
 * that uses it: the I/O thread.  It alone sets the ring up, submits,
 * reaps and registers; the sink's caller (the engine thread) never enters
 * the ring.  So the ring can be IORING_SETUP_SINGLE_ISSUER |
 * IORING_SETUP_DEFER_TASKRUN: io_uring's completion work runs when the
 * I/O thread asks for completions, never as task work that interrupts
 * the engine, and a write that must wait for an inode or extent lock
 * when issued inline waits on the I/O thread, not on the engine.
 *
 * The engine hands work over by memory (a client's queue, uring_writer.c)
 * and wakes the I/O thread with uring_io_kick: an eventfd the I/O thread
 * always has a read in flight on, so one wait covers both new work and
 * completions.  Anything else on the ring (registering buffers, attaching
 * a client) goes through uring_io_call, run on the I/O thread.
 *
 * THREADS.  uring_io_init/_call/_register/_attach/_detach/_exit from one
 * thread (the sink's caller); uring_io_kick from any.  A client's
 * callbacks run on the I/O thread, with none of io's locks held.
 * OWNERSHIP.  io owns its ring, eventfd and thread; a client (ctx) stays
 * valid while attached.
 */
#ifndef PS_URING_IO_H
#define PS_URING_IO_H
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <liburing.h>
#include <perfsink/sink.h>

/* One completion as the I/O thread hands it on: the SQE's user data and its result. */
struct uring_io_cqe {
	void *data;
	int res;
};

/* What a client (one file's writer) does on the I/O thread. */
struct uring_io_client {
	/* Queue SQEs (uring_io_sqe) for what waits; the I/O thread enters them. */
	void (*submit)(void *ctx);
	/* A batch of completions of the client's SQEs. */
	void (*complete)(void *ctx, const struct uring_io_cqe *c, unsigned n);
	/* The ring failed for good (err): fail whatever is queued or in flight. */
	void (*dead)(void *ctx, int err);
};

struct uring_io {
	struct io_uring ring;      /* the I/O thread's */
	unsigned depth;            /* submission queue entries */
	struct perfsink_region *regions; /* registered, sorted by base; NULL: none */
	unsigned nr_regions;       /* changed only by a call, while the caller waits */
	int ready;                 /* ring and thread set up */
	int single_issuer;         /* SINGLE_ISSUER|DEFER_TASKRUN in effect (else a kernel before 6.1) */

	pthread_t thread;
	pthread_mutex_t lock;      /* guards what follows */
	pthread_cond_t cv;         /* a call returned; the dead thread's wake-up */
	int efd;                   /* the kick */
	uint64_t efd_val;          /* the I/O thread's read of it */
	bool kicked;               /* efd written since the I/O thread last looked */
	int (*call_fn)(struct uring_io *io, void *arg);
	void *call_arg;
	int call_ret;
	bool calling;
	const struct uring_io_client *client;
	void *client_ctx;
	int dead;                  /* the ring's fatal error, or 0 */
	bool stop;
};

/*
 * Can this process set up an io_uring at all?  0, or a negative errno with
 * a one-line reason in why (kernel.io_uring_disabled, a seccomp filter, a
 * kernel without io_uring).
 */
int uring_io_probe(char *why, size_t n);
/*
 * The ring (depth entries: every write that can be in flight, and one)
 * and its I/O thread.  0 or -errno, why filled.
 */
int uring_io_init(struct uring_io *io, unsigned depth, char *why, size_t n);
/* Run fn(io, arg) on the I/O thread; its result. */
int uring_io_call(struct uring_io *io, int (*fn)(struct uring_io *io, void *arg), void *arg);
/* Wake the I/O thread: a client has work queued (cheap when already woken). */
void uring_io_kick(struct uring_io *io);
/* The client whose work the I/O thread does from now on / no longer (one at a time). */
void uring_io_attach(struct uring_io *io, const struct uring_io_client *c, void *ctx);
void uring_io_detach(struct uring_io *io);
/* On the I/O thread: a free SQE, entering the queued ones first if full; NULL if none. */
struct io_uring_sqe *uring_io_sqe(struct uring_io *io);
/*
 * Register the memory of regions as fixed buffers, replacing any earlier
 * registration (the ring must be idle).  0 or -errno (io left with none).
 */
int uring_io_register(struct uring_io *io, const struct perfsink_region *regions, unsigned n);
/* Whether regions are what is registered already. */
int uring_io_registered(const struct uring_io *io, const struct perfsink_region *regions,
			unsigned n);
/* Index of the registered buffer that holds [p, p + len), or -1. */
int uring_io_fixed_index(const struct uring_io *io, const void *p, size_t len);
/* Between uring_io.c and uring_io_thread.c: why's line for err; the I/O thread's unregister. */
void uring_io_say_unavailable(int err, char *why, size_t n);
void uring_io_unregister(struct uring_io *io);
/* Stops the I/O thread (no client attached any more), frees the ring. */
void uring_io_exit(struct uring_io *io);

#endif
