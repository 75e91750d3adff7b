/*
 * aio_writer: ordered asynchronous appends to one file with POSIX AIO.
 * Shared by the file-writing sinks (aio_file, zstd); linked into each.
 *
 * Each write gets one control block, an explicit file offset (the writer
 * keeps the append offset itself, as perf --aio does), a decreasing
 * aio_reqprio, a retry on EAGAIN and a resubmission of the rest after a
 * short write.  A completion thread reaps control blocks with aio_suspend
 * and calls the write's done() callback, so callers never have to poll.
 *
 * THREADS.  aiow_write/aiow_drain/aiow_destroy are called from one thread
 * (the sink's caller).  done() and on_commit() run on the completion
 * thread; they must not call back into the writer.
 *
 * ERRORS.  The first failed write (ENOSPC, EIO, ...) makes the writer
 * failed: its error is sticky and returned by every later aiow_write and
 * aiow_drain; writes still in flight complete with done(arg, err).
 */
#ifndef PS_AIO_WRITER_H
#define PS_AIO_WRITER_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct aiow;

/*
 * ctx: aiow_config.done_ctx; arg: the write's own argument; err: 0 when all
 * len bytes are on file, else a negative errno.
 */
typedef void (*aiow_done_fn)(void *ctx, void *arg, int err);
/* The contiguous completed prefix of the file grew to end (bytes). */
typedef void (*aiow_commit_fn)(void *arg, uint64_t end);

struct aiow_config {
	int fd;
	unsigned nr_cb;        /* control blocks: writes in flight at most (>= 1) */
	uint64_t offset;       /* where the first write goes */
	aiow_commit_fn on_commit; /* optional */
	void *commit_arg;
	void *done_ctx;        /* first argument of every done() */
};

struct aiow_stats {
	uint64_t writes;   /* aio_write calls, resubmissions included */
	uint64_t bytes;    /* bytes completed */
	uint64_t retries;  /* EAGAIN retries and short-write resubmissions */
	uint64_t waits;    /* times aiow_write waited for a free control block */
};

/* Returns 0 or a negative errno (thread creation, memory). */
int aiow_create(const struct aiow_config *cfg, struct aiow **out);
/*
 * Queue len bytes at the current append offset and advance it.  Waits for
 * a free control block when all are in flight.  On 0, done() will be
 * called exactly once; on error it is not called and nothing was queued.
 */
int aiow_write(struct aiow *w, const void *data, size_t len, aiow_done_fn done, void *arg);
/* Wait until nothing is in flight; returns the sticky error or 0. */
int aiow_drain(struct aiow *w);
/* Next append offset. */
uint64_t aiow_offset(const struct aiow *w);
/* End of the contiguous prefix written without error. */
uint64_t aiow_committed(const struct aiow *w);
int aiow_error(const struct aiow *w);
void aiow_stats(const struct aiow *w, struct aiow_stats *out);
/* Drains, stops the completion thread, frees.  Does not close fd. */
void aiow_destroy(struct aiow *w);

#endif
