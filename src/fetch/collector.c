/* Reading a collector over HTTP(S) or S3 with libcurl; see collector.h. */
#include "fetch/collector.h"
#include "fetch/credentials.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"

#define ERR(c, ...) snprintf((c)->err, sizeof((c)->err), __VA_ARGS__)

static const char propfind_body[] =
	"<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
	"<propfind xmlns=\"DAV:\"><prop><resourcetype/><getcontentlength/>"
	"<getlastmodified/></prop></propfind>\n";

/* ------------------------------------------------------------- strings */

static int unreserved(unsigned char ch)
{
	return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
	       ch == '-' || ch == '_' || ch == '.' || ch == '~';
}

/* s percent-encoded into b; '/' kept when keep_slash (paths), else encoded (S3 query values). */
static void url_encode(struct bytes *b, const char *s, int keep_slash)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (unreserved(ch) || (keep_slash && ch == '/')) {
			bytes_add(b, s, 1);
		} else {
			char hex[4];
			snprintf(hex, sizeof(hex), "%%%02X", ch);
			bytes_add(b, hex, 3);
		}
	}
}

static char *bytes_cstr(struct bytes *b)
{
	bytes_add(b, "", 1);
	if (b->err) {
		bytes_free(b);
		return NULL;
	}
	size_t n;
	return (char *)bytes_steal(b, &n);
}

char *collector_url(const struct collector *c, const char *rel)
{
	struct bytes b;
	bytes_init(&b);
	if (!c->s3) {
		bytes_add(&b, c->base, strlen(c->base));
		bytes_add(&b, "/", 1);
	} else if (c->path_style) {
		bytes_add(&b, c->base, strlen(c->base));
		bytes_add(&b, "/", 1);
		bytes_add(&b, c->bucket, strlen(c->bucket));
		bytes_add(&b, "/", 1);
		url_encode(&b, c->prefix, 1);
	} else {
		const char *host = strstr(c->base, "://") + 3;
		bytes_add(&b, c->base, (size_t)(host - c->base));
		bytes_add(&b, c->bucket, strlen(c->bucket));
		bytes_add(&b, ".", 1);
		bytes_add(&b, host, strlen(host));
		bytes_add(&b, "/", 1);
		url_encode(&b, c->prefix, 1);
	}
	url_encode(&b, rel, 1);
	return bytes_cstr(&b);
}

/* ------------------------------------------------------------------ open */

static int open_s3(struct collector *c, const char *rest, const struct collector_conf *o)
{
	const char *slash = strchr(rest, '/');
	size_t bl = slash ? (size_t)(slash - rest) : strlen(rest);
	if (!bl) {
		ERR(c, "s3 URL without a bucket: write s3://BUCKET[/PREFIX]");
		return -EINVAL;
	}
	c->s3 = 1;
	c->bucket = strndup(rest, bl);
	const char *pre = slash ? slash + 1 : "";
	size_t pl = strlen(pre);
	while (pl && pre[pl - 1] == '/')
		pl--;
	c->prefix = malloc(pl + 2);
	if (c->prefix)
		snprintf(c->prefix, pl + 2, "%.*s%s", (int)pl, pre, pl ? "/" : "");
	const char *region = o && o->region && *o->region ? o->region : getenv("AWS_REGION");
	if (!region || !*region)
		region = getenv("AWS_DEFAULT_REGION");
	c->region = strdup(region && *region ? region : "us-east-1");
	const char *ep = o && o->endpoint && *o->endpoint ? o->endpoint : getenv("AWS_ENDPOINT_URL");
	int given = ep && *ep;
	char def[256];
	if (!given) {
		snprintf(def, sizeof(def), "https://s3.%s.amazonaws.com", c->region ? c->region : "");
		ep = def;
	}
	c->base = strdup(ep);
	c->path_style = o && o->path_style >= 0 ? o->path_style : given;
	if (!c->bucket || !c->prefix || !c->region || !c->base)
		return -ENOMEM;
	size_t el = strlen(c->base);
	while (el && c->base[el - 1] == '/')
		c->base[--el] = '\0';
	if (!strstr(c->base, "://")) {
		ERR(c, "s3 endpoint %s is not an http(s) URL", c->base);
		return -EINVAL;
	}
	return credentials_load(c, o);
}

/* TLS and HTTP authentication from o. */
static int conf_take(struct collector *c, const struct collector_conf *o)
{
	c->tls_verify = !o || o->tls_verify != 0;
	if (!o)
		return 0;
	if ((o->ca_file && *o->ca_file && !(c->ca_file = strdup(o->ca_file))) ||
	    (o->client_cert && *o->client_cert && !(c->client_cert = strdup(o->client_cert))) ||
	    (o->client_key && *o->client_key && !(c->client_key = strdup(o->client_key))))
		return -ENOMEM;
	if (c->s3)
		return 0;
	if (o->bearer_token_file && *o->bearer_token_file)
		return secret_read(c, "bearer_token_file", o->bearer_token_file, &c->bearer);
	if (o->user && *o->user) {
		if (!o->password_file || !*o->password_file) {
			ERR(c, "user needs password_file");
			return -EINVAL;
		}
		c->user = strdup(o->user);
		return c->user ? secret_read(c, "password_file", o->password_file, &c->password) : -ENOMEM;
	}
	return 0;
}

int collector_open(struct collector *c, const char *url, const struct collector_conf *o)
{
	memset(c, 0, sizeof(*c));
	int rc;
	if (!strncmp(url, "s3://", 5)) {
		rc = open_s3(c, url + 5, o);
	} else if (!strncmp(url, "http://", 7) || !strncmp(url, "https://", 8)) {
		const char *host = strstr(url, "://") + 3;
		size_t auth = strcspn(host, "/");
		if (memchr(host, '@', auth)) {
			ERR(c, "URL must not hold credentials");
			return -EINVAL;
		}
		c->base = strdup(url);
		rc = c->base ? 0 : -ENOMEM;
		for (size_t n = c->base ? strlen(c->base) : 0; n && c->base[n - 1] == '/';)
			c->base[--n] = '\0';
	} else {
		ERR(c, "%s: not an http://, https:// or s3:// URL", url);
		return -EINVAL;
	}
	if (rc == 0)
		rc = conf_take(c, o);
	if (rc == 0 && curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		ERR(c, "libcurl initialization failed");
		rc = -ENOMEM;
	}
	if (rc == 0 && !(c->easy = curl_easy_init()))
		rc = -ENOMEM;
	if (rc == -ENOMEM && !c->err[0])
		ERR(c, "out of memory");
	return rc;
}

void collector_close(struct collector *c)
{
	if (c->easy) {
		curl_easy_cleanup(c->easy);
		curl_global_cleanup();
	}
	free(c->base);
	free(c->bucket);
	free(c->prefix);
	free(c->region);
	free(c->key_id);
	free(c->ca_file);
	free(c->client_cert);
	free(c->client_key);
	free(c->user);
	char *secrets[] = { c->secret, c->token, c->bearer, c->password };
	for (size_t i = 0; i < sizeof(secrets) / sizeof(secrets[0]); i++) {
		if (secrets[i])
			memset(secrets[i], 0, strlen(secrets[i]));
		free(secrets[i]);
	}
	memset(c, 0, sizeof(*c));
}

/* -------------------------------------------------------------- requests */

static size_t body_write(char *p, size_t size, size_t n, void *arg)
{
	bytes_add(arg, p, size * n);
	return ((struct bytes *)arg)->err ? 0 : size * n;
}

static long request_once(struct collector *c, const char *method, const char *url, const char *body,
			 int depth, struct bytes *out, CURLcode *ccp);

/*
 * One request: method (NULL: GET) on url, with an optional XML body and
 * Depth header; the answer's body appended to out.  Returns the HTTP status,
 * or -EIO on a transport error (c->err set).  Transient failures are tried
 * again (see collector.h).
 */
static long request(struct collector *c, const char *method, const char *url, const char *body,
		    int depth, struct bytes *out)
{
	static const long wait_ms[] = { 500, 1000, 2000 };
	for (unsigned try = 0;; try++) {
		CURLcode cc = CURLE_OK;
		size_t len = out->len;
		long st = request_once(c, method, url, body, depth, out, &cc);
		int transient = st == -EIO ? cc == CURLE_OPERATION_TIMEDOUT || cc == CURLE_COULDNT_CONNECT ||
						     cc == CURLE_RECV_ERROR || cc == CURLE_SEND_ERROR ||
						     cc == CURLE_GOT_NOTHING || cc == CURLE_PARTIAL_FILE
					   : st >= 500 || st == 429 || st == 408;
		if (!transient || try >= sizeof(wait_ms) / sizeof(wait_ms[0]))
			return st;
		out->len = len; /* the failed answer's bytes are not the body */
		pr_debug("%s %s: %s; trying again in %ld ms", method ? method : "GET", url,
			 st == -EIO ? curl_easy_strerror(cc) : "server error", wait_ms[try]);
		struct timespec ts = { wait_ms[try] / 1000, (wait_ms[try] % 1000) * 1000000L };
		nanosleep(&ts, NULL);
	}
}

static long request_once(struct collector *c, const char *method, const char *url, const char *body,
			 int depth, struct bytes *out, CURLcode *ccp)
{
	CURL *e = c->easy;
	struct curl_slist *h = NULL;
	char sig[128], tok[4096];
	long status = 0;

	curl_easy_reset(e);
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 30000L);
	/* No byte for 60 s: the try ends (then it is tried again). */
	curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, 60L);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, body_write);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, out);
	if (method)
		curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);
	if (body) {
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
		h = curl_slist_append(h, "Content-Type: application/xml");
	}
	if (depth >= 0)
		h = curl_slist_append(h, depth ? "Depth: 1" : "Depth: 0");
	curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, c->tls_verify ? 1L : 0L);
	curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, c->tls_verify ? 2L : 0L);
	if (c->ca_file)
		curl_easy_setopt(e, CURLOPT_CAINFO, c->ca_file);
	if (c->client_cert) {
		curl_easy_setopt(e, CURLOPT_SSLCERT, c->client_cert);
		curl_easy_setopt(e, CURLOPT_SSLKEY, c->client_key);
	}
	if (c->bearer) {
		curl_easy_setopt(e, CURLOPT_HTTPAUTH, CURLAUTH_BEARER);
		curl_easy_setopt(e, CURLOPT_XOAUTH2_BEARER, c->bearer);
	} else if (c->user) {
		curl_easy_setopt(e, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
		curl_easy_setopt(e, CURLOPT_USERNAME, c->user);
		curl_easy_setopt(e, CURLOPT_PASSWORD, c->password);
	}
	if (c->s3) {
		snprintf(sig, sizeof(sig), "aws:amz:%s:s3", c->region);
		curl_easy_setopt(e, CURLOPT_AWS_SIGV4, sig);
		curl_easy_setopt(e, CURLOPT_USERNAME, c->key_id);
		curl_easy_setopt(e, CURLOPT_PASSWORD, c->secret);
		/* libcurl 7.88 neither sends nor signs the payload hash by itself. */
		h = curl_slist_append(h, "x-amz-content-sha256: UNSIGNED-PAYLOAD");
		if (c->token) {
			snprintf(tok, sizeof(tok), "x-amz-security-token: %s", c->token);
			h = curl_slist_append(h, tok);
		}
	}
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
	CURLcode cc = curl_easy_perform(e);
	*ccp = cc;
	curl_slist_free_all(h);
	if (cc != CURLE_OK) {
		ERR(c, "%s %s: %s", method ? method : "GET", url, curl_easy_strerror(cc));
		return -EIO;
	}
	curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
	return status;
}

/* One line for an HTTP error status, with the S3 error code when there is one. */
static void status_error(struct collector *c, const char *method, const char *url, long status,
			 const struct bytes *body)
{
	char code[64] = "";
	const char *b = body->p ? (const char *)body->p : "";
	const char *s = body->len ? memmem(b, body->len, "<Code>", 6) : NULL;
	if (s) {
		const char *e = memmem(s, body->len - (size_t)(s - b), "</Code>", 7);
		if (e && e - s - 6 < (long)sizeof(code) - 1)
			snprintf(code, sizeof(code), " %.*s", (int)(e - s - 6), s + 6);
	}
	ERR(c, "%s %s: HTTP %ld%s", method, url, status, code);
}

int collector_get(struct collector *c, const char *rel, struct bytes *out)
{
	char *url = collector_url(c, rel);
	struct bytes body;
	if (!url)
		return -ENOMEM;
	bytes_init(&body);
	long st = request(c, NULL, url, NULL, -1, &body);
	int rc = 0;
	if (st == 404) {
		rc = -ENOENT;
		ERR(c, "GET %s: HTTP 404", url);
	} else if (st >= 200 && st < 300) {
		bytes_add(out, body.p, body.len);
		rc = out->err;
	} else if (st >= 0) {
		status_error(c, "GET", url, st, &body);
		rc = -EIO;
	} else {
		rc = (int)st;
	}
	bytes_free(&body);
	free(url);
	return rc;
}

/* The path part of url ("/perf/h/"), for matching PROPFIND hrefs. */
static const char *url_path(const char *url)
{
	const char *p = strchr(strstr(url, "://") + 3, '/');
	return p ? p : "/";
}

static int list_http(struct collector *c, const char *rel, struct coll_list *out)
{
	char *url = collector_url(c, rel);
	struct bytes body;
	int rc;
	if (!url)
		return -ENOMEM;
	bytes_init(&body);
	long st = request(c, "PROPFIND", url, propfind_body, 1, &body);
	if (st == 207) {
		rc = listing_parse_propfind((const char *)body.p, body.len, url_path(url), out);
		if (rc == -EBADMSG)
			ERR(c, "PROPFIND %s: the answer is not a DAV multistatus", url);
	} else if (st == 404) {
		rc = -ENOENT;
		ERR(c, "PROPFIND %s: HTTP 404", url);
	} else if (st == 405 || st == 501 || st == 400 || st == 403) {
		/* No WebDAV listing: nginx's JSON autoindex. */
		bytes_free(&body);
		bytes_init(&body);
		st = request(c, NULL, url, NULL, -1, &body);
		if (st >= 200 && st < 300) {
			rc = listing_parse_autoindex((const char *)body.p, body.len, out);
			if (rc == -EBADMSG)
				ERR(c, "GET %s: neither PROPFIND (WebDAV) nor a JSON autoindex lists this "
				       "collector (nginx: dav_ext_methods PROPFIND, or autoindex_format json)", url);
		} else if (st == 404) {
			rc = -ENOENT;
			ERR(c, "GET %s: HTTP 404", url);
		} else {
			if (st >= 0)
				status_error(c, "GET", url, st, &body);
			rc = -EIO;
		}
	} else {
		if (st >= 0)
			status_error(c, "PROPFIND", url, st, &body);
		rc = -EIO;
	}
	bytes_free(&body);
	free(url);
	return rc;
}

/*
 * ListObjectsV2, the query written canonically for SigV4 (sorted, values
 * encoded, '/' as %2F as AWS computes it; libcurl 7.88 signs the query as
 * written).  slash_plain writes '/' as it is: some S3-compatible servers
 * (moto 5.2) compute the signature over the decoded query and refuse %2F
 * with SignatureDoesNotMatch, so list_s3 tries that form once after such
 * an answer.
 */
static int list_s3_try(struct collector *c, const char *prefix, int slash_plain,
		       struct coll_list *out, long *status)
{
	int rc = 0;
	do {
		struct bytes q, body;
		bytes_init(&q);
		bytes_add(&q, c->base, strlen(c->base));
		if (c->path_style) {
			bytes_add(&q, "/", 1);
			bytes_add(&q, c->bucket, strlen(c->bucket));
		} else {
			const char *host = strstr(c->base, "://") + 3;
			q.len = (size_t)(host - c->base);
			bytes_add(&q, c->bucket, strlen(c->bucket));
			bytes_add(&q, ".", 1);
			bytes_add(&q, host, strlen(host));
			bytes_add(&q, "/", 1);
		}
		bytes_add(&q, "?", 1);
		if (out->next_token) {
			bytes_add(&q, "continuation-token=", 19);
			url_encode(&q, out->next_token, 0);
			bytes_add(&q, "&", 1);
			free(out->next_token);
			out->next_token = NULL;
		}
		bytes_add(&q, slash_plain ? "delimiter=/" : "delimiter=%2F", slash_plain ? 11 : 13);
		bytes_add(&q, "&list-type=2&prefix=", 20);
		url_encode(&q, prefix, slash_plain);
		char *url = bytes_cstr(&q);
		if (!url)
			return -ENOMEM;
		bytes_init(&body);
		long st = request(c, NULL, url, NULL, -1, &body);
		*status = st;
		if (st == 200) {
			rc = listing_parse_s3((const char *)body.p, body.len, prefix, out);
			if (rc == -EBADMSG)
				ERR(c, "GET %s: not a ListObjectsV2 answer", url);
		} else {
			if (st >= 0)
				status_error(c, "GET", url, st, &body);
			rc = st == 404 ? -ENOENT : -EIO;
		}
		bytes_free(&body);
		free(url);
	} while (rc == 0 && out->next_token);
	return rc;
}

static int list_s3(struct collector *c, const char *rel, struct coll_list *out)
{
	char *prefix = malloc(strlen(c->prefix) + strlen(rel) + 1);
	long status = 0;
	if (!prefix)
		return -ENOMEM;
	sprintf(prefix, "%s%s", c->prefix, rel);
	int rc = list_s3_try(c, prefix, c->slash_plain, out, &status);
	if (rc == -EIO && status == 403 && !c->slash_plain && strchr(prefix, '/') &&
	    strstr(c->err, "SignatureDoesNotMatch")) {
		char first[sizeof(c->err)];
		memcpy(first, c->err, sizeof(first));
		coll_list_free(out);
		rc = list_s3_try(c, prefix, 1, out, &status);
		if (rc == 0)
			c->slash_plain = 1; /* this server's way: keep it */
		else
			memcpy(c->err, first, sizeof(first));
	}
	free(prefix);
	return rc;
}

int collector_list(struct collector *c, const char *rel, struct coll_list *out)
{
	return c->s3 ? list_s3(c, rel, out) : list_http(c, rel, out);
}
