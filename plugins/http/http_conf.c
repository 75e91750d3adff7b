/* Configuration of the http sink; see http_conf.h. */
#include "http_conf.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <perfsink/kit.h>

const struct perfsink_key http_keys[K_COUNT + 1] = PERFSINK_KIT_KEYS_TABLE(HTTP_KEYS);
/* Where each KEY of http_keys.h is stored in struct http_conf. */
static const struct perfsink_kit_key_map http_map[] = PERFSINK_KIT_KEYS_MAP(HTTP_KEYS);

void http_name_sanitize(char *s)
{
	for (; *s; s++) {
		char c = *s;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			*s = '_';
	}
}

int http_url_check(const char *url, char *err, size_t errlen)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *part = NULL;
	int rc = -EINVAL;

	if (!u)
		return -ENOMEM;
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK) {
		snprintf(err, errlen, "url \"%s\" is not a valid absolute URL (want http://host[:port]/path)", url);
		goto out;
	}
	curl_url_get(u, CURLUPART_SCHEME, &scheme, 0);
	if (!scheme || (strcasecmp(scheme, "http") && strcasecmp(scheme, "https"))) {
		snprintf(err, errlen, "url scheme \"%s\" is not http or https", scheme ? scheme : "");
		goto out;
	}
	if (curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK || !host || !host[0]) {
		snprintf(err, errlen, "url \"%s\" has no host", url);
		goto out;
	}
	if (curl_url_get(u, CURLUPART_USER, &part, 0) == CURLUE_OK) {
		snprintf(err, errlen, "url must not hold credentials; use user + password_file or bearer_token_file");
		goto out;
	}
	if (curl_url_get(u, CURLUPART_QUERY, &part, 0) == CURLUE_OK ||
	    curl_url_get(u, CURLUPART_FRAGMENT, &part, 0) == CURLUE_OK) {
		snprintf(err, errlen, "url \"%s\" must not have a query or fragment", url);
		goto out;
	}
	rc = 0;
out:
	curl_free(scheme);
	curl_free(host);
	curl_free(part);
	curl_url_cleanup(u);
	return rc;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

static int headers_parse(struct http_conf *c, const char *text, char *err, size_t errlen)
{
	char *copy = strdup(text), *save = NULL, *tok;
	size_t n = 0;

	if (!copy)
		return -ENOMEM;
	c->headers = calloc(strlen(text) / 2 + 2, sizeof(char *));
	if (!c->headers) {
		free(copy);
		return -ENOMEM;
	}
	for (tok = strtok_r(copy, "|", &save); tok; tok = strtok_r(NULL, "|", &save)) {
		char *h = trim(tok), *colon = strchr(h, ':');

		if (!h[0])
			continue;
		if (!colon || colon == h || strpbrk(h, "\r\n")) {
			snprintf(err, errlen, "headers: \"%s\" is not \"Name: value\"", h);
			free(copy);
			return -EINVAL;
		}
		c->headers[n] = strdup(h);
		if (!c->headers[n++]) {
			free(copy);
			return -ENOMEM;
		}
	}
	free(copy);
	return 0;
}

/* S3 keys as ls/fetch/upload read them (the kit's): an explicit
 * credentials_file wins over the environment. */
static int s3_credentials_load(struct http_conf *c, const struct perfsink_value *v, char *err, size_t errlen)
{
	struct perfsink_kit_s3_keys k;
	int rc = perfsink_kit_s3_keys_load(&k, v[K_CREDENTIALS_FILE].str, v[K_PROFILE].str, err, errlen);

	if (rc == 0) {
		c->access_key = k.id;
		c->secret_key = k.secret;
		c->session_token = k.token;
	}
	return rc;
}

static int tls_files_check(const struct perfsink_value *v, int *bad_key, char *err, size_t errlen)
{
	static const enum http_key keys[] = { K_CA_FILE, K_CLIENT_CERT, K_CLIENT_KEY };
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *p = v[keys[i]].str;

		if (p[0] && access(p, R_OK) < 0) {
			*bad_key = keys[i];
			snprintf(err, errlen, "%s %s: %s", http_keys[keys[i]].name, p, strerror(errno));
			return -errno;
		}
	}
	if (!v[K_CLIENT_CERT].str[0] != !v[K_CLIENT_KEY].str[0]) {
		*bad_key = v[K_CLIENT_CERT].str[0] ? K_CLIENT_KEY : K_CLIENT_CERT;
		snprintf(err, errlen, "client_cert and client_key go together");
		return -EINVAL;
	}
	return 0;
}

/* bearer_token_file, user, password_file: read as ls/fetch read them. */
static int auth_load(struct http_conf *c, const struct perfsink_value *v, char *err, size_t errlen)
{
	static const int key_of[] = {
		[PERFSINK_COLL_AUTH_BEARER_FILE] = K_BEARER_TOKEN_FILE,
		[PERFSINK_COLL_AUTH_USER] = K_USER,
		[PERFSINK_COLL_AUTH_PASSWORD_FILE] = K_PASSWORD_FILE,
	};
	int rc = perfsink_coll_auth_load(&c->auth, v[K_BEARER_TOKEN_FILE].str, c->coll.user,
					 v[K_PASSWORD_FILE].str, err, errlen);

	if (rc)
		c->err_key = key_of[c->auth.bad_key];
	return rc;
}

/* The rest of coll: the secrets read, and S3's signing. */
static void coll_fill(struct http_conf *c)
{
	c->coll.connect_ms = c->connect_timeout_ms;
	c->coll.bearer = c->auth.bearer;
	c->coll.password = c->auth.password;
	if (c->mode == MODE_S3) {
		c->coll.s3_region = c->region;
		c->coll.s3_key_id = c->access_key;
		c->coll.s3_secret = c->secret_key;
		c->coll.s3_token = c->session_token;
	}
}

/* The shipper's view of c; the prefix is an S3 key's only. */
static void ship_fill(struct http_conf *c)
{
	c->ship = (struct coll_ship_conf){
		.s3 = c->mode == MODE_S3,
		.url = c->url,
		.bucket = c->bucket,
		.prefix = c->mode == MODE_S3 ? c->prefix : "",
		.path_style = c->path_style,
		.headers = c->headers,
		.coll = &c->coll,
		.overflow = c->overflow,
		.queue_size = c->queue_size,
		.backoff_base_ms = c->backoff_base_ms,
		.backoff_cap_ms = c->backoff_cap_ms,
		.stall_timeout_ms = c->stall_timeout_ms,
		.multipart_chunk = c->multipart_chunk,
	};
}

int http_conf_load(struct http_conf *c, const struct perfsink_value *v, char *err, size_t errlen)
{
	size_t n;
	int rc;

	memset(c, 0, sizeof(*c));
	c->err_key = K_URL;
	rc = http_url_check(v[K_URL].str, err, errlen);
	if (rc < 0)
		return rc;
	c->url = strdup(v[K_URL].str);
	if (!c->url)
		return -ENOMEM;
	n = strlen(c->url);
	while (n > 0 && c->url[n - 1] == '/')
		c->url[--n] = '\0';
	rc = perfsink_kit_conf_fill(http_keys, v, http_map, c);
	if (rc < 0) {
		snprintf(err, errlen, "internal error: the key map does not match the keys");
		return rc;
	}
	c->err_key = -1;
	if (c->backoff_cap_ms < c->backoff_base_ms) {
		c->err_key = K_BACKOFF_CAP;
		snprintf(err, errlen, "backoff_cap (%lld ms) is below backoff_base (%lld ms)",
			 (long long)c->backoff_cap_ms, (long long)c->backoff_base_ms);
		return -EINVAL;
	}
	rc = tls_files_check(v, &c->err_key, err, errlen);
	if (rc == 0)
		rc = auth_load(c, v, err, errlen);
	if (rc == 0) {
		c->err_key = K_HEADERS;
		rc = headers_parse(c, v[K_HEADERS].str, err, errlen);
	}
	if (rc == 0 && c->mode == MODE_S3) {
		c->err_key = K_BUCKET;
		if (!c->bucket[0]) {
			snprintf(err, errlen, "mode = s3 needs bucket");
			return -EINVAL;
		}
		c->err_key = K_CREDENTIALS_FILE;
		rc = s3_credentials_load(c, v, err, errlen);
	}
	if (rc == 0) {
		c->err_key = -1;
		coll_fill(c);
		ship_fill(c);
	}
	return rc;
}

void http_conf_free(struct http_conf *c)
{
	size_t i;

	free(c->url);
	perfsink_coll_auth_free(&c->auth);
	perfsink_kit_secret_free(c->access_key);
	perfsink_kit_secret_free(c->secret_key);
	perfsink_kit_secret_free(c->session_token);
	for (i = 0; c->headers && c->headers[i]; i++)
		free(c->headers[i]);
	free(c->headers);
	memset(c, 0, sizeof(*c));
}
