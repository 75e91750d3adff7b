/*
 * The collector client (<perfsink/collector.h>), which the http sink and
 * ls/fetch/upload share: which answers are tried again, the headers S3
 * needs beside SigV4, that the setup takes every kind of auth, and the
 * URL of an object (WebDAV, S3 path style and virtual-hosted).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <perfsink/collector.h>

static void transient_statuses(void **state)
{
	static const struct {
		long status;
		int transient;
	} t[] = {
		{ 200, 0 }, { 204, 0 }, { 301, 0 }, { 400, 0 }, { 403, 0 }, { 404, 0 },
		{ 407, 0 }, { 408, 1 }, { 409, 0 }, { 429, 1 }, { 499, 0 }, { 500, 1 },
		{ 502, 1 }, { 503, 1 }, { 504, 1 }, { 599, 1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(perfsink_coll_status_transient(t[i].status), t[i].transient);
}

/* The headers of c, joined by '|'. */
static void headers_of(const struct perfsink_coll_conf *c, char *out, size_t n)
{
	struct curl_slist *h = NULL, *l;

	out[0] = '\0';
	assert_int_equal(perfsink_coll_header_add(&h, "A: b"), 0);
	assert_int_equal(perfsink_coll_s3_headers(&h, c), 0);
	for (l = h; l; l = l->next) {
		strncat(out, l->data, n - strlen(out) - 1);
		if (l->next)
			strncat(out, "|", n - strlen(out) - 1);
	}
	curl_slist_free_all(h);
}

static void s3_headers(void **state)
{
	static const struct {
		const char *region, *token, *want;
	} t[] = {
		{ NULL, NULL, "A: b" },
		{ "", "tok", "A: b" },
		{ "eu-west-1", NULL, "A: b|x-amz-content-sha256: UNSIGNED-PAYLOAD" },
		{ "eu-west-1", "", "A: b|x-amz-content-sha256: UNSIGNED-PAYLOAD" },
		{ "eu-west-1", "T0K", "A: b|x-amz-content-sha256: UNSIGNED-PAYLOAD|x-amz-security-token: T0K" },
	};
	char got[512];

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct perfsink_coll_conf c = { .s3_region = t[i].region, .s3_token = t[i].token,
						.s3_key_id = "K", .s3_secret = "S" };

		headers_of(&c, got, sizeof(got));
		assert_string_equal(got, t[i].want);
	}
}

static void setup_kinds(void **state)
{
	static const struct perfsink_coll_conf t[] = {
		{ .connect_ms = 1000, .tls_verify = 1 },
		{ .connect_ms = 1000, .tls_verify = 0, .ca_file = "/etc/ssl/certs/ca-certificates.crt" },
		{ .connect_ms = 1000, .tls_verify = 1, .client_cert = "/c.pem", .client_key = "/k.pem" },
		{ .connect_ms = 1000, .tls_verify = 1, .bearer = "tok" },
		{ .connect_ms = 1000, .tls_verify = 1, .user = "u", .password = "p" },
		{ .connect_ms = 1000, .tls_verify = 1, .s3_region = "us-east-1", .s3_key_id = "K",
		  .s3_secret = "S" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		CURL *e = curl_easy_init();

		assert_non_null(e);
		assert_int_equal(perfsink_coll_easy_setup(e, &t[i]), 0);
		curl_easy_cleanup(e);
	}
}

static void urls(void **state)
{
	static const struct {
		const char *base, *bucket;
		int path_style;
		const char *path, *want;
	} t[] = {
		{ "http://127.0.0.1:8080/perf", NULL, 0, "h/s/0000000001",
		  "http://127.0.0.1:8080/perf/h/s/0000000001" },
		{ "http://127.0.0.1:8080", NULL, 1, "a%20b/", "http://127.0.0.1:8080/a%20b/" },
		{ "http://127.0.0.1:5000", "bkt", 1, "runs/h/s/1", "http://127.0.0.1:5000/bkt/runs/h/s/1" },
		{ "https://s3.eu-west-1.amazonaws.com", "bkt", 0, "h/s/1",
		  "https://bkt.s3.eu-west-1.amazonaws.com/h/s/1" },
		{ "http://minio:9000/api", "bkt", 0, "p/", "http://bkt.minio:9000/api/p/" },
		{ "https://s3.amazonaws.com", "bkt", 0, "", "https://bkt.s3.amazonaws.com/" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *u = perfsink_coll_url(t[i].base, t[i].bucket, t[i].path_style, t[i].path);

		assert_non_null(u);
		assert_string_equal(u, t[i].want);
		free(u);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(transient_statuses),
		cmocka_unit_test(s3_headers),
		cmocka_unit_test(setup_kinds),
		cmocka_unit_test(urls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
