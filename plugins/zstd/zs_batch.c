/* zs_batch: see zs_batch.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "zs_batch.h"

struct zs_batch *zs_batch_new(void)
{
	return calloc(1, sizeof(struct zs_batch));
}

int zs_batch_add(struct zs_batch *b, struct perfsink_buf *buf)
{
	if (b->nr == b->cap) {
		unsigned cap = b->cap ? b->cap * 2 : 8;
		struct perfsink_buf **n = realloc(b->bufs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		b->bufs = n;
		b->cap = cap;
	}
	b->bufs[b->nr++] = buf;
	b->in_bytes += buf->len;
	return 0;
}

uint64_t zs_records_count(const uint8_t *data, size_t len)
{
	uint64_t n = 0;
	size_t off = 0;

	while (off + 8 <= len) {
		uint16_t size;

		memcpy(&size, data + off + 6, sizeof(size));
		if (size < 8)
			break;
		off += size;
		n++;
	}
	return n;
}

static size_t buf_compressible(const struct perfsink_buf *buf)
{
	if (buf->kind != PERFSINK_BUF_RING || buf->tail_round > buf->len)
		return 0;
	return buf->len - buf->tail_round;
}

/* Index of the last buffer with bytes to compress, or -1. */
static long batch_last_compressible(const struct zs_batch *b)
{
	long i;

	for (i = (long)b->nr - 1; i >= 0; i--)
		if (buf_compressible(b->bufs[i]))
			return i;
	return -1;
}

/* Mode for buffer i: end or flush where raw bytes or the batch end follow. */
static enum zs_mode batch_mode(const struct zs_batch *b, unsigned i, long last, int independent)
{
	const struct perfsink_buf *buf = b->bufs[i];

	if ((long)i == last)
		return independent ? ZS_END : ZS_FLUSH;
	if (buf->tail_round || i + 1 == b->nr || buf_compressible(b->bufs[i + 1]) == 0)
		return ZS_FLUSH;
	return ZS_KEEP;
}

static int batch_one(struct zs_batch *b, unsigned i, long last, struct zs_frame *f,
		     int independent)
{
	const struct perfsink_buf *buf = b->bufs[i];
	size_t comp = buf_compressible(buf);
	int err;

	if (buf->kind != PERFSINK_BUF_RING)
		return zs_obuf_append(&b->out, buf->data, buf->len);
	if (comp) {
		err = zs_frame_put(f, &b->out, buf->data, comp, batch_mode(b, i, last, independent));
		if (err)
			return err;
	}
	return zs_obuf_append(&b->out, buf->data + comp, buf->len - comp);
}

int zs_batch_compress(struct zs_batch *b, struct zs_frame *f, int independent,
		      zs_put_fn put, void *arg)
{
	long last = batch_last_compressible(b);
	unsigned i;
	int err = 0;

	zs_obuf_reset(&b->out);
	for (i = 0; i < b->nr; i++) {
		struct perfsink_buf *buf = b->bufs[i];

		if (!err)
			err = batch_one(b, i, last, f, independent);
		b->records += zs_records_count(buf->data, buf->len);
		b->bufs[i] = NULL;
		put(arg, buf);
	}
	b->nr = 0;
	if (err)
		zs_frame_reset(f); /* never continue a frame that lost bytes */
	return err;
}

void zs_batch_drop(struct zs_batch *b, zs_put_fn put, void *arg)
{
	unsigned i;

	for (i = 0; i < b->nr; i++) {
		b->records += zs_records_count(b->bufs[i]->data, b->bufs[i]->len);
		put(arg, b->bufs[i]);
	}
	b->nr = 0;
}

void zs_batch_free(struct zs_batch *b)
{
	if (!b)
		return;
	free(b->bufs);
	zs_obuf_free(&b->out);
	free(b);
}
