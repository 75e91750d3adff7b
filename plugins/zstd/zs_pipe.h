/*
 * zs_pipe: batching off the engine thread, output in stream order.
 *
 *   engine thread --push--> FIFO of batches --> the gatherer thread takes
 *                            the oldest batch and copies its buffers (made
 *                            COMPRESSED by the engine's stage, sink ABI
 *                            1.9) as they arrive, releasing each one at
 *                            once; the batch is closed at min_batch bytes,
 *                            500 ms after the gatherer took it, or barrier
 *                                  |
 *                                  +--> the writer (the kit's async worker,
 *                                       one job per batch, queued when the
 *                                       batch opens) appends each DONE batch,
 *                                       in order, to the zs_file; the aio
 *                                       thread frees them.
 *
 * Buffers are released as soon as they were copied, never held while a
 * batch gathers, so the engine never waits on a later call into the sink
 * even with one pooled buffer per ring.  push() waits (backpressure)
 * while the raw bytes not yet on file exceed max_pending.
 *
 * Errors are sticky (the writer's): the first failure (memory,
 * ENOSPC, EIO...) is logged once through host->log; later batches are
 * dropped and counted.
 *
 * THREADS.  zs_pipe_* are called from the engine thread only.
 * Locking: one mutex p->mu guards the FIFO and counters; it nests inside
 * nothing of ours, the writer's lock (a leaf) nests inside it, and
 * zs_file/aio_writer calls are made without it.
 */
#ifndef ZS_PIPE_H
#define ZS_PIPE_H
#include <stdint.h>
#include <perfsink/sink.h>
#include "zs_batch.h"
#include "zs_file.h"

struct zs_pipe;

struct zs_pipe_config {
	uint64_t min_batch;     /* input bytes that close a batch */
	uint64_t max_pending;   /* input bytes in flight before push waits */
	const struct perfsink_instance *inst;
};

struct zs_pipe_stats {
	uint64_t comp_in, comp_out; /* ring bytes compressed, COMPRESSED bytes made */
	uint64_t bytes_out;         /* bytes appended to files, completed */
	/* Never handed to a file; a file counts what it took and lost. */
	uint64_t dropped_bytes, dropped_records;
};

int zs_pipe_create(const struct zs_pipe_config *cfg, struct zs_pipe **out);
/* Direct later batches to f.  Idle only. */
void zs_pipe_set_file(struct zs_pipe *p, struct zs_file *f);
/*
 * Take a reference on buf (host->buf_get) and queue it.  Returns 0, or the
 * sticky error / -ENOMEM without taking the reference.
 */
int zs_pipe_push(struct zs_pipe *p, struct perfsink_buf *buf);
/* Close the gathering batch, wait until all is on file or dropped. */
int zs_pipe_wait_idle(struct zs_pipe *p);
int zs_pipe_error(struct zs_pipe *p);
void zs_pipe_stats(struct zs_pipe *p, struct zs_pipe_stats *out);
/* Waits idle, stops the threads, frees. */
void zs_pipe_destroy(struct zs_pipe *p);

#endif
