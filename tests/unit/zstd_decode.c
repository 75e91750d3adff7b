/* Test helper: see zstd_decode.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "zstd_decode.h"

static int append(struct zdec *d, const void *p, size_t n)
{
	size_t cap = d->cap ? d->cap : 64 * 1024;
	uint8_t *m;

	while (cap < d->len + n + 1)
		cap *= 2;
	if (cap != d->cap) {
		m = realloc(d->data, cap);
		if (!m)
			return -1;
		d->data = m;
		d->cap = cap;
	}
	memcpy(d->data + d->len, p, n);
	d->len += n;
	return 0;
}

/* Decompress one payload as perf does: loop while input is left. */
static int decomp_one(ZSTD_DStream *ds, const uint8_t *src, size_t n, uint8_t *dst,
		      size_t cap, struct zdec *d, char *err, size_t errlen)
{
	ZSTD_inBuffer in = { src, n, 0 };
	ZSTD_outBuffer out = { dst, cap, 0 };
	size_t r = 1;
	int stuck = 0;

	if (n >= 4 && src[0] == 0x28 && src[1] == 0xb5 && src[2] == 0x2f && src[3] == 0xfd)
		d->frames++;
	while (in.pos < in.size) {
		size_t before = in.pos + out.pos;

		r = ZSTD_decompressStream(ds, &out, &in);
		if (ZSTD_isError(r)) {
			snprintf(err, errlen, "record %u: %s", d->compressed, ZSTD_getErrorName(r));
			return -1;
		}
		if (in.pos + out.pos == before && ++stuck > 4) {
			snprintf(err, errlen, "record %u: destination buffer too small (%zu)",
				 d->compressed, cap);
			return -1;
		}
	}
	if (out.pos == 0) {
		snprintf(err, errlen, "record %u decompresses to nothing", d->compressed);
		return -1;
	}
	d->frame_open = r != 0;
	if (!d->min_decomp || out.pos < d->min_decomp)
		d->min_decomp = out.pos;
	if (out.pos > d->max_decomp)
		d->max_decomp = out.pos;
	return append(d, dst, out.pos);
}

int zdec_section(const uint8_t *p, size_t len, size_t mmap_len, struct zdec *d,
		 char *err, size_t errlen)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	uint8_t *buf = malloc(mmap_len);
	size_t off = 0;
	int rc = 0;

	memset(d, 0, sizeof(*d));
	if (!ds || !buf)
		rc = -1;
	while (!rc && off < len) {
		uint32_t type;
		uint16_t size;

		if (off + 8 > len) {
			snprintf(err, errlen, "truncated header at %zu", off);
			rc = -1;
			break;
		}
		memcpy(&type, p + off, 4);
		memcpy(&size, p + off + 6, 2);
		if (size < 8 || off + size > len) {
			snprintf(err, errlen, "bad record size %u at %zu", size, off);
			rc = -1;
			break;
		}
		if (type == 81) {
			if (size > d->max_record)
				d->max_record = size;
			rc = decomp_one(ds, p + off + 8, size - 8u, buf, mmap_len, d, err, errlen);
			d->compressed++;
		} else {
			rc = append(d, p + off, size);
			d->raw++;
		}
		off += size;
	}
	ZSTD_freeDStream(ds);
	free(buf);
	return rc;
}

void zdec_free(struct zdec *d)
{
	free(d->data);
	memset(d, 0, sizeof(*d));
}

void zdec_fake_records(uint8_t *p, size_t len, unsigned seed, int compressible)
{
	size_t off = 0;

	srand(seed);
	while (off < len) {
		size_t left = len - off;
		size_t size = 16 + 8 * (size_t)(rand() % 40);
		uint32_t type = 9;
		uint16_t misc = 2, sz;
		size_t i;

		if (size > left || left - size < 16)
			size = left;
		sz = (uint16_t)size;
		memcpy(p + off, &type, 4);
		memcpy(p + off + 4, &misc, 2);
		memcpy(p + off + 6, &sz, 2);
		for (i = 8; i < size; i += 8) {
			uint64_t v = compressible ? 0xffffffff81000000ull + (uint64_t)(rand() % 64) * 16
						  : ((uint64_t)rand() << 33) ^ ((uint64_t)rand() << 2) ^ (uint64_t)rand();
			memcpy(p + off + i, &v, size - i < 8 ? size - i : 8);
		}
		off += size;
	}
}

int zdec_whole_records(const uint8_t *p, size_t len)
{
	size_t off = 0;

	while (off + 8 <= len) {
		uint16_t size;

		memcpy(&size, p + off + 6, 2);
		if (size < 8)
			return 0;
		off += size;
	}
	return off == len;
}
