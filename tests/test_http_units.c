/* Unit tests of the http sink's parts: URL checks, record counting and the
 * LOST marker, backoff, the part cutter, the spool. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backoff.h"
#include "compress.h"
#include "http_conf.h"
#include "part.h"
#include "perf_records.h"
#include "spool.h"
#include "transfer.h"

static void test_url_check(void **state)
{
	static const struct { const char *url; int ok; } cases[] = {
		{ "http://127.0.0.1:8080/perf", 1 },
		{ "https://collector.example/perf/", 1 },
		{ "http://[::1]:9000", 1 },
		{ "ftp://127.0.0.1/x", 0 },
		{ "file:///tmp/x", 0 },
		{ "http://", 0 },
		{ "not a url", 0 },
		{ "127.0.0.1:8080", 0 },
		{ "http://user:secret@127.0.0.1/", 0 },
		{ "http://127.0.0.1/x?a=b", 0 },
		{ "http://127.0.0.1/x#frag", 0 },
	};
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = http_url_check(cases[i].url, err, sizeof(err));

		if ((rc == 0) != cases[i].ok)
			fail_msg("url %s: rc %d (%s)", cases[i].url, rc, err);
		/* A rejected URL with credentials must not echo the secret. */
		assert_null(strstr(err, "secret"));
	}
}

static void test_name_sanitize(void **state)
{
	char s[] = "host/na me:1.x_y-z";

	(void)state;
	http_name_sanitize(s);
	assert_string_equal(s, "host_na_me_1.x_y-z");
}

static size_t put_rec(uint8_t *p, uint32_t type, uint16_t size)
{
	memset(p, 0, size);
	memcpy(p, &type, 4);
	memcpy(p + 6, &size, 2);
	return size;
}

static void test_records_count(void **state)
{
	uint8_t buf[256];
	size_t n = 0, rest;

	(void)state;
	n += put_rec(buf + n, 9, 48);
	n += put_rec(buf + n, 3, 32);
	n += put_rec(buf + n, 68, 8);
	assert_int_equal(perf_records_count(buf, n, &rest), 3);
	assert_int_equal(rest, 0);
	/* A cut record is not counted and is reported as rest. */
	assert_int_equal(perf_records_count(buf, n - 4, &rest), 2);
	assert_int_equal(rest, 4);
	/* size 0 stops the walk instead of looping. */
	put_rec(buf, 9, 8);
	memset(buf + 6, 0, 2);
	assert_int_equal(perf_records_count(buf, n, &rest), 0);
	assert_int_equal(rest, n);
}

/* A pipe prologue with one HEADER_ATTR (attr.size 128, ids 59, 60). */
static size_t make_prologue(uint8_t *p, uint64_t sample_type, int sample_id_all)
{
	uint32_t type = 64, asz = 128;
	uint16_t size = 8 + 128 + 16;
	uint64_t flags = sample_id_all ? 1ull << 18 : 0, ids[2] = { 59, 60 };

	memset(p, 0, 16 + size);
	memcpy(p, "PERFILE2", 8);
	p[8] = 16;
	memcpy(p + 16, &type, 4);
	memcpy(p + 16 + 6, &size, 2);
	memcpy(p + 24 + 4, &asz, 4);
	memcpy(p + 24 + 24, &sample_type, 8);
	memcpy(p + 24 + 40, &flags, 8);
	memcpy(p + 24 + 128, ids, 16);
	return 16 + size;
}

static void test_lost_record(void **state)
{
	static const struct { uint64_t st; int sid_all; uint16_t size; } cases[] = {
		{ 0x167, 1, 24 + 24 },    /* TID|TIME|ID: what perf -g gives in pipe mode */
		{ 0x167, 0, 24 },         /* no trailer without sample_id_all */
		{ 0x10086, 1, 24 + 32 },  /* TID|TIME|CPU|IDENTIFIER */
	};
	uint8_t pro[512], rec[PERF_LOST_RECORD_MAX];
	struct lost_template t;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v;
		uint32_t type;
		uint16_t size;
		size_t n = make_prologue(pro, cases[i].st, cases[i].sid_all);

		assert_int_equal(lost_template_from_pipe_header(pro, n, &t), 0);
		assert_int_equal(t.id, 59);
		n = lost_record_write(&t, 1234, rec, sizeof(rec));
		assert_int_equal(n, cases[i].size);
		memcpy(&type, rec, 4);
		memcpy(&size, rec + 6, 2);
		assert_int_equal(type, PERF_REC_LOST);
		assert_int_equal(size, n);
		memcpy(&v, rec + 8, 8);
		assert_int_equal(v, 59);
		memcpy(&v, rec + 16, 8);
		assert_int_equal(v, 1234);
		assert_int_equal(perf_records_count(rec, n, NULL), 1);
	}
	assert_int_equal(lost_template_from_pipe_header(pro, 16, &t), -EINVAL);
	assert_int_equal(lost_record_write(&t, 1, rec, 8), 0);
}

static void test_backoff(void **state)
{
	struct backoff b;
	int64_t ceil = 100;
	int i;

	(void)state;
	backoff_init(&b, 100, 1000, 42);
	for (i = 0; i < 12; i++) {
		int64_t d = backoff_next(&b);

		assert_true(d >= ceil / 2 && d <= ceil);
		if (ceil < 1000)
			ceil = ceil * 2 > 1000 ? 1000 : ceil * 2;
	}
	backoff_reset(&b);
	assert_true(backoff_next(&b) <= 100);
	/* cap below base is raised to base */
	backoff_init(&b, 500, 10, 1);
	assert_true(backoff_next(&b) <= 500);
}

static void test_backoff_jitter(void **state)
{
	struct backoff a, b;
	int i, differ = 0;

	(void)state;
	backoff_init(&a, 1000, 60000, 1);
	backoff_init(&b, 1000, 60000, 2);
	for (i = 0; i < 8; i++)
		differ += backoff_next(&a) != backoff_next(&b);
	assert_true(differ > 0);
}

static void test_cutter(void **state)
{
	/* buffers of whole records; expect seals by size and by latency. */
	static const struct { size_t len; int64_t t; int sealed; size_t sealed_len; } steps[] = {
		{ 400, 0, 0, 0 },
		{ 400, 10, 0, 0 },      /* 800 <= 1000 */
		{ 400, 20, 1, 800 },    /* would be 1200: seal the 800 first */
		{ 1600, 30, 1, 400 },   /* a big buffer makes its own part */
		{ 8, 40, 1, 1600 },
	};
	uint8_t data[2048];
	struct part_cutter c;
	struct part *p;
	size_t i;

	(void)state;
	memset(data, 0, sizeof(data));
	for (i = 0; i < sizeof(data); i += 8)
		put_rec(data + i, 9, 8);
	part_cutter_init(&c, 1000, 100);
	p = part_cutter_meta(&c, "PERFILE2", 8);
	assert_int_equal(p->seq, 0);
	assert_int_equal(p->kind, PART_META);
	part_free(p);
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		assert_int_equal(part_cutter_append(&c, data, steps[i].len, steps[i].len / 8, steps[i].t, &p), 0);
		assert_int_equal(p != NULL, steps[i].sealed);
		if (p) {
			assert_int_equal(p->len, steps[i].sealed_len);
			assert_int_equal(p->records, steps[i].sealed_len / 8);
			/* reserved whole, trimmed when sealed at less than half */
			assert_int_equal(p->cap, p->len < 500 ? p->len : p->len > 1000 ? p->len : 1000);
			part_free(p);
		}
		/* the open part holds its whole size from the start */
		assert_true(c.open->cap >= 1000);
	}
	/* open part (8 bytes, opened at 40) expires at 140 */
	assert_int_equal(part_cutter_deadline(&c), 140);
	assert_null(part_cutter_expire(&c, 139));
	p = part_cutter_expire(&c, 140);
	assert_non_null(p);
	assert_int_equal(p->seq, 4);
	assert_int_equal(p->cap, 8);
	part_free(p);
	assert_null(part_cutter_flush(&c));
	assert_int_equal(part_cutter_deadline(&c), -1);
	part_cutter_destroy(&c);
}

static struct part *mkpart(uint64_t seq, enum part_kind k, const char *key, size_t len)
{
	struct part *p = part_new(seq, k);
	uint8_t *d = calloc(1, len + 1);

	part_append(p, d, len);
	free(d);
	p->key = strdup(key);
	return p;
}

static void test_spool(void **state)
{
	char dir[] = "/tmp/test_http_spoolXXXXXX", err[256], path[512];
	struct spool s;
	struct part *a, *b, *m, *list = NULL, *q;
	int n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(spool_open(&s, dir, "inst", 1000, err, sizeof(err)), 0);
	a = mkpart(1, PART_DATA, "h/s/0000000001", 600);
	b = mkpart(2, PART_DATA, "h/s/0000000002", 600);
	m = mkpart(3, PART_META, "h/s/0000000003", 48);
	assert_int_equal(spool_put(&s, a), 0);
	assert_int_equal(spool_put(&s, b), -ENOSPC);     /* cap */
	assert_int_equal(spool_put(&s, m), 0);           /* meta ignores the cap */
	assert_int_equal(s.used, 648);
	/* a leftover .tmp is removed by a scan */
	snprintf(path, sizeof(path), "%s/inst/h/s/0000000009.tmp", dir);
	fclose(fopen(path, "w"));
	n = spool_scan(&s, &list);
	assert_int_equal(n, 2);
	assert_string_equal(list->key, "h/s/0000000001");
	assert_string_equal(list->next->key, "h/s/0000000003");
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(spool_load(&s, list), 0);
	assert_int_equal(list->len, 600);
	while ((q = list)) {
		list = q->next;
		spool_remove(&s, q);
		part_free(q);
	}
	assert_int_equal(s.used, 0);
	/* empty session and host directories are removed */
	snprintf(path, sizeof(path), "%s/inst/h", dir);
	assert_int_equal(access(path, F_OK), -1);
	part_free(a);
	part_free(b);
	part_free(m);
	spool_close(&s);
	snprintf(path, sizeof(path), "%s/inst", dir);
	rmdir(path);
	rmdir(dir);
}

static void test_spool_unwritable(void **state)
{
	char err[256];
	struct spool s;

	(void)state;
	/* a path below a regular file can never be created */
	assert_true(spool_open(&s, "/dev/null/spool", "inst", 1000, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "/dev/null/spool"));
}

static void test_transfer_url(void **state)
{
	char url1[] = "http://127.0.0.1:8080/perf", url2[] = "http://127.0.0.1:5000";
	char url3[] = "https://s3.eu-west-1.amazonaws.com";
	struct http_conf c;
	char *u;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.mode = MODE_HTTP;
	c.url = url1;
	u = transfer_url(&c, "h/s/0000000001");
	assert_string_equal(u, "http://127.0.0.1:8080/perf/h/s/0000000001");
	free(u);
	c.mode = MODE_S3;
	c.bucket = "bkt";
	c.prefix = "/runs/a b";
	c.path_style = 1;
	c.url = url2;
	u = transfer_url(&c, "h/s/0000000001");
	assert_string_equal(u, "http://127.0.0.1:5000/bkt/runs/a_b/h/s/0000000001");
	free(u);
	c.path_style = 0;
	c.prefix = "";
	c.url = url3;
	u = transfer_url(&c, "h/s/0000000001");
	assert_string_equal(u, "https://bkt.s3.eu-west-1.amazonaws.com/h/s/0000000001");
	free(u);
}

#ifdef HTTP_WITH_ZSTD
#include <zstd.h>

/* Decode a compressor's output back to records (COMPRESSED expanded). */
static size_t expand(const uint8_t *d, size_t n, uint8_t *out, size_t cap, int *nr_comp)
{
	size_t off = 0, o = 0;

	*nr_comp = 0;
	while (off < n) {
		uint32_t type;
		uint16_t size;

		memcpy(&type, d + off, 4);
		memcpy(&size, d + off + 6, 2);
		if (type == PERF_REC_COMPRESSED) {
			size_t z = ZSTD_decompress(out + o, cap - o, d + off + 8, size - 8u);

			assert_false(ZSTD_isError(z));
			assert_true(z <= COMPRESS_MMAP_LEN);
			o += z;
			(*nr_comp)++;
		} else {
			memcpy(out + o, d + off, size);
			o += size;
		}
		off += size;
	}
	return o;
}

static void test_compress(void **state)
{
	static uint8_t in[250000], back[250000];
	struct compressor *c = compressor_new(1);
	const uint8_t *out;
	size_t n = 0, out_len, i;
	uint64_t tin, tout;
	int nr_comp;

	(void)state;
	assert_non_null(c);
	/* 150 KB of compressible samples, one incompressible 60000-byte record,
	 * then a FINISHED_ROUND (tail_round 8). */
	while (n < 150000)
		n += put_rec(in + n, 9, 48);
	put_rec(in + n, 9, 60000);
	srand(1);
	for (i = 8; i < 60000; i++)
		in[n + i] = (uint8_t)rand();
	n += 60000;
	n += put_rec(in + n, 68, 8);
	assert_int_equal(compressor_run(c, in, n, 8, &out, &out_len), 0);
	assert_true(out_len < n);
	assert_int_equal(expand(out, out_len, back, sizeof(back), &nr_comp), n);
	assert_memory_equal(back, in, n);
	assert_true(nr_comp >= 150000 / COMPRESS_CHUNK_MAX);
	/* the FINISHED_ROUND is the last record, as it was */
	assert_memory_equal(out + out_len - 8, in + n - 8, 8);
	compressor_totals(c, &tin, &tout);
	assert_int_equal(tin, n);
	assert_int_equal(tout, out_len);
	compressor_free(c);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url_check),
		cmocka_unit_test(test_name_sanitize),
		cmocka_unit_test(test_records_count),
		cmocka_unit_test(test_lost_record),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_backoff_jitter),
		cmocka_unit_test(test_cutter),
		cmocka_unit_test(test_spool),
		cmocka_unit_test(test_spool_unwritable),
		cmocka_unit_test(test_transfer_url),
#ifdef HTTP_WITH_ZSTD
		cmocka_unit_test(test_compress),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
