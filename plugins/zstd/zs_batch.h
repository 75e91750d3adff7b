/*
 * zs_batch: buffers gathered for one compress call, and their output.
 *
 * A batch holds references on engine buffers, in stream order.  Compressing
 * it produces the bytes to append to the data section:
 *   PERFSINK_BUF_SYNTH      copied raw;
 *   PERFSINK_BUF_RING       COMPRESSED records (zs_frame), then its trailing
 *                           tail_round bytes (FINISHED_ROUND) raw, so the
 *                           round follows the data it closes.
 * Each buffer is released (put) as soon as its bytes are consumed.  The
 * output is whole records, so its end is a valid data.size boundary.
 *
 * THREADS.  A batch belongs to one thread at a time (the pipe's lock hands
 * it over).  put() may be called from any thread.
 */
#ifndef ZS_BATCH_H
#define ZS_BATCH_H
#include <perfsink/sink.h>
#include "zs_frame.h"

typedef void (*zs_put_fn)(void *arg, struct perfsink_buf *buf);

enum zs_batch_state { ZB_QUEUED = 0, ZB_BUSY, ZB_DONE };

struct zs_batch {
	struct zs_batch *next;
	struct perfsink_buf **bufs;
	unsigned nr, cap;
	uint64_t in_bytes;   /* sum of the buffers' len */
	uint64_t records;    /* perf records in the input, once consumed */
	struct zs_obuf out;
	enum zs_batch_state state;
	unsigned gen;        /* output file generation the batch belongs to */
	int sync;            /* barrier marker: no data, drain the writer */
	int err;
};

struct zs_batch *zs_batch_new(void);
/* Append a buffer whose reference the batch now owns. 0 or -ENOMEM. */
int zs_batch_add(struct zs_batch *b, struct perfsink_buf *buf);
/*
 * Compress into b->out, releasing every buffer.  independent: end the frame
 * with the batch (any worker may take the next batch); otherwise leave it
 * open and only flush (one continuous stream over the batches of a file).
 * On error every buffer is still released; b->out is then meaningless.
 */
int zs_batch_compress(struct zs_batch *b, struct zs_frame *f, int independent,
		      zs_put_fn put, void *arg);
/* Release the buffers not yet consumed, counting their records. */
void zs_batch_drop(struct zs_batch *b, zs_put_fn put, void *arg);
void zs_batch_free(struct zs_batch *b);

/* perf records in [data, data+len), by their header sizes. */
uint64_t zs_records_count(const uint8_t *data, size_t len);

#endif
