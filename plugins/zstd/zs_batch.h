/*
 * zs_batch: a run of consecutive buffers gathered by the pipe's thread into
 * one piece of output (whole records), fed as the buffers arrive.  They
 * come as the stream has them: COMPRESSED by the engine's stage (sink ABI
 * 1.9), SYNTH raw; both are copied as they are.
 *
 * Each buffer is copied, so it can be released as soon as it was fed: a
 * batch that is still gathering (min_batch) holds no reference.
 *
 * THREADS.  A batch belongs to one thread at a time (zs_pipe's lock hands
 * it over).  put() may be called from any thread.
 */
#ifndef ZS_BATCH_H
#define ZS_BATCH_H
#include <perfsink/sink.h>
#include <perfsink/kit.h>

typedef void (*zs_put_fn)(void *arg, struct perfsink_buf *buf);

enum zs_batch_state { ZB_OPEN = 0, ZB_BUSY, ZB_DONE };

struct zs_batch {
	struct perfsink_kit_job write; /* its write, on zs_pipe's writer (the kit's worker) */
	struct zs_batch *next;
	/* Input, filled by the engine thread, taken by the gatherer. */
	struct perfsink_buf **bufs;
	unsigned nr, cap, taken;
	int closed;          /* no more buffers will be added */
	uint64_t in_bytes;   /* sum of the buffers' raw lengths (perfsink_buf_raw_len) */
	/* Output, made by the gatherer. */
	uint64_t records;    /* perf records of the input consumed */
	struct perfsink_kit_buf out;
	enum zs_batch_state state;
	int claimed;         /* the gatherer took it */
	int err;
};

struct zs_batch *zs_batch_new(void);
/* Queue a buffer whose reference the batch now owns. 0 or -ENOMEM. */
int zs_batch_add(struct zs_batch *b, struct perfsink_buf *buf);
/* Copy one buffer into b->out, counting its records.  Does not release it. */
int zs_batch_feed(struct zs_batch *b, const struct perfsink_buf *buf);
/* Release the queued buffers not yet taken, counting their records. */
void zs_batch_drop(struct zs_batch *b, zs_put_fn put, void *arg);
void zs_batch_free(struct zs_batch *b);

#endif
