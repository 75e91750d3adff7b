/* Reading a collector over HTTP(S) or S3 with libcurl; see collector.h. */
#include "fetch/collector_priv.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include <perfsink/kit.h>

/* ------------------------------------------------------------- strings */

char *collector_url(const struct collector *c, const char *rel)
{
	size_t pl = c->s3 ? strlen(c->prefix) : 0;
	char *joined = malloc(pl + strlen(rel) + 1);
	char *path = NULL, *url = NULL;

	if (joined) {
		memcpy(joined, c->s3 ? c->prefix : "", pl);
		strcpy(joined + pl, rel);
		path = perfsink_coll_escape(joined, 1);
	}
	if (path)
		url = perfsink_coll_url(c->base, c->s3 ? c->bucket : NULL, c->path_style, path);
	free(joined);
	free(path);
	return url;
}

/*
 * A kit error (the one reader of collector secrets, shared with the http
 * sink) as collector_open says it: -ENOMEM, else -EACCES (missing or
 * unreadable), c->err from why.
 */
static int secret_error(struct collector *c, int rc, const char *why)
{
	if (rc == -ENOMEM)
		return rc;
	COLL_ERR(c, "%s", why);
	return -EACCES;
}

/* S3 keys as the http sink reads them: an explicit credentials_file wins over the environment. */
static int s3_keys_take(struct collector *c, const struct collector_conf *o)
{
	struct perfsink_kit_s3_keys k;
	char why[sizeof(c->err)] = "";
	int rc = perfsink_kit_s3_keys_load(&k, o ? o->credentials_file : NULL, o ? o->profile : NULL,
					   why, sizeof(why));

	if (rc)
		return secret_error(c, rc, why);
	c->key_id = k.id;
	c->secret = k.secret;
	c->token = k.token;
	return 0;
}

/* ------------------------------------------------------------------ open */

static int open_s3(struct collector *c, const char *rest, const struct collector_conf *o)
{
	const char *slash = strchr(rest, '/');
	size_t bl = slash ? (size_t)(slash - rest) : strlen(rest);
	if (!bl) {
		COLL_ERR(c, "s3 URL without a bucket: write s3://BUCKET[/PREFIX]");
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
		COLL_ERR(c, "s3 endpoint %s is not an http(s) URL", c->base);
		return -EINVAL;
	}
	return s3_keys_take(c, o);
}

/* bearer_token_file, user, password_file: read as the http sink reads its keys. */
static int auth_take(struct collector *c, const struct collector_conf *o)
{
	char why[sizeof(c->err)] = "";
	int rc = perfsink_coll_auth_load(&c->auth, o->bearer_token_file, o->user, o->password_file,
					 why, sizeof(why));

	if (rc && c->auth.unreadable)
		return secret_error(c, rc, why);
	if (rc) {
		COLL_ERR(c, "%s", why); /* keys that do not go together: -EINVAL */
		return rc;
	}
	if (o->user && *o->user && !(c->user = strdup(o->user)))
		return -ENOMEM;
	return 0;
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
	return auth_take(c, o);
}

/* o's limits, each 0 replaced by its default. */
static void limits_take(struct collector *c, const struct collector_conf *o)
{
	if (o)
		c->lim = o->lim;
	if (c->lim.connect_ms <= 0)
		c->lim.connect_ms = COLLECTOR_CONNECT_MS;
	if (c->lim.stall_ms <= 0)
		c->lim.stall_ms = COLLECTOR_STALL_MS;
	if (c->lim.transfer_ms <= 0)
		c->lim.transfer_ms = COLLECTOR_TRANSFER_MS;
	if (!c->lim.list_pages)
		c->lim.list_pages = COLLECTOR_LIST_PAGES;
}

/* How every request reaches the collector (<perfsink/collector.h>). */
static void coll_fill(struct collector *c)
{
	struct perfsink_coll_conf *k = &c->coll;

	k->connect_ms = c->lim.connect_ms;
	k->tls_verify = c->tls_verify;
	k->ca_file = c->ca_file;
	k->client_cert = c->client_cert;
	k->client_key = c->client_key;
	k->bearer = c->auth.bearer;
	k->user = c->user;
	k->password = c->auth.password;
	if (c->s3) {
		k->s3_region = c->region;
		k->s3_key_id = c->key_id;
		k->s3_secret = c->secret;
		k->s3_token = c->token;
	}
}

int collector_open(struct collector *c, const char *url, const struct collector_conf *o)
{
	memset(c, 0, sizeof(*c));
	limits_take(c, o);
	int rc;
	if (!strncmp(url, "s3://", 5)) {
		rc = open_s3(c, url + 5, o);
	} else if (!strncmp(url, "http://", 7) || !strncmp(url, "https://", 8)) {
		const char *host = strstr(url, "://") + 3;
		size_t auth = strcspn(host, "/");
		if (memchr(host, '@', auth)) {
			COLL_ERR(c, "URL must not hold credentials");
			return -EINVAL;
		}
		c->base = strdup(url);
		rc = c->base ? 0 : -ENOMEM;
		for (size_t n = c->base ? strlen(c->base) : 0; n && c->base[n - 1] == '/';)
			c->base[--n] = '\0';
	} else {
		COLL_ERR(c, "%s: not an http://, https:// or s3:// URL", url);
		return -EINVAL;
	}
	if (rc == 0)
		rc = conf_take(c, o);
	if (rc == 0) {
		coll_fill(c);
		rc = collector_curl_init(c);
	}
	if (rc == -ENOMEM && !c->err[0])
		COLL_ERR(c, "out of memory");
	return rc;
}

void collector_close(struct collector *c)
{
	collector_curl_free(c);
	free(c->base);
	free(c->bucket);
	free(c->prefix);
	free(c->region);
	perfsink_kit_secret_free(c->key_id);
	free(c->ca_file);
	free(c->client_cert);
	free(c->client_key);
	free(c->user);
	perfsink_kit_secret_free(c->secret);
	perfsink_kit_secret_free(c->token);
	perfsink_coll_auth_free(&c->auth);
	memset(c, 0, sizeof(*c));
}

/* ----------------------------------------------------------------- GET */

/* The outcome of a GET whose answer went to sink s (c->err set on error). */
static int get_result(struct collector *c, const char *url, long st, const struct body_sink *s)
{
	if (st == 404) {
		COLL_ERR(c, "GET %s: HTTP 404", url);
		return -ENOENT;
	}
	if (st >= 200 && st < 300)
		return 0;
	if (st >= 0) {
		collector_status_error(c, "GET", url, st, s);
		return -EIO;
	}
	return (int)st;
}

int collector_get(struct collector *c, const char *rel, struct bytes *out, size_t max)
{
	char *url = collector_url(c, rel);
	struct body_sink s;
	if (!url)
		return -ENOMEM;
	body_sink_mem(&s, c, out, max);
	int rc = get_result(c, url, collector_request(c, NULL, url, NULL, -1, &s), &s);
	if (rc)
		out->len = s.mem_start;
	free(url);
	return rc;
}

int collector_get_fd(struct collector *c, const char *rel, int fd, uint64_t max, uint64_t *len)
{
	char *url = collector_url(c, rel);
	struct body_sink s;
	if (!url)
		return -ENOMEM;
	body_sink_fd(&s, c, fd, max);
	int rc = get_result(c, url, collector_request(c, NULL, url, NULL, -1, &s), &s);
	*len = s.n;
	free(url);
	return rc;
}

/* The path part of url ("/perf/h/"), for matching PROPFIND hrefs. */
static const char *url_path(const char *url)
{
	const char *p = strchr(strstr(url, "://") + 3, '/');
	return p ? p : "/";
}

/* A listing's answer: into a sink of at most COLLECTOR_LIST_MAX bytes. */
static long list_request(struct collector *c, const char *method, const char *url, const char *body,
			 int depth, struct bytes *b, struct body_sink *s)
{
	bytes_free(b);
	bytes_init(b);
	body_sink_mem(s, c, b, COLLECTOR_LIST_MAX);
	return collector_request(c, method, url, body, depth, s);
}

/* The error of a listing request that did not give the answer wanted. */
static int list_error(struct collector *c, const char *method, const char *url, long st,
		      const struct body_sink *s)
{
	if (st == 404) {
		COLL_ERR(c, "%s %s: HTTP 404", method, url);
		return -ENOENT;
	}
	if (st < 0)
		return (int)st;
	collector_status_error(c, method, url, st, s);
	return -EIO;
}

static int list_http(struct collector *c, const char *rel, struct perfsink_coll_list *out)
{
	char *url = collector_url(c, rel);
	struct bytes body;
	struct body_sink s;
	int rc;
	if (!url)
		return -ENOMEM;
	bytes_init(&body);
	body_sink_mem(&s, c, &body, 0);
	long st = list_request(c, "PROPFIND", url, PERFSINK_COLL_PROPFIND_BODY, 1, &body, &s);
	if (st == 207) {
		rc = perfsink_coll_list_propfind((const char *)body.p, body.len, url_path(url), out);
		if (rc == -EBADMSG)
			COLL_ERR(c, "PROPFIND %s: the answer is not a DAV multistatus", url);
	} else if (perfsink_coll_propfind_refused(st)) {
		/* No WebDAV listing: nginx's JSON autoindex. */
		st = list_request(c, NULL, url, NULL, -1, &body, &s);
		if (st >= 200 && st < 300) {
			rc = perfsink_coll_list_autoindex((const char *)body.p, body.len, out);
			if (rc == -EBADMSG)
				COLL_ERR(c, "GET %s: neither PROPFIND (WebDAV) nor a JSON autoindex lists this "
				       "collector (nginx: dav_ext_methods PROPFIND, or autoindex_format json)", url);
		} else {
			rc = list_error(c, "GET", url, st, &s);
		}
	} else {
		rc = list_error(c, "PROPFIND", url, st, &s);
	}
	bytes_free(&body);
	free(url);
	return rc;
}

/*
 * Why the pages of a listing stop (perfsink_coll_s3_pages_next's -ELOOP
 * or -E2BIG) as collector.h says it: -EBADMSG, c->err naming the option.
 */
static int s3_pages_error(struct collector *c, const char *url, int rc, unsigned pages)
{
	if (rc == -ELOOP)
		COLL_ERR(c, "GET %s: the listing repeats a continuation token after %u pages: "
			 "a collector that would list forever, refused", url, pages);
	else
		COLL_ERR(c, "GET %s: the listing is still truncated after %u pages (--max-list-pages): refused",
			 url, pages);
	return -EBADMSG;
}

/*
 * ListObjectsV2, page after page (perfsink_coll_s3_list_url: the query
 * as SigV4 wants it; slash_plain for servers that refuse %2F, which
 * list_s3 tries once after such an answer).
 */
static int list_s3_try(struct collector *c, const char *prefix, int slash_plain,
		       struct perfsink_coll_list *out, long *status)
{
	struct perfsink_coll_s3_pages pages;
	char *token = NULL;
	struct bytes body;
	struct body_sink s;
	int rc = perfsink_coll_s3_pages_init(&pages, c->lim.list_pages);

	bytes_init(&body);
	body_sink_mem(&s, c, &body, 0);
	while (rc == 0) {
		char *url = perfsink_coll_s3_list_url(c->base, c->bucket, c->path_style, prefix,
						      slash_plain, token);
		if (!url) {
			rc = -ENOMEM;
			break;
		}
		long st = list_request(c, NULL, url, NULL, -1, &body, &s);
		*status = st;
		if (st == 200) {
			rc = perfsink_coll_list_s3((const char *)body.p, body.len, prefix, out);
			if (rc == -EBADMSG)
				COLL_ERR(c, "GET %s: not a ListObjectsV2 answer", url);
		} else {
			rc = list_error(c, "GET", url, st, &s);
		}
		free(token);
		token = out->next_token;
		out->next_token = NULL;
		if (rc == 0 && token && (rc = perfsink_coll_s3_pages_next(&pages, token)))
			rc = s3_pages_error(c, url, rc, pages.pages);
		free(url);
		if (!token)
			break;
	}
	free(token);
	perfsink_coll_s3_pages_free(&pages);
	bytes_free(&body);
	return rc;
}

static int list_s3(struct collector *c, const char *rel, struct perfsink_coll_list *out)
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
		perfsink_coll_list_free(out);
		rc = list_s3_try(c, prefix, 1, out, &status);
		if (rc == 0)
			c->slash_plain = 1; /* this server's way: keep it */
		else
			memcpy(c->err, first, sizeof(first));
	}
	free(prefix);
	return rc;
}

int collector_list(struct collector *c, const char *rel, struct perfsink_coll_list *out)
{
	return c->s3 ? list_s3(c, rel, out) : list_http(c, rel, out);
}
