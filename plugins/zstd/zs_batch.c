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

int zs_batch_feed(struct zs_batch *b, const struct perfsink_buf *buf)
{
	b->records += perfsink_kit_buf_records(buf);
	return perfsink_kit_buf_append(&b->out, buf->data, buf->len);
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
	free(b);
}
