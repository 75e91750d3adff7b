/*
 * The collector client's listing pieces (<perfsink/collector.h>), which
 * ls/fetch use and the sinks to come will: escaping a path, the URL of an
 * S3 ListObjectsV2 page (the query SigV4 signs, as the S3 tests' servers
 * accept it), the page bound (a repeated token, too many pages), when a
 * PROPFIND answer sends a reader to the JSON autoindex, and the retry
 * schedule fetch waits by (4 tries: up to 0.5, 1, 2 s, at least half),
 * and a Retry-After within that schedule's bounds (the http sink's rule),
 * and a header's value read from the line libcurl hands over.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <perfsink/collector.h>

static void escape(void **state)
{
	static const struct {
		const char *in;
		int keep_slash;
		const char *want;
	} t[] = {
		{ "", 1, "" },
		{ "h/s-1/0000000000", 1, "h/s-1/0000000000" },
		{ "a b/c", 1, "a%20b/c" },
		{ "a/b", 0, "a%2Fb" },
		{ "Az09-._~", 0, "Az09-._~" },
		{ "x+y=z&%", 1, "x%2By%3Dz%26%25" },
		{ "\xc3\xa9", 1, "%C3%A9" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *got = perfsink_coll_escape(t[i].in, t[i].keep_slash);
		assert_non_null(got);
		assert_string_equal(got, t[i].want);
		free(got);
	}
}

static void s3_list_url(void **state)
{
	static const struct {
		const char *base, *bucket;
		int path_style;
		const char *prefix;
		int slash_plain;
		const char *token, *want;
	} t[] = {
		{ "http://127.0.0.1:9000", "b", 1, "runs/vm/", 0, NULL,
		  "http://127.0.0.1:9000/b?delimiter=%2F&list-type=2&prefix=runs%2Fvm%2F" },
		{ "http://127.0.0.1:9000", "b", 1, "runs/vm/", 1, NULL,
		  "http://127.0.0.1:9000/b?delimiter=/&list-type=2&prefix=runs/vm/" },
		{ "https://s3.eu-west-1.amazonaws.com", "b", 0, "", 0, NULL,
		  "https://b.s3.eu-west-1.amazonaws.com/?delimiter=%2F&list-type=2&prefix=" },
		{ "http://127.0.0.1:9000", "b", 1, "p/", 0, "1/a+b=",
		  "http://127.0.0.1:9000/b?continuation-token=1%2Fa%2Bb%3D&delimiter=%2F&list-type=2&prefix=p%2F" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *got = perfsink_coll_s3_list_url(t[i].base, t[i].bucket, t[i].path_style, t[i].prefix,
						      t[i].slash_plain, t[i].token);
		assert_non_null(got);
		assert_string_equal(got, t[i].want);
		free(got);
	}
}

/* tokens, one per page, through a bound of max pages: the first refusal. */
static int pages_run(unsigned max, const char *const *tokens, size_t n, unsigned *pages)
{
	struct perfsink_coll_s3_pages p;
	int rc = perfsink_coll_s3_pages_init(&p, max);

	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = perfsink_coll_s3_pages_next(&p, tokens[i]);
	*pages = p.pages;
	perfsink_coll_s3_pages_free(&p);
	return rc;
}

static void s3_pages(void **state)
{
	static const char *const fresh[] = { "a", "b", "c", "d" };
	static const char *const again[] = { "a", "b", "a" };
	static const char *const same[] = { "a", "a" };
	unsigned pages;

	(void)state;
	assert_int_equal(pages_run(10, fresh, 4, &pages), 0);
	assert_int_equal(pages, 4);
	/* 3 pages at most: the third page's token is not followed. */
	assert_int_equal(pages_run(3, fresh, 4, &pages), -E2BIG);
	assert_int_equal(pages, 3);
	assert_int_equal(pages_run(10, again, 3, &pages), -ELOOP);
	assert_int_equal(pages, 3);
	/* The same token twice is refused at once, even under the cap. */
	assert_int_equal(pages_run(2, same, 2, &pages), -ELOOP);
	assert_int_equal(pages, 2);
}

static void propfind_refused(void **state)
{
	static const struct {
		long status;
		int refused;
	} t[] = {
		{ 207, 0 }, { 200, 0 }, { 400, 1 }, { 401, 0 }, { 403, 1 }, { 404, 0 },
		{ 405, 1 }, { 500, 0 }, { 501, 1 }, { 503, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(perfsink_coll_propfind_refused(t[i].status), t[i].refused);
	assert_non_null(strstr(PERFSINK_COLL_PROPFIND_BODY, "<getcontentlength/>"));
}

/* fetch's schedule (src/fetch/collector.h): 500 ms doubling to 2 s, jittered in [ceil/2, ceil]. */
static void fetch_schedule(void **state)
{
	static const long ceil[] = { 500, 1000, 2000, 2000 };

	(void)state;
	for (uint64_t seed = 1; seed <= 200; seed++) {
		struct perfsink_coll_backoff b;

		perfsink_coll_backoff_init(&b, 500, 2000, seed * 0x9e3779b97f4a7c15ull);
		for (size_t i = 0; i < sizeof(ceil) / sizeof(ceil[0]); i++) {
			int64_t d = perfsink_coll_backoff_next(&b);
			assert_true(d >= ceil[i] / 2 && d <= ceil[i]);
		}
		assert_int_equal(b.attempt, 4);
	}
}

/* Retry-After wins over the backoff, within [base, cap]; the failure counts. */
static void retry_after_wait(void **state)
{
	static const struct {
		int64_t retry_after, want;
	} t[] = {
		{ 0, 500 }, { 499, 500 }, { 500, 500 }, { 1200, 1200 }, { 2000, 2000 }, { 120000, 2000 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct perfsink_coll_backoff b;

		perfsink_coll_backoff_init(&b, 500, 2000, 7);
		assert_int_equal(perfsink_coll_backoff_wait(&b, t[i].retry_after), t[i].want);
		assert_int_equal(b.attempt, 1);
	}
	for (uint64_t seed = 1; seed <= 50; seed++) {
		struct perfsink_coll_backoff b;
		int64_t d;

		perfsink_coll_backoff_init(&b, 500, 2000, seed);
		d = perfsink_coll_backoff_wait(&b, -1);
		assert_true(d >= 250 && d <= 500);
	}
}

static void header_value(void **state)
{
	static const struct {
		const char *line, *name;
		size_t n;
		int found;
		const char *want;
	} t[] = {
		{ "Retry-After: 120\r\n", "Retry-After", 64, 1, "120" },
		{ "retry-after:\t 7\r\n", "Retry-After", 64, 1, "7" },
		{ "ETag: \"abc\"\r\n", "ETag", 64, 1, "\"abc\"" },
		{ "ETag: 0123456789\r\n", "ETag", 5, 1, "0123" },
		{ "ETag:\r\n", "ETag", 64, 1, "" },
		{ "ETagX: 1\r\n", "ETag", 64, 0, NULL },
		{ "Retry-Afte: 1\r\n", "Retry-After", 64, 0, NULL },
		{ "HTTP/1.1 503 Slow Down\r\n", "Retry-After", 64, 0, NULL },
		{ "ETag", "ETag", 64, 0, NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char out[64] = "untouched";
		int got = perfsink_coll_header_value(t[i].line, strlen(t[i].line), t[i].name, out, t[i].n);
		assert_int_equal(got, t[i].found);
		assert_string_equal(out, t[i].found ? t[i].want : "untouched");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(escape),
		cmocka_unit_test(s3_list_url),
		cmocka_unit_test(s3_pages),
		cmocka_unit_test(propfind_refused),
		cmocka_unit_test(fetch_schedule),
		cmocka_unit_test(retry_after_wait),
		cmocka_unit_test(header_value),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
