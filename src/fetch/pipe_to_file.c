/* Pipe-mode stream -> perf.data file; see pipe_to_file.h. */
#include "fetch/pipe_to_file.h"
#include "fetch/rec_reader.h"

#include <errno.h>
#include <perfsink/kit.h>
#include <inttypes.h>
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
	PIPE_HEADER_SIZE = 16,
};

static uint16_t rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* The records of r checked, from its start; see part_check. */
static int part_walk(struct rec_reader *r, int first, char *err, size_t errlen)
{
	const uint8_t *h;
	if (first) {
		h = rec_reader_peek(r, PIPE_HEADER_SIZE);
		if (!h || rd64(h) != PERF_FILE_MAGIC || rd64(h + 8) != PIPE_HEADER_SIZE) {
			snprintf(err, errlen, "does not start with perf's pipe header (PERFILE2, size 16)");
			return r->err ? r->err : -EBADMSG;
		}
		r->off = PIPE_HEADER_SIZE;
	}
	struct perfsink_kit_rec rec;
	enum perfsink_kit_rec_stop stop;
	for (; rec_reader_next(r, &rec, &stop); r->off += rec.size + rec.payload) {
		if (!perfsink_kit_rec_type_known(rec.type)) {
			snprintf(err, errlen, "record at offset %" PRIu64 " has unknown type %u", r->off, rec.type);
			return -EBADMSG;
		}
		if (rec.payload > rec_reader_left(r) - rec.size) {
			snprintf(err, errlen, "record at offset %" PRIu64 " announces %" PRIu64
				 " payload bytes beyond the part", r->off, rec.payload);
			return -EBADMSG;
		}
	}
	if (r->err || stop == PERFSINK_KIT_REC_END)
		return r->err;
	if (stop == PERFSINK_KIT_REC_SHORT)
		snprintf(err, errlen, "a record header is cut at offset %" PRIu64 " of %" PRIu64 " bytes",
			 r->off, r->len);
	else
		snprintf(err, errlen, "record at offset %" PRIu64 " has size %u (%" PRIu64 " bytes left)",
			 r->off, rec.size, rec_reader_left(r));
	return -EBADMSG;
}

int part_check(const uint8_t *part, size_t len, int first, char *err, size_t errlen)
{
	struct rec_reader r;
	rec_reader_mem(&r, part, len);
	return part_walk(&r, first, err, errlen);
}

int part_check_fd(int fd, uint64_t len, int first, char *err, size_t errlen)
{
	struct rec_reader r;
	int rc = rec_reader_fd(&r, fd, len);
	if (rc == 0)
		rc = part_walk(&r, first, err, errlen);
	if (rc < 0 && rc != -EBADMSG)
		snprintf(err, errlen, "cannot read it back: %s", strerror(-rc));
	rec_reader_free(&r);
	return rc;
}

int p2f_init(struct p2f *w, int fd, int decompress, unsigned max_ratio)
{
	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->decompress = decompress;
	w->max_ratio = max_ratio ? max_ratio : P2F_RATIO_DEFAULT;
	for (int f = 0; f < P2F_FEATS; f++)
		bytes_init(&w->feat[f]);
	bytes_init(&w->carry);
	bytes_init(&w->out);
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
	bytes_free(&w->out);
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

/* n more bytes for the header to keep: within P2F_HELD_MAX?  0 or -EBADMSG. */
static int held_add(struct p2f *w, uint64_t n, char *err, size_t errlen)
{
	if (n > P2F_HELD_MAX - w->held) {
		snprintf(err, errlen, "the stream's header records (attrs, features, build-ids, tracing "
			 "data) pass %u MiB: refused", P2F_HELD_MAX >> 20);
		return -EBADMSG;
	}
	w->held += n;
	return 0;
}

static int attr_take(struct p2f *w, const uint8_t *r, uint16_t size, char *err, size_t errlen)
{
	if (held_add(w, size + sizeof(struct ps_event_desc), err, errlen))
		return -EBADMSG;
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

static int feature_take(struct p2f *w, const uint8_t *r, uint16_t size, char *err, size_t errlen)
{
	if (size < 16)
		return 0;
	if (held_add(w, size, err, errlen))
		return -EBADMSG;
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

/* n bytes of data records; written once P2F_FLUSH bytes wait. */
static int out_add(struct p2f *w, const void *p, size_t n)
{
	bytes_add(&w->out, p, n);
	if (w->out.err)
		return -ENOMEM;
	return w->out.len >= P2F_FLUSH ? data_append(w, &w->out) : 0;
}

/* Whole records of w->carry into the data; the cut tail stays in carry. */
static int carry_drain(struct p2f *w, char *err, size_t errlen)
{
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec r;
	int rc = 0;
	perfsink_kit_rec_iter_init(&it, w->carry.p, w->carry.len);
	while (!rc && perfsink_kit_rec_next(&it, &r)) {
		rc = out_add(w, r.p, r.size);
		w->records++;
	}
	if (!rc && it.stop == PERFSINK_KIT_REC_UNDERSIZE) {
		snprintf(err, errlen, "a decompressed record has size %u", rd16(w->carry.p + it.off + 6));
		return -EBADMSG;
	}
	memmove(w->carry.p, w->carry.p + it.off, w->carry.len - it.off);
	w->carry.len -= it.off;
	return rc;
}

#ifdef HAVE_ZSTD
/* One slice of decompressed bytes more: within the part's limit? */
static int bomb_check(struct p2f *w, size_t n, char *err, size_t errlen)
{
	w->part_out += n;
	if (w->part_out <= w->part_limit)
		return 0;
	snprintf(err, errlen, "decompresses to more than %" PRIu64 " bytes (%u times its size, at "
		 "least %u MiB; --max-ratio raises it): a decompression bomb, refused", w->part_limit,
		 w->max_ratio, P2F_RATIO_FLOOR >> 20);
	return -EBADMSG;
}
#endif

/* A COMPRESSED record's records, a slice of DSLICE bytes at a time. */
static int decompress_record(struct p2f *w, const uint8_t *r, uint16_t size, char *err, size_t errlen)
{
#ifdef HAVE_ZSTD
	enum { DSLICE = 128 * 1024 };
	ZSTD_inBuffer in = { r + 8, size - 8u, 0 };
	for (;;) {
		uint8_t *dst = bytes_reserve(&w->carry, DSLICE);
		if (!dst)
			return -ENOMEM;
		ZSTD_outBuffer o = { dst, DSLICE, 0 };
		size_t ret = ZSTD_decompressStream(w->dctx, &o, &in);
		if (ZSTD_isError(ret)) {
			snprintf(err, errlen, "a COMPRESSED record does not decompress: %s", ZSTD_getErrorName(ret));
			return -EBADMSG;
		}
		w->carry.len += o.pos;
		int rc = bomb_check(w, o.pos, err, errlen);
		if (!rc)
			rc = carry_drain(w, err, errlen);
		if (rc)
			return rc;
		/* Done when the input is used up and zstd had no more to give. */
		if (in.pos == in.size && o.pos < o.size)
			return 0;
	}
#else
	(void)w; (void)r; (void)size;
	snprintf(err, errlen, "COMPRESSED records, and this build has no zstd");
	return -ENOTSUP;
#endif
}

/* The n payload bytes after a record: into b (tracing data), or the data (b NULL). */
static int payload_take(struct p2f *w, struct rec_reader *rr, uint64_t n, struct bytes *b)
{
	while (n) {
		size_t k = n < REC_READER_WINDOW ? (size_t)n : REC_READER_WINDOW;
		const uint8_t *p = rec_reader_peek(rr, k);
		int rc;
		if (!p)
			return rr->err ? rr->err : -EIO;
		if (b) {
			bytes_add(b, p, k);
			rc = b->err;
		} else {
			rc = out_add(w, p, k);
		}
		if (rc)
			return rc;
		rr->off += k;
		n -= k;
	}
	return 0;
}

static int tracing_take(struct p2f *w, struct rec_reader *rr, uint64_t n, char *err, size_t errlen)
{
	struct bytes *b = &w->feat[FEAT_TRACING_DATA];
	w->held -= b->len < w->held ? b->len : w->held;
	b->len = 0;
	w->feat_set |= 1ULL << FEAT_TRACING_DATA;
	if (held_add(w, n, err, errlen))
		return -EBADMSG;
	return payload_take(w, rr, n, b);
}

/* The record at rr->off (rec: its size bytes): into the prologue state or the data. */
static int record_take(struct p2f *w, struct rec_reader *rr, const uint8_t *r, char *err, size_t errlen)
{
	uint32_t type = rd32(r);
	uint16_t size = rd16(r + 6);
	uint64_t extra = rec_payload_size(r);
	int rc;

	switch (type) {
	case PERFSINK_RECORD_HEADER_ATTR:
		rc = attr_take(w, r, size, err, errlen);
		break;
	case PERFSINK_RECORD_HEADER_FEATURE:
		rc = feature_take(w, r, size, err, errlen);
		break;
	case PERFSINK_RECORD_HEADER_TRACING_DATA:
		rr->off += size;
		return tracing_take(w, rr, extra, err, errlen);
	case PERFSINK_RECORD_HEADER_BUILD_ID:
		/* The file's BUILD_ID feature is a list of the same records. */
		rc = held_add(w, size, err, errlen);
		if (!rc) {
			bytes_add(&w->feat[FEAT_BUILD_ID], r, size);
			w->feat_set |= 1ULL << FEAT_BUILD_ID;
			rc = w->feat[FEAT_BUILD_ID].err;
		}
		break;
	case PERFSINK_RECORD_HEADER_EVENT_TYPE:
		rc = 0; /* obsolete; file mode has no place for it */
		break;
	case PERFSINK_RECORD_COMPRESSED:
		if (w->decompress) {
			rc = decompress_record(w, r, size, err, errlen);
			break;
		}
		/* fall through */
	default:
		if (!w->data_offset && !w->nr_ev) {
			snprintf(err, errlen, "a data record before any HEADER_ATTR");
			return -EBADMSG;
		}
		w->records++;
		rc = out_add(w, r, size);
		rr->off += size;
		return rc ? rc : payload_take(w, rr, extra, NULL);
	}
	rr->off += size + extra;
	return rc;
}

/* What a part may change, to take it back when it fails half-way. */
struct p2f_mark {
	uint64_t data_size, records, feat_set, held;
	unsigned nr_ev;
	size_t build_ids;
};

static void mark_take(const struct p2f *w, struct p2f_mark *m)
{
	*m = (struct p2f_mark){ w->data_size, w->records, w->feat_set, w->held, w->nr_ev,
				w->feat[FEAT_BUILD_ID].len };
}

/*
 * Back to m: the data the part wrote is dropped (overwritten by the next,
 * cut by the next checkpoint), so are its attrs and build-ids.  A feature
 * or tracing data it replaced stays replaced.
 */
static void mark_restore(struct p2f *w, const struct p2f_mark *m)
{
	w->data_size = m->data_size;
	w->records = m->records;
	w->feat_set = m->feat_set;
	w->held = m->held;
	while (w->nr_ev > m->nr_ev)
		free((void *)w->ev[--w->nr_ev].ids);
	w->feat[FEAT_BUILD_ID].len = m->build_ids;
	w->out.len = 0;
	w->carry.len = 0;
#ifdef HAVE_ZSTD
	if (w->dctx)
		ZSTD_DCtx_reset(w->dctx, ZSTD_reset_session_only);
#endif
}

static int part_take(struct p2f *w, struct rec_reader *rr, int first, char *err, size_t errlen)
{
	struct p2f_mark m;
	int rc = 0;

	mark_take(w, &m);
	w->part_limit = rr->len > P2F_RATIO_FLOOR / w->max_ratio ? rr->len * w->max_ratio : P2F_RATIO_FLOOR;
	w->part_out = 0;
	if (first) {
		w->saw_header = 1;
		rr->off = PIPE_HEADER_SIZE;
	}
	struct perfsink_kit_rec rec;
	enum perfsink_kit_rec_stop stop;
	while (!rc && rec_reader_next(rr, &rec, &stop))
		rc = record_take(w, rr, rec.p, err, errlen);
	/* A tail under 8 bytes is left as it is (part_check refuses it). */
	if (!rc && (rr->err || stop == PERFSINK_KIT_REC_UNDERSIZE || stop == PERFSINK_KIT_REC_PAST_END)) {
		snprintf(err, errlen, "a record is cut at offset %" PRIu64, rr->off);
		rc = rr->err ? rr->err : -EBADMSG;
	}
	/* Attrs come first in a stream: the header waits for the first data. */
	if (!rc)
		rc = data_append(w, &w->out);
	if (rc)
		mark_restore(w, &m);
	return rc;
}

int p2f_part(struct p2f *w, const uint8_t *part, size_t len, int first, char *err, size_t errlen)
{
	struct rec_reader rr;
	rec_reader_mem(&rr, part, len);
	return part_take(w, &rr, first, err, errlen);
}

int p2f_part_fd(struct p2f *w, int fd, uint64_t len, int first, char *err, size_t errlen)
{
	struct rec_reader rr;
	int rc = rec_reader_fd(&rr, fd, len);
	if (!rc)
		rc = part_take(w, &rr, first, err, errlen);
	rec_reader_free(&rr);
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
