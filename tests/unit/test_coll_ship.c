/* Unit tests of the object shipper's parts a per-window sink (pprof) uses:
 * an object's URL with a prefix and key suffix in both modes, and the
 * spool's own check of an object (spool.check_fd) in place of perf records. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfsink/collector_ship.h>

static void test_object_url(void **state)
{
	static const struct {
		int s3, path_style;
		const char *url, *bucket, *prefix, *suffix, *key, *want;
	} cases[] = {
		/* the http sink: no prefix or suffix in plain HTTP */
		{ 0, 0, "http://c:8080/up", "", "", NULL, "h/s/0000000001",
		  "http://c:8080/up/h/s/0000000001" },
		/* pprof, mode = put to WebDAV: prefix and .pb.gz */
		{ 0, 0, "http://c:8080/pp", "", "prod", ".pb.gz", "h/s/1796621497688",
		  "http://c:8080/pp/prod/h/s/1796621497688.pb.gz" },
		{ 0, 0, "http://c:8080/pp", "", "", ".pb.gz", "h/s/1796621497688",
		  "http://c:8080/pp/h/s/1796621497688.pb.gz" },
		/* the folder (pprof's where): no suffix */
		{ 0, 0, "http://c:8080/pp", "", "/a/", NULL, "h/s/", "http://c:8080/pp/a/h/s/" },
		/* S3: the prefix's odd characters made safe, the suffix kept */
		{ 1, 1, "http://127.0.0.1:5000", "bkt", "runs/a b", ".pb.gz", "h/s/1796621497688",
		  "http://127.0.0.1:5000/bkt/runs/a_b/h/s/1796621497688.pb.gz" },
		{ 1, 0, "https://s3.eu-west-1.amazonaws.com", "bkt", "", NULL, "h/s/0000000001",
		  "https://bkt.s3.eu-west-1.amazonaws.com/h/s/0000000001" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct coll_ship_conf c = {
			.s3 = cases[i].s3, .url = cases[i].url, .bucket = cases[i].bucket,
			.prefix = cases[i].prefix, .path_style = cases[i].path_style,
			.key_suffix = cases[i].suffix,
		};
		char *u = transfer_url(&c, cases[i].key);
		assert_non_null(u);
		if (strcmp(u, cases[i].want))
			fail_msg("case %zu: %s, want %s", i, u, cases[i].want);
		free(u);
	}
}

/* The test's own rule: an object is good when it starts with "OK". */
static int starts_ok(int fd, uint64_t len, const struct part *p, char *why, size_t n)
{
	char b[2];
	(void)p;
	if (len < 2 || pread(fd, b, 2, 0) != 2 || memcmp(b, "OK", 2)) {
		snprintf(why, n, "not OK");
		return -EBADMSG;
	}
	return 0;
}

static struct part *object(uint64_t seq, const char *key, const char *bytes)
{
	struct part *p = part_new(seq, PART_DATA);
	assert_non_null(p);
	p->key = strdup(key);
	assert_int_equal(part_append(p, bytes, strlen(bytes)), 0);
	return p;
}

static void test_spool_check_fd(void **state)
{
	static const struct {
		const char *bytes;
		int rc;
	} cases[] = {
		{ "OK, a window", 0 },
		{ "a window not OK", -EBADMSG },   /* not whole perf records either */
		{ "O", -EBADMSG },
	};
	char dir[] = "/tmp/test_coll_shipXXXXXX", err[256], key[64], cmd[128];
	struct spool s;
	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(spool_open(&s, dir, "pp", 1 << 20, err, sizeof(err)), 0);
	s.check_fd = starts_ok;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(key, sizeof(key), "h/s/%013zu", 1796621497688 + i);
		struct part *p = object(1796621497688 + i, key, cases[i].bytes);
		assert_int_equal(spool_put(&s, p), 0);
		part_unload(p);
		if (spool_load(&s, p) != cases[i].rc)
			fail_msg("case %zu (%s): not %d", i, cases[i].bytes, cases[i].rc);
		if (cases[i].rc == 0)
			assert_memory_equal(p->body.data, cases[i].bytes, strlen(cases[i].bytes));
		else
			assert_null(p->spool_path);   /* quarantined */
		part_free(p);
	}
	spool_close(&s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_object_url),
		cmocka_unit_test(test_spool_check_fd),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
