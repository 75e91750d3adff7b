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
	b->in_bytes += perfsink_buf_raw_len(buf);
	return 0;
}

/* Raw bytes: straight out when no group is open, else behind it. */
static int batch_raw(struct zs_batch *b, struct perfsink_kit_zframe *f, const void *p, size_t len)
{
	if (!len)
		return 0;
	return perfsink_kit_buf_append(perfsink_kit_zframe_pending(f) ? &b->held : &b->out, p, len);
}

int zs_batch_feed(struct zs_batch *b, struct perfsink_kit_zframe *f, const struct perfsink_buf *buf)
{
	size_t comp = 0;
	int err;

	b->records += perfsink_kit_buf_records(buf);
	/* Compressed by the engine's stage (sink ABI 1.9): whole records already. */
	if (buf->kind == PERFSINK_BUF_COMPRESSED)
		return batch_raw(b, f, buf->data, buf->len);
	if (buf->kind == PERFSINK_BUF_RING && buf->tail_round <= buf->len)
		comp = buf->len - buf->tail_round;
	if (!comp)
		return batch_raw(b, f, buf->data, buf->len);
	if (b->held.len) { /* the open group ends before the raw bytes */
		err = perfsink_kit_zframe_put(f, &b->out, NULL, 0, PERFSINK_KIT_Z_FLUSH);
		if (!err)
			err = perfsink_kit_buf_append(&b->out, b->held.data, b->held.len);
		if (err)
			return err;
		perfsink_kit_buf_reset(&b->held);
	}
	err = perfsink_kit_zframe_put(f, &b->out, buf->data, comp, PERFSINK_KIT_Z_KEEP);
	if (err)
		return err;
	return batch_raw(b, f, buf->data + comp, buf->len - comp);
}

int zs_batch_finish(struct zs_batch *b, struct perfsink_kit_zframe *f, int independent)
{
	int err = 0;

	if (perfsink_kit_zframe_pending(f))
		err = perfsink_kit_zframe_put(f, &b->out, NULL, 0,
					      independent ? PERFSINK_KIT_Z_END : PERFSINK_KIT_Z_FLUSH);
	if (!err && b->held.len)
		err = perfsink_kit_buf_append(&b->out, b->held.data, b->held.len);
	perfsink_kit_buf_free(&b->held);
	return err;
}

void zs_batch_drop(struct zs_batch *b, zs_put_fn put, void *arg)
{
	for (; b->taken < b->nr; b->taken++) {
		struct perfsink_buf *buf = b->bufs[b->taken];

		b->records += perfsink_kit_buf_records(buf);
		b->bufs[b->taken] = NULL;
		put(arg, buf);
	}
}

void zs_batch_free(struct zs_batch *b)
{
	if (!b)
		return;
	free(b->bufs);
	perfsink_kit_buf_free(&b->out);
	perfsink_kit_buf_free(&b->held);
	free(b);
}
