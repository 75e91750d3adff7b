/* Pipe-mode stream -> perf.data file; see pipe_to_file.h. */
#include "fetch/pipe_to_file.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

#include "format/events.h"
#include "format/perf_features.h"
#include "format/perf_file.h"
#include "format/record.h"
#include "format/stream.h"

enum {
	REC_HEADER_EVENT_TYPE = 65,
	REC_HEADER_BUILD_ID = 67,
	REC_AUXTRACE = 71,
	REC_KERNEL_MAX = 21,  /* perf 6.1 */
	REC_USER_MIN = 64,
	REC_USER_MAX = 83,
	PIPE_HEADER_SIZE = 16,
};

static uint16_t rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* Bytes that follow a record and that its header.size does not count. */
static uint64_t record_payload(const uint8_t *r)
{
	uint32_t type = rd32(r);
	uint16_t size = rd16(r + 6);
	if (type == PS_RECORD_HEADER_TRACING_DATA && size >= 12)
		return rd32(r + 8);
	if (type == REC_AUXTRACE && size >= 16)
		return rd64(r + 8);
	return 0;
}

int part_check(const uint8_t *part, size_t len, int first, char *err, size_t errlen)
{
	size_t off = 0;
	if (first) {
		if (len < PIPE_HEADER_SIZE || rd64(part) != PERF_FILE_MAGIC || rd64(part + 8) != PIPE_HEADER_SIZE) {
			snprintf(err, errlen, "does not start with perf's pipe header (PERFILE2, size 16)");
			return -EBADMSG;
		}
		off = PIPE_HEADER_SIZE;
	}
	while (off < len) {
		if (len - off < 8) {
			snprintf(err, errlen, "a record header is cut at offset %zu of %zu bytes", off, len);
			return -EBADMSG;
		}
		uint32_t type = rd32(part + off);
		uint16_t size = rd16(part + off + 6);
		if (size < 8 || size > len - off) {
			snprintf(err, errlen, "record at offset %zu has size %u (%zu bytes left)", off, size, len - off);
			return -EBADMSG;
		}
		if (!((type >= 1 && type <= REC_KERNEL_MAX) || (type >= REC_USER_MIN && type <= REC_USER_MAX))) {
			snprintf(err, errlen, "record at offset %zu has unknown type %u", off, type);
			return -EBADMSG;
		}
		uint64_t extra = record_payload(part + off);
		if (extra > len - off - size) {
			snprintf(err, errlen, "record at offset %zu announces %llu payload bytes beyond the part",
				 off, (unsigned long long)extra);
			return -EBADMSG;
		}
		off += size + extra;
	}
	return 0;
}

int p2f_init(struct p2f *w, int fd, int decompress)
{
	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->decompress = decompress;
	for (int f = 0; f < P2F_FEATS; f++)
		bytes_init(&w->feat[f]);
	bytes_init(&w->carry);
	if (decompress) {
#ifdef HAVE_ZSTD
		if (!(w->dctx = ZSTD_createDCtx()))
			return -ENOMEM;
#else
		return -ENOTSUP;
#endif
	}
	return 0;
}

void p2f_free(struct p2f *w)
{
	for (unsigned i = 0; i < w->nr_ev; i++)
		free((void *)w->ev[i].ids);
	free(w->ev);
	for (int f = 0; f < P2F_FEATS; f++)
		bytes_free(&w->feat[f]);
	bytes_free(&w->carry);
#ifdef HAVE_ZSTD
	ZSTD_freeDCtx(w->dctx);
#endif
	w->ev = NULL;
	w->nr_ev = 0;
	w->dctx = NULL;
}

const struct bytes *p2f_build_ids(const struct p2f *w)
{
	return &w->feat[FEAT_BUILD_ID];
}

/* ------------------------------------------------------------ prologue */

static int attr_take(struct p2f *w, const uint8_t *r, uint16_t size, char *err, size_t errlen)
{
	if (w->data_offset) {
		snprintf(err, errlen, "a HEADER_ATTR record after the first data record (not in a perf stream)");
		return -EBADMSG;
	}
	uint32_t asz = size >= 8 + 8 ? rd32(r + 8 + offsetof(struct perf_event_attr, size)) : 0;
	if (!asz)
		asz = PERF_ATTR_SIZE_VER0;
	if (asz > (uint32_t)size - 8 || (size - 8 - asz) % 8) {
		snprintf(err, errlen, "HEADER_ATTR record of %u bytes with an attr of %u", size, asz);
		return -EBADMSG;
	}
	struct ps_event_desc *ev = realloc(w->ev, (w->nr_ev + 1) * sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	w->ev = ev;
	ev = &w->ev[w->nr_ev];
	memset(ev, 0, sizeof(*ev));
	memcpy(&ev->attr, r + 8, asz < sizeof(ev->attr) ? asz : sizeof(ev->attr));
	ev->attr.size = PS_ATTR_SIZE;
	ev->nr_ids = (unsigned)((size - 8 - asz) / 8);
	uint64_t *ids = malloc((ev->nr_ids ? ev->nr_ids : 1) * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	memcpy(ids, r + 8 + asz, ev->nr_ids * sizeof(*ids));
	ev->ids = ids;
	w->nr_ev++;
	return 0;
}

static int feature_take(struct p2f *w, const uint8_t *r, uint16_t size)
{
	if (size < 16)
		return 0;
	uint64_t f = rd64(r + 8);
	if (f == 0 || f >= FEAT_LAST || f >= P2F_FEATS || (f == FEAT_COMPRESSED && w->decompress))
		return 0;
	struct bytes *b = &w->feat[f];
	if (f != FEAT_BUILD_ID)
		b->len = 0; /* a feature sent again replaces the first */
	bytes_add(b, r + 16, size - 16u);
	w->feat_set |= 1ULL << f;
	return b->err;
}

/* ---------------------------------------------------------------- data */

static int write_all(int fd, const void *p, size_t n, uint64_t off)
{
	while (n) {
		ssize_t k = pwrite(fd, p, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		p = (const uint8_t *)p + k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

/* The attrs and ids, written once: after them the data section starts. */
static int header_write(struct p2f *w)
{
	struct ps_events evs = { .ev = w->ev, .nr = w->nr_ev };
	struct perfsink_stream_priv priv = { .events = &evs };
	struct perfsink_stream s = { .nr_events = w->nr_ev, .priv = &priv };
	struct perfsink_bytes hdr = { 0 };
	if (!w->nr_ev)
		return -ENODATA;
	int rc = perf_file_header(&s, NULL, &hdr);
	if (rc)
		return rc;
	rc = write_all(w->fd, hdr.data, hdr.len, 0);
	w->data_offset = hdr.len;
	perf_bytes_free(&hdr);
	return rc;
}

/* Before data overwrites the features: the header stops pointing at them. */
static int features_retract(struct p2f *w)
{
	uint8_t zero[PERF_FILE_FEAT_BITS / 8] = { 0 };
	if (!w->features_live)
		return 0;
	w->features_live = 0;
	return write_all(w->fd, zero, sizeof(zero), PERF_FILE_FEATURES_OFFSET);
}

static int data_append(struct p2f *w, struct bytes *out)
{
	int rc = 0;
	if (!out->len)
		return out->err;
	if (!w->data_offset)
		rc = header_write(w);
	if (!rc)
		rc = features_retract(w);
	if (!rc)
		rc = write_all(w->fd, out->p, out->len, w->data_offset + w->data_size);
	if (!rc)
		w->data_size += out->len;
	out->len = 0;
	return rc;
}

/* Whole records of w->carry into out; the cut tail stays in carry. */
static int carry_drain(struct p2f *w, struct bytes *out, char *err, size_t errlen)
{
	size_t off = 0;
	while (w->carry.len - off >= 8) {
		uint16_t size = rd16(w->carry.p + off + 6);
		if (size < 8) {
			snprintf(err, errlen, "a decompressed record has size %u", size);
			return -EBADMSG;
		}
		if (size > w->carry.len - off)
			break;
		bytes_add(out, w->carry.p + off, size);
		w->records++;
		off += size;
	}
	memmove(w->carry.p, w->carry.p + off, w->carry.len - off);
	w->carry.len -= off;
	return out->err;
}

static int decompress_record(struct p2f *w, const uint8_t *r, uint16_t size, struct bytes *out,
			     char *err, size_t errlen)
{
#ifdef HAVE_ZSTD
	ZSTD_inBuffer in = { r + 8, size - 8u, 0 };
	while (in.pos < in.size) {
		uint8_t *dst = bytes_reserve(&w->carry, 128 * 1024);
		if (!dst)
			return -ENOMEM;
		ZSTD_outBuffer o = { dst, 128 * 1024, 0 };
		size_t ret = ZSTD_decompressStream(w->dctx, &o, &in);
		if (ZSTD_isError(ret)) {
			snprintf(err, errlen, "a COMPRESSED record does not decompress: %s", ZSTD_getErrorName(ret));
			return -EBADMSG;
		}
		w->carry.len += o.pos;
		if (!o.pos && !ret)
			break;
	}
	return carry_drain(w, out, err, errlen);
#else
	(void)w; (void)r; (void)size; (void)out;
	snprintf(err, errlen, "COMPRESSED records, and this build has no zstd");
	return -ENOTSUP;
#endif
}

/* One record of a part: into the prologue state, or into out (data). */
static int record_take(struct p2f *w, const uint8_t *r, struct bytes *out, char *err, size_t errlen)
{
	uint32_t type = rd32(r);
	uint16_t size = rd16(r + 6);
	switch (type) {
	case PS_RECORD_HEADER_ATTR:
		return attr_take(w, r, size, err, errlen);
	case PS_RECORD_HEADER_FEATURE:
		return feature_take(w, r, size);
	case PS_RECORD_HEADER_TRACING_DATA:
		w->feat[FEAT_TRACING_DATA].len = 0;
		bytes_add(&w->feat[FEAT_TRACING_DATA], r + size, rd32(r + 8));
		w->feat_set |= 1ULL << FEAT_TRACING_DATA;
		return w->feat[FEAT_TRACING_DATA].err;
	case REC_HEADER_BUILD_ID:
		/* The file's BUILD_ID feature is a list of the same records. */
		bytes_add(&w->feat[FEAT_BUILD_ID], r, size);
		w->feat_set |= 1ULL << FEAT_BUILD_ID;
		return w->feat[FEAT_BUILD_ID].err;
	case REC_HEADER_EVENT_TYPE:
		return 0; /* obsolete; file mode has no place for it */
	case PS_RECORD_COMPRESSED:
		if (w->decompress)
			return decompress_record(w, r, size, out, err, errlen);
		/* fall through */
	default:
		if (!w->data_offset && !w->nr_ev) {
			snprintf(err, errlen, "a data record before any HEADER_ATTR");
			return -EBADMSG;
		}
		bytes_add(out, r, size + record_payload(r));
		w->records++;
		return out->err;
	}
}

int p2f_part(struct p2f *w, const uint8_t *part, size_t len, int first, char *err, size_t errlen)
{
	struct bytes out;
	size_t off = first ? PIPE_HEADER_SIZE : 0;
	int rc = 0;
	if (first)
		w->saw_header = 1;
	bytes_init(&out);
	while (!rc && off + 8 <= len) {
		uint16_t size = rd16(part + off + 6);
		rc = record_take(w, part + off, &out, err, errlen);
		off += size + record_payload(part + off);
	}
	/* Attrs come first in a stream: take them all before placing the data. */
	if (!rc)
		rc = data_append(w, &out);
	bytes_free(&out);
	return rc;
}

int p2f_checkpoint(struct p2f *w)
{
	int rc = w->data_offset ? 0 : header_write(w);
	if (rc)
		return rc;
	/* Feature index {offset, size} per set bit, ascending, then the payloads. */
	struct bytes b;
	bytes_init(&b);
	unsigned nr = 0;
	for (int f = 1; f < P2F_FEATS; f++)
		nr += (w->feat_set >> f) & 1;
	uint64_t base = w->data_offset + w->data_size;
	bytes_zero(&b, nr * 16u);
	unsigned i = 0;
	for (int f = 1; f < P2F_FEATS; f++) {
		if (!((w->feat_set >> f) & 1))
			continue;
		uint64_t sec[2] = { base + b.len, w->feat[f].len };
		bytes_add(&b, w->feat[f].p, w->feat[f].len);
		if (!b.err)
			bytes_put_at(&b, i++ * 16u, sec, sizeof(sec));
	}
	rc = b.err;
	if (!rc)
		rc = write_all(w->fd, b.p, b.len, base);
	if (!rc && ftruncate(w->fd, (off_t)(base + b.len)) < 0)
		rc = -errno;
	bytes_free(&b);
	if (rc)
		return rc;
	/* data.size, event_types (unused) and the bitmap: one write. */
	uint8_t tail[PERF_FILE_HEADER_SIZE - PERF_FILE_DATA_SIZE_OFFSET] = { 0 };
	memcpy(tail, &w->data_size, 8);
	uint64_t bits[PERF_FILE_FEAT_BITS / 64] = { w->feat_set & ~1ULL };
	memcpy(tail + (PERF_FILE_FEATURES_OFFSET - PERF_FILE_DATA_SIZE_OFFSET), bits, sizeof(bits));
	rc = write_all(w->fd, tail, sizeof(tail), PERF_FILE_DATA_SIZE_OFFSET);
	if (!rc)
		w->features_live = 1;
	return rc;
}
