/* zstd compression into COMPRESSED records; see compress.h. */
#include "compress.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifdef HTTP_WITH_ZSTD
#include <zstd.h>

struct compressor {
	ZSTD_CCtx *cctx;
	int level;
	uint8_t *out;
	size_t out_len, out_cap;
	uint64_t total_in, total_out;
};

struct compressor *compressor_new(int level)
{
	struct compressor *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->cctx = ZSTD_createCCtx();
	c->level = level;
	if (!c->cctx) {
		free(c);
		return NULL;
	}
	return c;
}

static int out_reserve(struct compressor *c, size_t more)
{
	if (c->out_len + more > c->out_cap) {
		size_t cap = c->out_cap ? c->out_cap : 65536;
		uint8_t *o;

		while (cap < c->out_len + more)
			cap *= 2;
		o = realloc(c->out, cap);
		if (!o)
			return -ENOMEM;
		c->out = o;
		c->out_cap = cap;
	}
	return 0;
}

static int out_raw(struct compressor *c, const uint8_t *d, size_t n)
{
	if (out_reserve(c, n) < 0)
		return -ENOMEM;
	memcpy(c->out + c->out_len, d, n);
	c->out_len += n;
	return 0;
}

/* One chunk of whole records -> one COMPRESSED record (or kept raw). */
static int chunk_compress(struct compressor *c, const uint8_t *d, size_t n)
{
	size_t bound = ZSTD_compressBound(n), z;
	uint32_t type = PERF_REC_COMPRESSED;
	uint16_t size;

	if (out_reserve(c, 8 + bound) < 0)
		return -ENOMEM;
	z = ZSTD_compressCCtx(c->cctx, c->out + c->out_len + 8, bound, d, n, c->level);
	if (ZSTD_isError(z) || z + 8 > 65535 || z + 8 >= n)
		return out_raw(c, d, n);
	size = (uint16_t)(z + 8);
	memset(c->out + c->out_len, 0, 8);
	memcpy(c->out + c->out_len, &type, 4);
	memcpy(c->out + c->out_len + 6, &size, 2);
	c->out_len += size;
	return 0;
}

static uint16_t rec_size(const uint8_t *p)
{
	uint16_t s;

	memcpy(&s, p + 6, 2);
	return s;
}

int compressor_run(struct compressor *c, const uint8_t *data, size_t len, size_t tail_round,
		   const uint8_t **out, size_t *out_len)
{
	size_t body = tail_round <= len ? len - tail_round : len, off = 0;
	int rc = 0;

	c->out_len = 0;
	while (off < body && rc == 0) {
		size_t end = off;

		/* Whole records up to the chunk size; one big record alone. */
		while (end + 8 <= body && rec_size(data + end) >= 8 &&
		       end + rec_size(data + end) <= body &&
		       (end == off || end - off + rec_size(data + end) <= COMPRESS_CHUNK_MAX))
			end += rec_size(data + end);
		if (end == off) /* malformed: keep the rest as it is */
			end = body;
		rc = chunk_compress(c, data + off, end - off);
		off = end;
	}
	if (rc == 0)
		rc = out_raw(c, data + body, len - body);
	c->total_in += len;
	c->total_out += c->out_len;
	*out = c->out;
	*out_len = c->out_len;
	return rc;
}

void compressor_totals(const struct compressor *c, uint64_t *in, uint64_t *out)
{
	*in = c->total_in;
	*out = c->total_out;
}

void compressor_free(struct compressor *c)
{
	if (!c)
		return;
	ZSTD_freeCCtx(c->cctx);
	free(c->out);
	free(c);
}
#else /* !HTTP_WITH_ZSTD */

struct compressor *compressor_new(int level)
{
	(void)level;
	return NULL;
}

int compressor_run(struct compressor *c, const uint8_t *data, size_t len, size_t tail_round,
		   const uint8_t **out, size_t *out_len)
{
	(void)c;
	(void)data;
	(void)len;
	(void)tail_round;
	(void)out;
	(void)out_len;
	return -ENOTSUP;
}

void compressor_totals(const struct compressor *c, uint64_t *in, uint64_t *out)
{
	(void)c;
	*in = *out = 0;
}

void compressor_free(struct compressor *c)
{
	(void)c;
}
#endif
