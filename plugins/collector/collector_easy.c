/*
 * The collector client's easy-handle setup: see <perfsink/collector.h>.
 * Written once for the http sink's uploads and ls/fetch/upload's reads,
 * which had each their copy (plugins/http/transfer.c, src/fetch/
 * collector_request.c) that could drift apart on TLS or auth.
 */
#include <perfsink/collector.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static int set(const char *s)
{
	return s && s[0];
}

/* CURLE_OK, or the first error of a sequence of setopt calls. */
#define SETOPT(rc, e, opt, val) \
	do { \
		if ((rc) == CURLE_OK) \
			(rc) = curl_easy_setopt((e), (opt), (val)); \
	} while (0)

static CURLcode tls_setup(CURL *e, const struct perfsink_coll_conf *c)
{
	CURLcode rc = CURLE_OK;

	SETOPT(rc, e, CURLOPT_SSL_VERIFYPEER, c->tls_verify ? 1L : 0L);
	SETOPT(rc, e, CURLOPT_SSL_VERIFYHOST, c->tls_verify ? 2L : 0L);
	if (set(c->ca_file))
		SETOPT(rc, e, CURLOPT_CAINFO, c->ca_file);
	if (set(c->client_cert)) {
		SETOPT(rc, e, CURLOPT_SSLCERT, c->client_cert);
		SETOPT(rc, e, CURLOPT_SSLKEY, c->client_key);
	}
	return rc;
}

static CURLcode auth_setup(CURL *e, const struct perfsink_coll_conf *c)
{
	CURLcode rc = CURLE_OK;

	if (set(c->s3_region)) {
		char sig[256];

		snprintf(sig, sizeof(sig), "aws:amz:%s:s3", c->s3_region);
		SETOPT(rc, e, CURLOPT_AWS_SIGV4, sig);
		SETOPT(rc, e, CURLOPT_USERNAME, c->s3_key_id);
		SETOPT(rc, e, CURLOPT_PASSWORD, c->s3_secret);
	} else if (set(c->bearer)) {
		SETOPT(rc, e, CURLOPT_HTTPAUTH, CURLAUTH_BEARER);
		SETOPT(rc, e, CURLOPT_XOAUTH2_BEARER, c->bearer);
	} else if (set(c->password)) {
		SETOPT(rc, e, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
		SETOPT(rc, e, CURLOPT_USERNAME, c->user);
		SETOPT(rc, e, CURLOPT_PASSWORD, c->password);
	}
	return rc;
}

int perfsink_coll_easy_setup(CURL *e, const struct perfsink_coll_conf *c)
{
	CURLcode rc = CURLE_OK;

	SETOPT(rc, e, CURLOPT_NOSIGNAL, 1L);
	SETOPT(rc, e, CURLOPT_PROTOCOLS_STR, "http,https");
	SETOPT(rc, e, CURLOPT_CONNECTTIMEOUT_MS, (long)c->connect_ms);
	if (rc == CURLE_OK)
		rc = tls_setup(e, c);
	if (rc == CURLE_OK)
		rc = auth_setup(e, c);
	if (rc == CURLE_OUT_OF_MEMORY)
		return -ENOMEM;
	return rc == CURLE_OK ? 0 : -ENOTSUP;
}

int perfsink_coll_header_value(const char *line, size_t len, const char *name, char *out, size_t n)
{
	size_t k = strlen(name), i, j = 0;

	if (n == 0 || len <= k || line[k] != ':' || strncasecmp(line, name, k))
		return 0;
	for (i = k + 1; i < len && (line[i] == ' ' || line[i] == '\t'); i++)
		;
	while (i < len && line[i] != '\r' && line[i] != '\n' && j + 1 < n)
		out[j++] = line[i++];
	out[j] = '\0';
	return 1;
}

int perfsink_coll_header_add(struct curl_slist **h, const char *v)
{
	struct curl_slist *l = curl_slist_append(*h, v);

	if (!l)
		return -ENOMEM;
	*h = l;
	return 0;
}

int perfsink_coll_s3_headers(struct curl_slist **h, const struct perfsink_coll_conf *c)
{
	char tok[4200];
	int rc;

	if (!set(c->s3_region))
		return 0;
	rc = perfsink_coll_header_add(h, "x-amz-content-sha256: UNSIGNED-PAYLOAD");
	if (rc || !set(c->s3_token))
		return rc;
	snprintf(tok, sizeof(tok), "x-amz-security-token: %s", c->s3_token);
	rc = perfsink_coll_header_add(h, tok);
	memset(tok, 0, sizeof(tok));
	return rc;
}

int perfsink_coll_status_transient(long status)
{
	return status >= 500 || status == 408 || status == 429;
}
