/* Unit tests of the http sink's parts: URL checks, record counting and the
 * LOST marker, backoff, the part cutter, the spool, the part validator and
 * the spool's refusals and quarantine. */
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
#include <time.h>
#include <unistd.h>

#include <perfsink/kit.h>

#include <perfsink/collector.h>
#include "http_conf.h"
#include "part.h"
#include <perfsink/collector_ship.h>

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
	assert_int_equal(perfsink_kit_records_count(buf, n, &rest), 3);
	assert_int_equal(rest, 0);
	/* A cut record is not counted and is reported as rest. */
	assert_int_equal(perfsink_kit_records_count(buf, n - 4, &rest), 2);
	assert_int_equal(rest, 4);
	/* size 0 stops the walk instead of looping. */
	put_rec(buf, 9, 8);
	memset(buf + 6, 0, 2);
	assert_int_equal(perfsink_kit_records_count(buf, n, &rest), 0);
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
	uint8_t pro[512], rec[PERFSINK_KIT_LOST_RECORD_MAX];
	struct perfsink_kit_lost_template t;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v;
		uint32_t type;
		uint16_t size;
		size_t n = make_prologue(pro, cases[i].st, cases[i].sid_all);

		assert_int_equal(perfsink_kit_lost_template_from_pipe_header(pro, n, &t), 0);
		assert_int_equal(t.id, 59);
		n = perfsink_kit_lost_record_write(&t, 1234, rec, sizeof(rec));
		assert_int_equal(n, cases[i].size);
		memcpy(&type, rec, 4);
		memcpy(&size, rec + 6, 2);
		assert_int_equal(type, PERFSINK_KIT_REC_LOST);
		assert_int_equal(size, n);
		memcpy(&v, rec + 8, 8);
		assert_int_equal(v, 59);
		memcpy(&v, rec + 16, 8);
		assert_int_equal(v, 1234);
		assert_int_equal(perfsink_kit_records_count(rec, n, NULL), 1);
	}
	assert_int_equal(perfsink_kit_lost_template_from_pipe_header(pro, 16, &t), -EINVAL);
	assert_int_equal(perfsink_kit_lost_record_write(&t, 1, rec, 8), 0);
}

static void test_backoff(void **state)
{
	struct perfsink_coll_backoff b;
	int64_t ceil = 100;
	int i;

	(void)state;
	perfsink_coll_backoff_init(&b, 100, 1000, 42);
	for (i = 0; i < 12; i++) {
		int64_t d = perfsink_coll_backoff_next(&b);

		assert_true(d >= ceil / 2 && d <= ceil);
		if (ceil < 1000)
			ceil = ceil * 2 > 1000 ? 1000 : ceil * 2;
	}
	perfsink_coll_backoff_reset(&b);
	assert_true(perfsink_coll_backoff_next(&b) <= 100);
	/* cap below base is raised to base */
	perfsink_coll_backoff_init(&b, 500, 10, 1);
	assert_true(perfsink_coll_backoff_next(&b) <= 500);
}

static void test_backoff_jitter(void **state)
{
	struct perfsink_coll_backoff a, b;
	int i, differ = 0;

	(void)state;
	perfsink_coll_backoff_init(&a, 1000, 60000, 1);
	perfsink_coll_backoff_init(&b, 1000, 60000, 2);
	for (i = 0; i < 8; i++)
		differ += perfsink_coll_backoff_next(&a) != perfsink_coll_backoff_next(&b);
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
			assert_int_equal(p->body.len, steps[i].sealed_len);
			assert_int_equal(p->records, steps[i].sealed_len / 8);
			/* reserved whole, trimmed when sealed at less than half */
			assert_int_equal(p->body.cap, p->body.len < 500 ? p->body.len : p->body.len > 1000 ? p->body.len : 1000);
			part_free(p);
		}
		/* the open part holds its whole size from the start */
		assert_true(c.open->body.cap >= 1000);
	}
	/* open part (8 bytes, opened at 40) expires at 140 */
	assert_int_equal(part_cutter_deadline(&c), 140);
	assert_null(part_cutter_expire(&c, 139));
	p = part_cutter_expire(&c, 140);
	assert_non_null(p);
	assert_int_equal(p->seq, 4);
	assert_int_equal(p->body.cap, 8);
	part_free(p);
	assert_null(part_cutter_flush(&c));
	assert_int_equal(part_cutter_deadline(&c), -1);
	part_cutter_destroy(&c);
}

/* A part of len bytes (a multiple of 8) of FINISHED_ROUND records. */
static struct part *mkpart(uint64_t seq, enum part_kind k, const char *key, size_t len)
{
	struct part *p = part_new(seq, k);
	uint8_t *d = calloc(1, len + 1);
	size_t off;

	for (off = 0; off + 8 <= len; off += 8)
		put_rec(d + off, 68, 8);
	part_append(p, d, len);
	free(d);
	p->key = strdup(key);
	return p;
}

/* Byte strings for the part validator: each case is built by a recipe. */
struct vcase {
	const char *name;
	int prologue, ok;
	size_t (*make)(uint8_t *b);
};

static size_t put_pipe_header(uint8_t *b)
{
	uint64_t magic = 0x32454c4946524550ull, size = 16;

	memcpy(b, &magic, 8);
	memcpy(b + 8, &size, 8);
	return 16;
}

static size_t v_empty(uint8_t *b) { (void)b; return 0; }
static size_t v_round(uint8_t *b) { return put_rec(b, 68, 8); }
static size_t v_samples(uint8_t *b)
{
	size_t n = put_rec(b, 9, 48);

	n += put_rec(b + n, 10, 96);      /* MMAP2 */
	n += put_rec(b + n, 3, 32);       /* COMM */
	n += put_rec(b + n, 21, 24);      /* AUX_OUTPUT_HW_ID, the newest kernel type */
	n += put_rec(b + n, 81, 40);      /* COMPRESSED */
	return n + put_rec(b + n, 83, 8);
}
static size_t v_prologue(uint8_t *b)
{
	size_t n = put_pipe_header(b);

	n += put_rec(b + n, 64, 8 + 128 + 8); /* HEADER_ATTR with one id */
	return n + put_rec(b + n, 80, 24);    /* HEADER_FEATURE */
}
static size_t v_tracing(uint8_t *b)
{
	uint32_t extra = 64;
	size_t n = put_rec(b, 66, 12);

	memcpy(b + 8, &extra, 4);
	memset(b + n, 0x17, extra);
	n += extra;
	return n + put_rec(b + n, 68, 8);
}
static size_t v_auxtrace(uint8_t *b)
{
	uint64_t extra = 40;
	size_t n = put_rec(b, 71, 48);

	memcpy(b + 8, &extra, 8);
	return n + (size_t)extra;
}
static size_t v_truncated(uint8_t *b) { return v_samples(b) - 5; }
static size_t v_trailing(uint8_t *b) { return v_samples(b) + put_rec(b + 200, 68, 8) * 0 + 4; }
static size_t v_size0(uint8_t *b)
{
	size_t n = v_round(b);

	put_rec(b + n, 9, 8);
	b[n + 6] = 0;
	return n + 8;
}
static size_t v_size4(uint8_t *b) { put_rec(b, 9, 8); b[6] = 4; return 8; }
static size_t v_type0(uint8_t *b) { return put_rec(b, 0, 8); }
static size_t v_type22(uint8_t *b) { return put_rec(b, 22, 16); }
static size_t v_type63(uint8_t *b) { return put_rec(b, 63, 16); }
static size_t v_type84(uint8_t *b) { return put_rec(b, 84, 16); }
static size_t v_flipped(uint8_t *b) { size_t n = v_samples(b); b[48 + 6] ^= 0x10; return n; }
static size_t v_tracing_short(uint8_t *b) { return v_tracing(b) - 20; }
static size_t v_tracing_nosize(uint8_t *b) { return put_rec(b, 66, 8); }
static size_t v_auxtrace_short(uint8_t *b) { return v_auxtrace(b) - 1; }
static size_t v_no_magic(uint8_t *b) { size_t n = v_prologue(b); b[0] = 'X'; return n; }
static size_t v_file_header(uint8_t *b) { size_t n = v_prologue(b); b[8] = 104; return n; }
static size_t v_header_only_half(uint8_t *b) { put_pipe_header(b); return 12; }

static void test_validate(void **state)
{
	static const struct vcase cases[] = {
		{ "empty part", 0, 1, v_empty },
		{ "one FINISHED_ROUND", 0, 1, v_round },
		{ "kernel and user records", 0, 1, v_samples },
		{ "prologue", 1, 1, v_prologue },
		{ "tracing data with its payload", 0, 1, v_tracing },
		{ "auxtrace with its payload", 0, 1, v_auxtrace },
		{ "records where the prologue belongs", 1, 0, v_samples },
		{ "empty prologue", 1, 0, v_empty },
		{ "truncated in the last record", 0, 0, v_truncated },
		{ "4 bytes after the last record", 0, 0, v_trailing },
		{ "size 0", 0, 0, v_size0 },
		{ "size 4", 0, 0, v_size4 },
		{ "type 0", 0, 0, v_type0 },
		{ "type 22", 0, 0, v_type22 },
		{ "type 63", 0, 0, v_type63 },
		{ "type 84", 0, 0, v_type84 },
		{ "a size byte flipped", 0, 0, v_flipped },
		{ "tracing payload cut", 0, 0, v_tracing_short },
		{ "tracing data without its size", 0, 0, v_tracing_nosize },
		{ "auxtrace payload cut", 0, 0, v_auxtrace_short },
		{ "prologue without PERFILE2", 1, 0, v_no_magic },
		{ "file-mode header size 104", 1, 0, v_file_header },
		{ "half a pipe header", 1, 0, v_header_only_half },
	};
	uint8_t buf[1024];
	char why[256];
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc;

		memset(buf, 0, sizeof(buf));
		n = cases[i].make(buf);
		why[0] = '\0';
		rc = perfsink_kit_records_validate(buf, n, cases[i].prologue, why, sizeof(why));
		if ((rc == 0) != cases[i].ok)
			fail_msg("%s: rc %d (%s)", cases[i].name, rc, why);
		if (!cases[i].ok && (rc != -EBADMSG || !why[0]))
			fail_msg("%s: rc %d, no reason", cases[i].name, rc);
	}
}

static void test_seq_name(void **state)
{
	static const struct { const char *name; int ok; uint64_t seq; } cases[] = {
		{ "0000000000", 1, 0 },
		{ "0000000042", 1, 42 },
		{ "9999999999", 1, 9999999999ull },
		{ "12345678901", 1, 12345678901ull },
		{ "9999999999999999999", 1, 9999999999999999999ull },
		{ "abc", 0, 0 },
		{ "-000000001", 0, 0 },
		{ "+000000001", 0, 0 },
		{ " 000000001", 0, 0 },
		{ "000000001", 0, 0 },
		{ "01234567890", 0, 0 },
		{ "12345678901234567890", 0, 0 },
		{ "18446744073709551615", 0, 0 },
		{ "0000000001.tmp", 0, 0 },
		{ "0000000001 ", 0, 0 },
		{ "", 0, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t seq = 7;
		int ok = spool_seq_name(cases[i].name, &seq);

		if (ok != cases[i].ok || (ok && seq != cases[i].seq))
			fail_msg("'%s': ok %d seq %llu", cases[i].name, ok, (unsigned long long)seq);
	}
}

struct qlog {
	int n;
	uint64_t bytes;
	char last[1024];
};

static void qlog_add(void *arg, const char *path, const char *to, const char *why, uint64_t bytes)
{
	struct qlog *q = arg;

	q->n++;
	q->bytes += bytes;
	snprintf(q->last, sizeof(q->last), "%s -> %s: %s", path, to ? to : "(left)", why);
}

static void file_write(const char *path, const void *d, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(d, 1, len, f), len);
	fclose(f);
}

static int exists(const char *dir, const char *rel)
{
	char path[1024];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return lstat(path, &st) == 0;
}

static void test_spool_quarantine(void **state)
{
	char dir[] = "/tmp/test_http_quarXXXXXX", err[256], path[1024], cmd[1200];
	struct part *a = mkpart(1, PART_DATA, "h/s/0000000001", 64), *list = NULL, *q;
	struct qlog ql = { 0 };
	struct spool s;
	uint8_t bad[64];

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(spool_open(&s, dir, "inst", 1 << 20, err, sizeof(err)), 0);
	s.on_quarantine = qlog_add;
	s.arg = &ql;
	assert_int_equal(spool_put(&s, a), 0);
	snprintf(path, sizeof(path), "%s/secret", dir);
	file_write(path, "secret\n", 7);
	snprintf(path, sizeof(path), "%s/inst/h/s/0000000002", dir);
	assert_int_equal(symlink("../../../secret", path), 0);
	snprintf(path, sizeof(path), "%s/inst/h/s/0000000003", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	snprintf(path, sizeof(path), "%s/inst/h/s/abc", dir);
	file_write(path, "x", 1);
	snprintf(path, sizeof(path), "%s/inst/h/s/12345678901234567890", dir);
	file_write(path, "x", 1);
	snprintf(path, sizeof(path), "%s/inst/h/stray", dir);
	file_write(path, "xy", 2);
	/* a part whose last record is cut: found by the scan, refused at load */
	put_rec(bad, 68, 8);
	put_rec(bad + 8, 9, 48);
	snprintf(path, sizeof(path), "%s/inst/h/s/0000000004", dir);
	file_write(path, bad, 24);

	assert_int_equal(spool_scan(&s, &list), 2);
	assert_int_equal(ql.n, 5);
	assert_int_equal(ql.bytes, 1 + 1 + 2);
	assert_true(exists(dir, "quarantine/inst/h/s/0000000002"));
	assert_true(exists(dir, "quarantine/inst/h/s/0000000003"));
	assert_true(exists(dir, "quarantine/inst/h/s/abc"));
	assert_true(exists(dir, "quarantine/inst/h/s/12345678901234567890"));
	assert_true(exists(dir, "quarantine/inst/h/stray"));
	assert_true(exists(dir, "secret"));             /* the target is untouched */
	assert_string_equal(list->key, "h/s/0000000001");
	assert_int_equal(spool_load(&s, list), 0);
	q = list->next;
	assert_string_equal(q->key, "h/s/0000000004");
	assert_int_equal(spool_load(&s, q), -EBADMSG);
	assert_null(q->spool_path);
	assert_int_equal(ql.n, 6);
	assert_non_null(strstr(ql.last, "not whole perf records"));
	assert_true(exists(dir, "quarantine/inst/h/s/0000000004"));
	/* the same name again goes beside it, never over it */
	snprintf(path, sizeof(path), "%s/inst/h/s/abc", dir);
	file_write(path, "y", 1);
	part_free(list->next);
	list->next = NULL;
	part_free(list);
	list = NULL;
	assert_int_equal(spool_scan(&s, &list), 1);
	assert_true(exists(dir, "quarantine/inst/h/s/abc.1"));
	/* quarantine directories are as safe as the spool's */
	snprintf(path, sizeof(path), "%s/quarantine/inst", dir);
	{
		struct stat st;

		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_mode & 077, 0);
	}
	part_free(list);
	part_free(a);
	spool_close(&s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* The end marker's bytes: only exactly what part_end_format writes. */
static void test_end_marker_format(void **state)
{
	static const struct {
		const char *text;
		int ok;
		uint64_t parts;
	} cases[] = {
		{ "{\"parts\": 1}\n", 1, 1 },
		{ "{\"parts\": 8}\n", 1, 8 },
		{ "{\"parts\": 1234567890123456789}\n", 1, 1234567890123456789ULL },
		{ "{\"parts\": 0}\n", 0, 0 },            /* part 0 always exists */
		{ "{\"parts\": 08}\n", 0, 0 },
		{ "{\"parts\": 8}", 0, 0 },
		{ "{\"parts\": 8}\n\n", 0, 0 },
		{ "{\"parts\":8}\n", 0, 0 },
		{ "{\"parts\": -8}\n", 0, 0 },
		{ "{\"parts\": 8 }\n", 0, 0 },
		{ "{\"parts\": 12345678901234567890}\n", 0, 0 },
		{ "{\"parts\": }\n", 0, 0 },
		{ "{\"parts\": 8, \"x\": 1}\n", 0, 0 },
		{ "", 0, 0 },
		/* With the recording's wall-clock start and end (ns). */
		{ "{\"parts\": 3, \"start_ns\": 1765000000123456789, \"end_ns\": 1765000002000000000}\n", 1, 3 },
		{ "{\"parts\": 3, \"start_ns\": 0, \"end_ns\": 5}\n", 1, 3 },
		{ "{\"parts\": 3, \"start_ns\": 1}\n", 0, 0 },
		{ "{\"parts\": 3, \"start_ns\": -1, \"end_ns\": 5}\n", 0, 0 },
		{ "{\"parts\": 3, \"start_ns\": 01, \"end_ns\": 5}\n", 0, 0 },
		{ "{\"parts\": 3, \"start_ns\": 1, \"end_ns\": 5}", 0, 0 },
		{ "{\"parts\": 3, \"start_ns\": 1, \"end_ns\": 5}\n\n", 0, 0 },
		{ "{\"parts\": 3, \"end_ns\": 5, \"start_ns\": 1}\n", 0, 0 },
		{ "{\"parts\": 3, \"start_ns\": 1, \"end_ns\": 12345678901234567890}\n", 0, 0 },
	};
	char buf[PART_END_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t parts = 7;
		int ok = part_end_parse((const uint8_t *)cases[i].text, strlen(cases[i].text), &parts, NULL, NULL) == 0;

		if (ok != cases[i].ok || (ok && parts != cases[i].parts))
			fail_msg("'%s': ok %d parts %llu", cases[i].text, ok, (unsigned long long)parts);
	}
	{
		static const char want[] = "{\"parts\": 42, \"start_ns\": 7, \"end_ns\": 9}\n";
		int64_t t0 = 0, t1 = 0;
		uint64_t parts = 0;

		assert_int_equal(part_end_format(buf, 42, 7, 9), strlen(want));
		assert_memory_equal(buf, want, strlen(want));
		assert_int_equal(part_end_parse((const uint8_t *)buf, strlen(buf), &parts, &t0, &t1), 0);
		assert_true(parts == 42 && t0 == 7 && t1 == 9);
	}
}

static struct part *mkend(const char *key, const char *text)
{
	struct part *p = part_new(0, PART_END);

	part_append(p, text, strlen(text));
	p->key = strdup(key);
	return p;
}

/*
 * An end marker in the spool: kept as {session}/end, listed after the
 * session's parts with its key {session}.end, loaded when it is the sink's
 * and consistent with the parts beside it, quarantined when not.
 */
static void test_spool_end(void **state)
{
	char dir[] = "/tmp/test_http_endXXXXXX", err[256], path[1024], cmd[1200];
	struct part *parts[3], *end = mkend("h/s.end", "{\"parts\": 3}\n"), *list = NULL, *p;
	struct qlog ql = { 0 };
	struct spool s;
	int i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(spool_open(&s, dir, "inst", 1 << 20, err, sizeof(err)), 0);
	s.on_quarantine = qlog_add;
	s.arg = &ql;
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "h/s/%010d", i);
		parts[i] = mkpart((uint64_t)i, PART_DATA, path, 64);
		assert_int_equal(spool_put(&s, parts[i]), 0);
	}
	assert_int_equal(spool_put(&s, end), 0);
	assert_true(exists(dir, "inst/h/s/end"));
	assert_false(exists(dir, "inst/h/s.end"));
	/* a write of it cut by a crash is cleaned like a part's */
	snprintf(path, sizeof(path), "%s/inst/h/s/end.tmp", dir);
	file_write(path, "{\"par", 5);

	assert_int_equal(spool_scan(&s, &list), 4);
	assert_int_equal(ql.n, 0);
	assert_false(exists(dir, "inst/h/s/end.tmp"));
	for (p = list, i = 0; i < 3; p = p->next, i++)
		assert_int_equal(p->kind, PART_DATA);
	assert_int_equal(p->kind, PART_END);
	assert_string_equal(p->key, "h/s.end");
	assert_null(p->next);
	assert_int_equal(spool_load(&s, p), 0);
	assert_int_equal(p->body.len, strlen("{\"parts\": 3}\n"));
	spool_remove(&s, p);
	assert_false(exists(dir, "inst/h/s/end"));

	/* says fewer parts than the spool holds: set aside, not sent */
	p = mkend("h/s.end", "{\"parts\": 2}\n");
	assert_int_equal(spool_put(&s, p), 0);
	assert_int_equal(spool_load(&s, p), -EBADMSG);
	assert_int_equal(ql.n, 1);
	assert_non_null(strstr(ql.last, "says 2 parts, but part 0000000002 was in the spool"));
	assert_int_equal(ql.bytes, 0); /* a marker holds no data */
	assert_true(exists(dir, "quarantine/inst/h/s/end"));
	part_free(p);
	/* not the sink's bytes */
	p = mkend("h/s.end", "{\"parts\": 3, \"x\": 1}\n");
	assert_int_equal(spool_put(&s, p), 0);
	assert_int_equal(spool_load(&s, p), -EBADMSG);
	assert_non_null(strstr(ql.last, "not an end marker"));
	assert_true(exists(dir, "quarantine/inst/h/s/end.1"));
	part_free(p);
	/* a symlink where the marker belongs is set aside by the scan */
	snprintf(path, sizeof(path), "%s/inst/h/s/end", dir);
	assert_int_equal(symlink("0000000001", path), 0);
	while (list) {
		p = list->next;
		part_free(list);
		list = p;
	}
	assert_int_equal(spool_scan(&s, &list), 3);
	assert_non_null(strstr(ql.last, "a symbolic link"));
	while (list) {
		p = list->next;
		part_free(list);
		list = p;
	}
	/* fewer parts than the scan found, loaded once they were sent (removed) */
	p = mkend("h/s.end", "{\"parts\": 2}\n");
	assert_int_equal(spool_put(&s, p), 0);
	part_free(p);
	assert_int_equal(spool_scan(&s, &list), 4);
	for (i = 0; i < 3; i++) {
		p = list->next;
		spool_remove(&s, list);
		part_free(list);
		list = p;
	}
	assert_int_equal(list->kind, PART_END);
	assert_int_equal(list->seq, 3);
	assert_int_equal(spool_load(&s, list), -EBADMSG);
	assert_non_null(strstr(ql.last, "says 2 parts, but part 0000000002 was in the spool"));
	part_free(list);
	for (i = 0; i < 3; i++)
		part_free(parts[i]);
	part_free(end);
	spool_close(&s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_spool_refused(void **state)
{
	char dir[] = "/tmp/test_http_refXXXXXX", err[256], path[1024], cmd[1200];
	struct part *a = mkpart(1, PART_DATA, "h/s/0000000001", 64);
	struct spool s;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/open", dir);
	assert_int_equal(mkdir(path, 0777), 0);
	assert_int_equal(chmod(path, 0777), 0);
	assert_int_equal(spool_open(&s, path, "inst", 1000, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "mode 0777"));
	spool_close(&s);
	snprintf(path, sizeof(path), "%s/mine", dir);
	assert_int_equal(spool_open(&s, path, "inst", 1000, err, sizeof(err)), 0);
	spool_close(&s);
	snprintf(path, sizeof(path), "%s/mine/inst", dir);
	assert_int_equal(chmod(path, 0770), 0);
	snprintf(path, sizeof(path), "%s/mine", dir);
	assert_int_equal(spool_open(&s, path, "inst", 1000, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "mode 0770"));
	if (geteuid() == 0) {
		snprintf(path, sizeof(path), "%s/foreign", dir);
		assert_int_equal(mkdir(path, 0700), 0);
		assert_int_equal(chown(path, 65534, 65534), 0);
		assert_int_equal(spool_open(&s, path, "inst", 1000, err, sizeof(err)), -EPERM);
		assert_non_null(strstr(err, "owned by uid 65534"));
	}
	/* a symlink as spool_dir, as the instance dir, or as a host dir */
	snprintf(path, sizeof(path), "%s/link", dir);
	assert_int_equal(symlink("mine", path), 0);
	assert_true(spool_open(&s, path, "inst", 1000, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "symbolic link"));
	snprintf(path, sizeof(path), "%s/two", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/two/inst", dir);
	assert_int_equal(symlink("../mine/inst", path), 0);
	snprintf(path, sizeof(path), "%s/two", dir);
	assert_true(spool_open(&s, path, "inst", 1000, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "symbolic link"));
	snprintf(path, sizeof(path), "%s/three", dir);
	assert_int_equal(spool_open(&s, path, "inst", 1000, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/three/inst/h", dir);
	assert_int_equal(symlink("..", path), 0);
	assert_true(spool_put(&s, a) < 0);
	assert_non_null(strstr(s.err, "symbolic link"));
	/* a directory opened to others after open() is refused at the next use */
	unlink(path);
	snprintf(path, sizeof(path), "%s/three/inst", dir);
	assert_int_equal(chmod(path, 0777), 0);
	assert_int_equal(spool_put(&s, a), -EPERM);
	spool_close(&s);
	part_free(a);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
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
	assert_int_equal(list->body.len, 600);
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

static void test_retry_after(void **state)
{
	static const struct { const char *v; int64_t ms; } cases[] = {
		{ "2", 2000 },
		{ " 30", 30000 },
		{ "0", 0 },
		{ "120\r\n", 120000 },
		{ "Wed, 21 Oct 2015 07:28:00 GMT", 0 },  /* in the past */
		{ "-1", -1 },
		{ "2x", -1 },
		{ "1.5", -1 },
		{ "abc", -1 },
		{ "", -1 },
		{ "99999999999", -1 },
	};
	char date[64];
	time_t soon = time(NULL) + 10;
	int64_t ms;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (perfsink_coll_retry_after_parse(cases[i].v) != cases[i].ms)
			fail_msg("'%s': %lld, want %lld", cases[i].v,
				 (long long)perfsink_coll_retry_after_parse(cases[i].v), (long long)cases[i].ms);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", gmtime(&soon));
	ms = perfsink_coll_retry_after_parse(date);
	assert_true(ms >= 8000 && ms <= 10000);
}

static void test_transfer_url(void **state)
{
	char url1[] = "http://127.0.0.1:8080/perf", url2[] = "http://127.0.0.1:5000";
	char url3[] = "https://s3.eu-west-1.amazonaws.com";
	struct coll_ship_conf c;
	char *u;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.s3 = 0;
	c.url = url1;
	u = transfer_url(&c, "h/s/0000000001");
	assert_string_equal(u, "http://127.0.0.1:8080/perf/h/s/0000000001");
	free(u);
	c.s3 = 1;
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
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_seq_name),
		cmocka_unit_test(test_spool),
		cmocka_unit_test(test_spool_quarantine),
		cmocka_unit_test(test_end_marker_format),
		cmocka_unit_test(test_spool_end),
		cmocka_unit_test(test_spool_refused),
		cmocka_unit_test(test_spool_unwritable),
		cmocka_unit_test(test_retry_after),
		cmocka_unit_test(test_transfer_url),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
