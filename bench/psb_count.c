/*
 * Count what a perf.data (file or pipe mode) holds, without perf: samples
 * per process group, LOST and LOST_SAMPLES, PERF_RECORD_COMPRESSED payloads
 * (zstd, one stream across the file, records straddling payloads).
 *
 *   psb_count FILE [--workload PID,...] [--recorder PID,...]
 *
 * Prints one JSON object: samples, samples_workload (sample pid in the
 * --workload list), samples_recorder (in the --recorder list), lost_records
 * and lost (sum of PERF_RECORD_LOST.lost), lost_samples (sum of
 * LOST_SAMPLES.lost), records, mode, file_bytes, data_bytes (records before
 * compression), stored_bytes (records as stored in the data section),
 * compressed_records, compressed_bytes (their payloads).
 */
#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <perfsink/sink.h> /* perf's user record types */
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

#define MAX_ATTRS 64
#define MAX_PIDS 1024

struct attr_ids {
	uint64_t sample_type;
	uint64_t *ids;
	size_t nr_ids;
};

struct counts {
	uint64_t samples, samples_workload, samples_recorder;
	uint64_t lost_records, lost, lost_samples, records;
	uint64_t data_bytes, stored_bytes, compressed_records, compressed_bytes;
	uint64_t unknown_ids, bad_records;
};

struct counter {
	struct attr_ids attrs[MAX_ATTRS];
	unsigned nr_attrs;
	int32_t wl[MAX_PIDS], rec[MAX_PIDS];
	unsigned nr_wl, nr_rec;
	struct counts c;
	/* decompressed bytes not yet parsed into whole records */
	uint8_t *carry;
	size_t carry_len, carry_cap;
#ifdef HAVE_ZSTD
	ZSTD_DStream *ds;
#endif
};

static int fail(const char *msg, const char *path)
{
	fprintf(stderr, "psb_count: %s: %s\n", path, msg);
	return 2;
}

static bool in_list(const int32_t *l, unsigned n, int32_t pid)
{
	for (unsigned i = 0; i < n; i++)
		if (l[i] == pid)
			return true;
	return false;
}

static unsigned parse_pids(const char *s, int32_t *out)
{
	unsigned n = 0;
	while (*s && n < MAX_PIDS) {
		char *end;
		long v = strtol(s, &end, 10);
		if (end == s)
			break;
		out[n++] = (int32_t)v;
		s = *end ? end + 1 : end;
	}
	return n;
}

static const struct attr_ids *attr_of_id(const struct counter *k, uint64_t id)
{
	for (unsigned a = 0; a < k->nr_attrs; a++)
		for (size_t i = 0; i < k->attrs[a].nr_ids; i++)
			if (k->attrs[a].ids[i] == id)
				return &k->attrs[a];
	return NULL;
}

/* The pid of a SAMPLE: after [IDENTIFIER] and [IP]. */
static void count_sample(struct counter *k, const uint8_t *p, size_t len)
{
	k->c.samples++;
	if (!k->nr_attrs)
		return;
	const struct attr_ids *a = &k->attrs[0];
	size_t off = 8;
	if (a->sample_type & PERF_SAMPLE_IDENTIFIER) {
		uint64_t id;
		if (len < 16)
			return;
		memcpy(&id, p + 8, 8);
		const struct attr_ids *b = attr_of_id(k, id);
		if (!b) {
			k->c.unknown_ids++;
			return;
		}
		a = b;
		off += 8;
	}
	if (a->sample_type & PERF_SAMPLE_IP)
		off += 8;
	if (!(a->sample_type & PERF_SAMPLE_TID) || off + 8 > len)
		return;
	int32_t pid;
	memcpy(&pid, p + off, 4);
	if (in_list(k->wl, k->nr_wl, pid))
		k->c.samples_workload++;
	if (in_list(k->rec, k->nr_rec, pid))
		k->c.samples_recorder++;
}

static void count_decompressed(struct counter *k, const uint8_t *p, size_t len);
static size_t count_records_at(struct counter *k, const uint8_t *p, size_t len, bool top);

/* Records after a COMPRESSED one (whose size is not padded) are not aligned. */
static struct perf_event_header header_at(const uint8_t *p)
{
	struct perf_event_header h;
	memcpy(&h, p, sizeof(h));
	return h;
}

static void count_record(struct counter *k, const uint8_t *p, size_t len)
{
	struct perf_event_header hd = header_at(p), *h = &hd;
	k->c.records++;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		count_sample(k, p, len);
		break;
	case PERF_RECORD_LOST:
		if (len >= 24) {
			uint64_t v;
			memcpy(&v, p + 16, 8);
			k->c.lost_records++;
			k->c.lost += v;
		}
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (len >= 16) {
			uint64_t v;
			memcpy(&v, p + 8, 8);
			k->c.lost_samples += v;
		}
		break;
	case PERFSINK_RECORD_COMPRESSED:
		k->c.compressed_records++;
		k->c.compressed_bytes += len - 8;
		count_decompressed(k, p + 8, len - 8);
		break;
	default:
		break;
	}
	if (h->type != PERFSINK_RECORD_COMPRESSED)
		k->c.data_bytes += len;
}

/* Whole records from p; returns the bytes consumed. */
static size_t count_records(struct counter *k, const uint8_t *p, size_t len)
{
	return count_records_at(k, p, len, false);
}

static size_t count_records_at(struct counter *k, const uint8_t *p, size_t len, bool top)
{
	size_t off = 0;
	while (off + sizeof(struct perf_event_header) <= len) {
		struct perf_event_header hd = header_at(p + off), *h = &hd;
		if (h->size < sizeof(*h)) {
			k->c.bad_records++;
			return len;
		}
		if (off + h->size > len)
			break;
		count_record(k, p + off, h->size);
		if (top)
			k->c.stored_bytes += h->size;
		off += h->size;
	}
	return off;
}

static int carry_append(struct counter *k, const uint8_t *p, size_t n)
{
	if (k->carry_len + n > k->carry_cap) {
		size_t cap = (k->carry_len + n) * 2;
		uint8_t *c = realloc(k->carry, cap);
		if (!c)
			return -ENOMEM;
		k->carry = c;
		k->carry_cap = cap;
	}
	memcpy(k->carry + k->carry_len, p, n);
	k->carry_len += n;
	return 0;
}

static void count_decompressed(struct counter *k, const uint8_t *p, size_t len)
{
#ifdef HAVE_ZSTD
	if (!k->ds) {
		k->ds = ZSTD_createDStream();
		ZSTD_initDStream(k->ds);
	}
	static uint8_t out[1 << 17];
	ZSTD_inBuffer in = { p, len, 0 };
	ZSTD_outBuffer o = { out, sizeof(out), sizeof(out) };
	/* A full output buffer may hide more bytes even when the input is used up. */
	while (in.pos < in.size || o.pos == o.size) {
		o.pos = 0;
		size_t r = ZSTD_decompressStream(k->ds, &o, &in);
		if (ZSTD_isError(r)) {
			k->c.bad_records++;
			return;
		}
		if (carry_append(k, out, o.pos) < 0)
			return;
		if (r == 0) /* a frame ended: independent frames may follow */
			ZSTD_initDStream(k->ds);
	}
	/* Records inside decompressed data are not counted as COMPRESSED bytes. */
	size_t used = count_records(k, k->carry, k->carry_len);
	memmove(k->carry, k->carry + used, k->carry_len - used);
	k->carry_len -= used;
#else
	(void)p;
	(void)len;
	k->c.bad_records++;
#endif
}

static int add_attr(struct counter *k, uint64_t sample_type, const void *ids, size_t nr)
{
	if (k->nr_attrs == MAX_ATTRS)
		return -ENOSPC;
	struct attr_ids *a = &k->attrs[k->nr_attrs++];
	a->sample_type = sample_type;
	a->nr_ids = nr;
	a->ids = malloc((nr ? nr : 1) * sizeof(uint64_t));
	if (!a->ids)
		return -ENOMEM;
	if (nr)
		memcpy(a->ids, ids, nr * sizeof(uint64_t));
	return 0;
}

static int count_file_mode(struct counter *k, const uint8_t *m, size_t size, const char *path)
{
	uint64_t hsize, attr_size, attrs_off, attrs_size, data_off, data_size;
	memcpy(&hsize, m + 8, 8);
	memcpy(&attr_size, m + 16, 8);
	memcpy(&attrs_off, m + 24, 8);
	memcpy(&attrs_size, m + 32, 8);
	memcpy(&data_off, m + 40, 8);
	memcpy(&data_size, m + 48, 8);
	if (attr_size < 16 || attrs_off + attrs_size > size || data_off + data_size > size)
		return fail("bad header sections", path);
	if (data_size == 0)
		return fail("data.size is 0 (not finished)", path);
	for (uint64_t a = attrs_off; a + attr_size <= attrs_off + attrs_size; a += attr_size) {
		uint64_t st, ids_off, ids_size;
		memcpy(&st, m + a + offsetof(struct perf_event_attr, sample_type), 8);
		memcpy(&ids_off, m + a + attr_size - 16, 8);
		memcpy(&ids_size, m + a + attr_size - 8, 8);
		if (ids_off + ids_size > size)
			return fail("bad ids section", path);
		if (add_attr(k, st, m + ids_off, ids_size / 8) < 0)
			return fail("too many attrs", path);
	}
	count_records_at(k, m + data_off, data_size, true);
	return 0;
}

static int count_pipe_mode(struct counter *k, const uint8_t *m, size_t size, const char *path)
{
	size_t off = 16;
	while (off + 8 <= size) {
		struct perf_event_header hd = header_at(m + off), *h = &hd;
		if (h->size < 8 || off + h->size > size)
			break;
		if (h->type == PERFSINK_RECORD_HEADER_ATTR && h->size >= 8 + 8) {
			uint32_t asz;
			memcpy(&asz, m + off + 8 + 4, 4);
			uint64_t st;
			memcpy(&st, m + off + 8 + offsetof(struct perf_event_attr, sample_type), 8);
			size_t nr = asz + 8 <= h->size ? (h->size - 8 - asz) / 8 : 0;
			if (add_attr(k, st, m + off + 8 + asz, nr) < 0)
				return fail("too many attrs", path);
		} else if (h->type == PERFSINK_RECORD_HEADER_TRACING_DATA && h->size >= 16) {
			uint32_t extra;
			memcpy(&extra, m + off + 8, 4);
			off += h->size + extra; /* the blob is not counted in header.size */
			continue;
		} else {
			count_record(k, m + off, h->size);
			k->c.stored_bytes += h->size;
		}
		off += h->size;
	}
	if (off < size)
		k->c.bad_records++; /* cut off stream */
	return 0;
}

int main(int argc, char **argv)
{
	static struct counter k;
	if (argc < 2) {
		fprintf(stderr, "usage: psb_count FILE [--workload PID,...] [--recorder PID,...]\n");
		return 2;
	}
	for (int i = 2; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--workload"))
			k.nr_wl = parse_pids(argv[i + 1], k.wl);
		else if (!strcmp(argv[i], "--recorder"))
			k.nr_rec = parse_pids(argv[i + 1], k.rec);
		else
			return fail("unknown option", argv[i]);
	}
	const char *path = argv[1];
	FILE *f = fopen(path, "rb");
	if (!f)
		return fail(strerror(errno), path);
	struct stat st;
	if (fstat(fileno(f), &st) < 0 || st.st_size < 16) {
		fclose(f);
		return fail("too short", path);
	}
	size_t size = (size_t)st.st_size;
	/* Files reach gigabytes: map, do not copy. */
	uint8_t *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fileno(f), 0);
	fclose(f);
	if (m == MAP_FAILED)
		return fail(strerror(errno), path);
	madvise(m, size, MADV_SEQUENTIAL);
	if (memcmp(m, "PERFILE2", 8))
		return fail("not a perf.data file (magic)", path);
	uint64_t hsize;
	memcpy(&hsize, m + 8, 8);
	bool pipe = hsize == 16;
	int r = pipe ? count_pipe_mode(&k, m, size, path) : count_file_mode(&k, m, size, path);
	if (r)
		return r;
	printf("{\"mode\": \"%s\", \"file_bytes\": %zu, \"records\": %llu, \"samples\": %llu, "
	       "\"samples_workload\": %llu, \"samples_recorder\": %llu, \"lost_records\": %llu, "
	       "\"lost\": %llu, \"lost_samples\": %llu, \"data_bytes\": %llu, \"stored_bytes\": %llu, "
	       "\"compressed_records\": %llu, \"compressed_bytes\": %llu, \"unknown_ids\": %llu, "
	       "\"bad_records\": %llu}\n",
	       pipe ? "pipe" : "file", size, (unsigned long long)k.c.records,
	       (unsigned long long)k.c.samples, (unsigned long long)k.c.samples_workload,
	       (unsigned long long)k.c.samples_recorder, (unsigned long long)k.c.lost_records,
	       (unsigned long long)k.c.lost, (unsigned long long)k.c.lost_samples,
	       (unsigned long long)k.c.data_bytes, (unsigned long long)k.c.stored_bytes,
	       (unsigned long long)k.c.compressed_records,
	       (unsigned long long)k.c.compressed_bytes, (unsigned long long)k.c.unknown_ids,
	       (unsigned long long)k.c.bad_records);
	munmap(m, size);
	return 0;
}
