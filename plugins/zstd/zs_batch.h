/*
 * zs_batch: a run of consecutive buffers compressed by one worker into one
 * piece of output (whole records), fed as the buffers arrive.
 *
 *   PERFSINK_BUF_SYNTH   copied raw;
 *   PERFSINK_BUF_RING    COMPRESSED records (perfsink_kit_zframe), then its trailing
 *                        tail_round bytes (FINISHED_ROUND) raw, after the
 *                        records that hold the data it closes.
 *
 * zstd copies its input, so each buffer can be released as soon as it was
 * fed: a batch that is still gathering (min_batch) holds no reference.
 * Raw bytes that follow compressed data are held back until more data or
 * the close decides how the open group ends: a frame can only be ended on a
 * group with data (perf rejects a record that decompresses to nothing).
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
	/* Input, filled by the engine thread, taken by the worker. */
	struct perfsink_buf **bufs;
	unsigned nr, cap, taken;
	int closed;          /* no more buffers will be added */
	uint64_t in_bytes;   /* sum of the buffers' raw lengths (perfsink_buf_raw_len) */
	/* Output, made by the worker. */
	uint64_t records;    /* perf records of the input consumed */
	struct perfsink_kit_buf out;
	struct perfsink_kit_buf held; /* raw bytes waiting behind the open group */
	enum zs_batch_state state;
	int claimed;         /* a worker owns it */
	unsigned gen;        /* output file generation */
	int err;
};

struct zs_batch *zs_batch_new(void);
/* Queue a buffer whose reference the batch now owns. 0 or -ENOMEM. */
int zs_batch_add(struct zs_batch *b, struct perfsink_buf *buf);
/* Compress (or copy) one buffer into b->out.  Does not release it. */
int zs_batch_feed(struct zs_batch *b, struct perfsink_kit_zframe *f,
		  const struct perfsink_buf *buf);
/*
 * End the batch's output: the open group is ended with the frame
 * (independent) or only flushed (one continuous stream), held raw bytes
 * follow.  After it b->out is whole records.
 */
int zs_batch_finish(struct zs_batch *b, struct perfsink_kit_zframe *f, int independent);
/* Release the queued buffers not yet taken, counting their records. */
void zs_batch_drop(struct zs_batch *b, zs_put_fn put, void *arg);
void zs_batch_free(struct zs_batch *b);

#endif
