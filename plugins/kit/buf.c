/* The growable byte buffer; see perfsink_kit_buf in perfsink/kit.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <perfsink/kit.h>

int perfsink_kit_buf_reserve(struct perfsink_kit_buf *o, size_t extra)
{
	size_t cap = o->cap ? o->cap : 64 * 1024;
	uint8_t *n;

	if (o->len + extra <= o->cap)
		return 0;
	while (cap < o->len + extra)
		cap *= 2;
	n = realloc(o->data, cap);
	if (!n)
		return -ENOMEM;
	o->data = n;
	o->cap = cap;
	return 0;
}

int perfsink_kit_buf_resize(struct perfsink_kit_buf *b, size_t cap)
{
	uint8_t *n;

	if (cap < b->len)
		return -EINVAL;
	if (cap == b->cap)
		return 0;
	n = realloc(b->data, cap ? cap : 1);
	if (!n)
		return -ENOMEM;
	b->data = n;
	b->cap = cap;
	return 0;
}

int perfsink_kit_buf_append(struct perfsink_kit_buf *o, const void *p, size_t len)
{
	int err = perfsink_kit_buf_reserve(o, len);

	if (err || !len)
		return err;
	memcpy(o->data + o->len, p, len);
	o->len += len;
	return 0;
}

void perfsink_kit_buf_reset(struct perfsink_kit_buf *o) { o->len = 0; }

void perfsink_kit_buf_free(struct perfsink_kit_buf *o)
{
	free(o->data);
	memset(o, 0, sizeof(*o));
}
