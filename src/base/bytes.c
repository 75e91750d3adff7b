#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/bytes.h"

void bytes_init(struct bytes *b)
{
	memset(b, 0, sizeof(*b));
}

void bytes_free(struct bytes *b)
{
	free(b->p);
	bytes_init(b);
}

uint8_t *bytes_reserve(struct bytes *b, size_t n)
{
	if (b->err)
		return NULL;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n)
			cap *= 2;
		uint8_t *p = realloc(b->p, cap);
		if (!p) {
			b->err = -ENOMEM;
			return NULL;
		}
		b->p = p;
		b->cap = cap;
	}
	return b->p + b->len;
}

void bytes_add(struct bytes *b, const void *p, size_t n)
{
	uint8_t *d = bytes_reserve(b, n);
	if (!d)
		return;
	if (n)
		memcpy(d, p, n);
	b->len += n;
}

void bytes_u16(struct bytes *b, uint16_t v) { bytes_add(b, &v, sizeof(v)); }
void bytes_u32(struct bytes *b, uint32_t v) { bytes_add(b, &v, sizeof(v)); }
void bytes_u64(struct bytes *b, uint64_t v) { bytes_add(b, &v, sizeof(v)); }

void bytes_zero(struct bytes *b, size_t n)
{
	uint8_t *d = bytes_reserve(b, n);
	if (!d)
		return;
	memset(d, 0, n);
	b->len += n;
}

void bytes_pad(struct bytes *b, size_t align)
{
	size_t rem = b->len % align;
	if (rem)
		bytes_zero(b, align - rem);
}

void bytes_perf_string(struct bytes *b, const char *s)
{
	size_t n = strlen(s) + 1;
	size_t padded = (n + 63) & ~(size_t)63;
	bytes_u32(b, (uint32_t)padded);
	bytes_add(b, s, n);
	bytes_zero(b, padded - n);
}

void bytes_put_at(struct bytes *b, size_t off, const void *p, size_t n)
{
	if (b->err || off + n > b->len)
		return;
	memcpy(b->p + off, p, n);
}

uint8_t *bytes_steal(struct bytes *b, size_t *len)
{
	uint8_t *p = b->p;
	*len = b->len;
	bytes_init(b);
	return p;
}
