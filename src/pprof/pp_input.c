/* A recording as records; see pp_input.h. */
#include "pprof/pp_input.h"
#include "fetch/rec_reader.h"
#include "format/record.h"

#include <errno.h>
#include <perfsink/kit.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

#define FILE_HEADER 104
#define PIPE_HEADER 16
#define FEAT_BUILD_ID 2
#define FEAT_HOSTNAME 3
#define FEAT_EVENT_DESC 12
#define REC_HEADER_BUILD_ID 67
#define EVENT_UPDATE_NAME 2
#define MISC_BUILD_ID_SIZE (1u << 15)

static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

static int fail(char *err, size_t n, int rc, const char *why)
{
	snprintf(err, n, "%s", why);
	return rc;
}

/* perf's names for the events people sample on; the rest by type:config. */
static char *default_name(const struct perf_event_attr *a)
{
	static const char *const sw[] = { "cpu-clock", "task-clock", "page-faults", "context-switches",
					  "cpu-migrations", "minor-faults", "major-faults" };
	static const char *const hw[] = { "cycles", "instructions", "cache-references", "cache-misses",
					  "branches", "branch-misses" };
	char buf[64];
	if (a->type == PERF_TYPE_SOFTWARE && a->config < sizeof(sw) / sizeof(sw[0]))
		return strdup(sw[a->config]);
	if (a->type == PERF_TYPE_HARDWARE && a->config < sizeof(hw) / sizeof(hw[0]))
		return strdup(hw[a->config]);
	snprintf(buf, sizeof(buf), "event-%u:0x%llx", a->type, (unsigned long long)a->config);
	return strdup(buf);
}

/* Add an event from an attr of sz bytes and its ids. */
static int event_add(struct pp_input *in, const uint8_t *attr, size_t sz, const uint8_t *ids, size_t nids)
{
	struct pp_event *ev = realloc(in->ev, (in->nr_ev + 1) * sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	in->ev = ev;
	ev += in->nr_ev;
	memset(ev, 0, sizeof(*ev));
	memcpy(&ev->attr, attr, sz < sizeof(ev->attr) ? sz : sizeof(ev->attr));
	ev->ids = calloc(nids + 1, sizeof(*ev->ids));
	ev->name = default_name(&ev->attr);
	if (!ev->ids || !ev->name) {
		free(ev->ids);
		free(ev->name);
		return -ENOMEM;
	}
	memcpy(ev->ids, ids, nids * 8);
	ev->nr_ids = (unsigned)nids;
	in->nr_ev++;
	return 0;
}

static int event_rename(struct pp_event *ev, const char *name, size_t max)
{
	char *s = strndup(name, max);
	if (!s)
		return -ENOMEM;
	free(ev->name);
	ev->name = s;
	return 0;
}

/* EVENT_DESC: names for the events, in attr order. */
static int feat_event_desc(struct pp_input *in, const uint8_t *p, size_t len)
{
	if (len < 8)
		return 0;
	uint32_t nr = rd32(p), sz = rd32(p + 4);
	size_t o = 8;
	for (uint32_t i = 0; i < nr && o + sz + 8 <= len; i++) {
		uint32_t nids = rd32(p + o + sz), slen = rd32(p + o + sz + 4);
		size_t so = o + sz + 8;
		if (slen > len - so)
			break;
		if (i < in->nr_ev && event_rename(&in->ev[i], (const char *)p + so, slen))
			return -ENOMEM;
		o = so + slen + (size_t)nids * 8;
	}
	return 0;
}

/* One BUILD_ID entry (perf_record_header_build_id) of size bytes. */
static int buildid_take(struct pp_input *in, const uint8_t *r, uint16_t size)
{
	if (size < 8 + 4 + 24 + 1)
		return 0;
	uint16_t misc;
	memcpy(&misc, r + 4, 2);
	unsigned n = misc & MISC_BUILD_ID_SIZE ? r[8 + 4 + 20] : 20;
	struct pp_buildid *b = realloc(in->bid, (in->nr_bid + 1) * sizeof(*b));
	if (!b)
		return -ENOMEM;
	in->bid = b;
	b += in->nr_bid;
	if (n > 20)
		n = 20;
	for (unsigned i = 0; i < n; i++)
		snprintf(b->hex + 2 * i, 3, "%02x", r[12 + i]);
	b->hex[2 * n] = 0;
	if (!(b->file = strndup((const char *)r + 36, size - 36u)))
		return -ENOMEM;
	in->nr_bid++;
	return 0;
}

static int feat_build_id(struct pp_input *in, const uint8_t *p, size_t len)
{
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec r;
	perfsink_kit_rec_iter_init(&it, p, len);
	while (perfsink_kit_rec_next(&it, &r)) {
		int rc = buildid_take(in, r.p, r.size);
		if (rc)
			return rc;
	}
	return 0;
}

/* HOSTNAME: a perf string (u32 length with its padding, then the bytes);
 * the first input's host titles a flame graph. */
static int feat_hostname(struct pp_input *in, const uint8_t *p, size_t len)
{
	if (len < 4)
		return 0;
	size_t n = rd32(p);
	n = n < len - 4 ? n : len - 4;
	n = strnlen((const char *)p + 4, n);
	n = n < sizeof(in->hostname) - 1 ? n : sizeof(in->hostname) - 1;
	memcpy(in->hostname, p + 4, n);
	in->hostname[n] = 0;
	return 0;
}

static int feature(struct pp_input *in, unsigned feat, const uint8_t *p, size_t len)
{
	if (feat == FEAT_HOSTNAME)
		return feat_hostname(in, p, len);
	if (feat == FEAT_EVENT_DESC)
		return feat_event_desc(in, p, len);
	if (feat == FEAT_BUILD_ID)
		return feat_build_id(in, p, len);
	return 0;
}

static int pread_all(FILE *f, void *buf, size_t n, uint64_t off)
{
	if (fseeko(f, (off_t)off, SEEK_SET) || fread(buf, 1, n, f) != n)
		return -EIO;
	return 0;
}

/* File mode: the attrs section and the features after the data. */
static int file_header(struct pp_input *in, const uint8_t *h, char *err, size_t n)
{
	uint64_t attr_size = rd64(h + 16), attrs_off = rd64(h + 24), attrs_len = rd64(h + 32);
	uint64_t data_off = rd64(h + 40), data_len = rd64(h + 48);
	/* Each entry: the attr, then where its ids are (attr_size counts both). */
	if (attr_size < 64 + 16 || attr_size > 4096 || attrs_len > (64u << 20))
		return fail(err, n, -EINVAL, "the header's attr section is not perf's");
	uint8_t *a = malloc(attrs_len + 1);
	int rc = a ? pread_all(in->f, a, attrs_len, attrs_off) : -ENOMEM;
	attr_size -= 16;
	for (uint64_t o = 0; !rc && o + attr_size + 16 <= attrs_len; o += attr_size + 16) {
		uint64_t ioff = rd64(a + o + attr_size), ilen = rd64(a + o + attr_size + 8);
		uint8_t *ids = ilen <= (16u << 20) ? malloc(ilen + 1) : NULL;
		rc = ids ? pread_all(in->f, ids, ilen, ioff) : -ENOMEM;
		if (!rc)
			rc = event_add(in, a + o, attr_size, ids, ilen / 8);
		free(ids);
	}
	free(a);
	for (unsigned feat = 1, k = 0; !rc && feat < 256; feat++) {
		if (!(rd64(h + 72 + 8 * (feat / 64)) >> (feat % 64) & 1))
			continue;
		uint8_t sec[16];
		rc = pread_all(in->f, sec, 16, data_off + data_len + 16 * k++);
		uint64_t off = rd64(sec), len = rd64(sec + 8);
		if (rc || (feat != FEAT_EVENT_DESC && feat != FEAT_BUILD_ID && feat != FEAT_HOSTNAME) || len > (256u << 20))
			continue;
		uint8_t *p = malloc(len + 1);
		rc = p ? pread_all(in->f, p, len, off) : -ENOMEM;
		if (!rc)
			rc = feature(in, feat, p, len);
		free(p);
	}
	if (rc)
		return fail(err, n, rc, rc == -ENOMEM ? "out of memory"
					      : "the header's sections are cut short (perfsink recover repairs a cut file)");
	in->left = data_len;
	return fseeko(in->f, (off_t)data_off, SEEK_SET) ? fail(err, n, -EIO, "cannot seek to the data") : 0;
}

int pp_input_open(struct pp_input *in, const char *path, char *err, size_t n)
{
	uint8_t h[FILE_HEADER];
	memset(in, 0, sizeof(*in));
	bytes_init(&in->inner);
	in->path = path;
	in->f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!in->f) {
		int e = errno;
		snprintf(err, n, "%s", strerror(e));
		return -e;
	}
	if (!(in->rec = malloc(1u << 16)))
		return fail(err, n, -ENOMEM, "out of memory");
	if (fread(h, 1, PIPE_HEADER, in->f) != PIPE_HEADER || memcmp(h, "PERFILE2", 8))
		return fail(err, n, -EINVAL, "not a perf recording (no PERFILE2 header)");
	if (rd64(h + 8) == PIPE_HEADER) {
		in->pipe = 1;
		in->left = UINT64_MAX;
		return 0;
	}
	if (rd64(h + 8) != FILE_HEADER || fread(h + PIPE_HEADER, 1, FILE_HEADER - PIPE_HEADER, in->f) !=
						   FILE_HEADER - PIPE_HEADER)
		return fail(err, n, -EINVAL, "a perf.data header of an unknown size");
	return file_header(in, h, err, n);
}

void pp_input_close(struct pp_input *in)
{
	if (in->f && in->f != stdin)
		fclose(in->f);
	for (unsigned i = 0; i < in->nr_ev; i++) {
		free(in->ev[i].name);
		free(in->ev[i].ids);
	}
	for (unsigned i = 0; i < in->nr_bid; i++)
		free(in->bid[i].file);
	free(in->ev);
	free(in->bid);
	free(in->rec);
	bytes_free(&in->inner);
#ifdef HAVE_ZSTD
	ZSTD_freeDCtx(in->dctx);
#endif
	memset(in, 0, sizeof(*in));
}

/* The pipe format's own records: attrs, names and features. */
static int pipe_record(struct pp_input *in, const uint8_t *r, uint16_t size)
{
	uint32_t type = rd32(r);
	if (type == PERFSINK_RECORD_HEADER_ATTR && size >= 8 + 64) {
		uint32_t asz = rd32(r + 8 + 4);
		if (asz < 64 || asz > size - 8u)
			return 0;
		return event_add(in, r + 8, asz, r + 8 + asz, (size - 8u - asz) / 8);
	}
	if (type == PERFSINK_RECORD_EVENT_UPDATE && size > 24 && rd64(r + 8) == EVENT_UPDATE_NAME) {
		for (unsigned i = 0; i < in->nr_ev; i++)
			for (unsigned j = 0; j < in->ev[i].nr_ids; j++)
				if (in->ev[i].ids[j] == rd64(r + 16))
					return event_rename(&in->ev[i], (const char *)r + 24, size - 24u);
		return 0;
	}
	if (type == PERFSINK_RECORD_HEADER_FEATURE && size >= 16)
		return feature(in, (unsigned)rd64(r + 8), r + 16, size - 16u);
	if (type == REC_HEADER_BUILD_ID)
		return buildid_take(in, r, size);
	return 1; /* not one of them */
}

/* The whole records in inner, handed out; *used: the bytes they took. */
static int inner_records(struct pp_input *in, pp_record_fn fn, void *ctx, size_t *used)
{
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec r;
	int rc = 0;
	*used = 0;
	perfsink_kit_rec_iter_init(&it, in->inner.p, in->inner.len);
	while (!rc && perfsink_kit_rec_next(&it, &r)) {
		rc = pipe_record(in, r.p, r.size);
		rc = rc == 1 ? fn(ctx, in, r.p, r.size) : rc;
		in->records++;
	}
	if (!rc && it.stop == PERFSINK_KIT_REC_UNDERSIZE)
		return -EINVAL;
	*used = it.off;
	return rc;
}

#ifdef HAVE_ZSTD
static int decompress(struct pp_input *in, const uint8_t *r, uint16_t size, pp_record_fn fn, void *ctx)
{
	if (!in->dctx && !(in->dctx = ZSTD_createDCtx()))
		return -ENOMEM;
	ZSTD_inBuffer zin = { r + 8, size - 8u, 0 };
	int rc = 0;
	while (!rc && zin.pos < zin.size) {
		uint8_t *dst = bytes_reserve(&in->inner, 1u << 17);
		if (!dst)
			return -ENOMEM;
		ZSTD_outBuffer out = { dst, 1u << 17, 0 };
		size_t z = ZSTD_decompressStream(in->dctx, &out, &zin);
		if (ZSTD_isError(z))
			return -EBADMSG;
		in->inner.len += out.pos;
		size_t used;
		rc = inner_records(in, fn, ctx, &used);
		memmove(in->inner.p, in->inner.p + used, in->inner.len - used);
		in->inner.len -= used;
	}
	return rc;
}
#else
static int decompress(struct pp_input *in, const uint8_t *r, uint16_t size, pp_record_fn fn, void *ctx)
{
	(void)in, (void)r, (void)size, (void)fn, (void)ctx;
	return -ENOTSUP;
}
#endif

/* Skip n bytes of payload after a record (pipe TRACING_DATA, AUXTRACE). */
static int skip(struct pp_input *in, uint64_t n)
{
	while (n) {
		size_t k = n > (1u << 16) ? 1u << 16 : (size_t)n;
		if (fread(in->rec, 1, k, in->f) != k)
			return -EIO;
		n -= k;
		in->left -= k;
	}
	return 0;
}

static int one(struct pp_input *in, pp_record_fn fn, void *ctx, char *err, size_t n)
{
	uint8_t *r = in->rec;
	uint16_t size;
	memcpy(&size, r + 6, 2);
	if (size < 8 || size - 8u > in->left || fread(r + 8, 1, size - 8u, in->f) != size - 8u)
		return fail(err, n, -EIO, "a record is cut short");
	in->left -= size - 8u;
	uint32_t type = rd32(r);
	int rc;
	if (type == PERFSINK_RECORD_COMPRESSED) {
		in->compressed++;
		rc = decompress(in, r, size, fn, ctx);
		if (rc == -ENOTSUP)
			return fail(err, n, rc, "COMPRESSED records, and this perfsink was built without zstd");
		if (rc == -EBADMSG)
			return fail(err, n, rc, "a COMPRESSED record does not decompress");
		return rc;
	}
	in->records++;
	rc = pipe_record(in, r, size);
	rc = rc == 1 ? fn(ctx, in, r, size) : rc;
	return rc ? rc : skip(in, rec_payload_size(r));
}

int pp_input_run(struct pp_input *in, pp_record_fn fn, void *ctx, char *err, size_t n)
{
	int rc = 0;
	while (!rc && in->left >= 8) {
		size_t k = fread(in->rec, 1, 8, in->f);
		if (k == 0 && in->pipe && feof(in->f))
			break;
		if (k != 8)
			return fail(err, n, -EIO, "a record header is cut short");
		in->left -= 8;
		rc = one(in, fn, ctx, err, n);
	}
	if (rc == -ENOMEM)
		snprintf(err, n, "out of memory");
	return rc;
}

const struct pp_event *pp_input_event(const struct pp_input *in, uint64_t id)
{
	if (in->nr_ev == 1)
		return &in->ev[0];
	for (unsigned i = 0; i < in->nr_ev; i++)
		for (unsigned j = 0; j < in->ev[i].nr_ids; j++)
			if (in->ev[i].ids[j] == id)
				return &in->ev[i];
	return NULL;
}

const char *pp_input_buildid(const struct pp_input *in, const char *file)
{
	for (unsigned i = 0; i < in->nr_bid; i++)
		if (!strcmp(in->bid[i].file, file))
			return in->bid[i].hex;
	return NULL;
}
