/*
 * A collector as the http sink fills it, read back: a WebDAV (or plain
 * autoindex) HTTP server, or an S3 bucket.  Paths below it are relative
 * ("host/session/0000000000"); folders end in '/' when listed.
 *
 * S3 requests are signed with libcurl's CURLOPT_AWS_SIGV4, with the
 * workarounds 7.88 needs (x-amz-content-sha256 added by us, canonical query
 * strings), as the http sink signs its uploads; credentials and secrets
 * are read like the sink reads them (credentials.c).  A timeout, a refused
 * connection, a 5xx or a 429 is tried again, 4 tries in all (0.5, 1, 2 s
 * apart): a reader on a loaded machine or a busy collector still gets
 * through.
 *
 * Single-threaded: one collector is used by one thread.
 */
#ifndef PS_FETCH_COLLECTOR_H
#define PS_FETCH_COLLECTOR_H
#include "base/bytes.h"
#include "fetch/listing_parse.h"

/*
 * How to reach the collector: the http sink's keys of the same name (a
 * [sink.NAME] section), NULL/-1 fields for their defaults.
 */
struct collector_conf {
	/* s3:// */
	const char *endpoint;  /* "http://127.0.0.1:9000"; NULL: AWS_ENDPOINT_URL, else
				* https://s3.{region}.amazonaws.com */
	const char *region;    /* NULL: AWS_REGION, AWS_DEFAULT_REGION, else us-east-1 */
	int path_style;        /* -1: path style when an endpoint is given */
	const char *credentials_file; /* NULL: ~/.aws/credentials */
	const char *profile;   /* NULL: AWS_PROFILE, else "default" */
	/* TLS, both kinds */
	int tls_verify;        /* -1: on */
	const char *ca_file, *client_cert, *client_key;
	/* http(s):// authentication, secrets read from files */
	const char *bearer_token_file;
	const char *user, *password_file;
};

struct collector {
	int s3;
	char *base;            /* http: the URL without a trailing '/'; s3: the endpoint */
	char *bucket, *prefix; /* s3: prefix is "" or ends in '/' */
	int path_style;
	int slash_plain;       /* s3 listings: '/' unencoded in the query (see collector.c) */
	char *region, *key_id, *secret, *token;
	int tls_verify;
	char *ca_file, *client_cert, *client_key;
	char *bearer, *user, *password; /* http auth; secrets never in messages */
	void *easy;            /* CURL * */
	char err[512];         /* the last error, one line, never a secret */
};

/*
 * Open url: "http(s)://host[:port]/path" or "s3://bucket[/prefix]"; o may
 * be NULL.  0, or -EINVAL / -EACCES (credentials missing or unreadable) /
 * -ENOMEM with c->err set.
 */
int collector_open(struct collector *c, const char *url, const struct collector_conf *o);
void collector_close(struct collector *c);
/*
 * The members of folder rel ("" or ending in '/').  HTTP: PROPFIND Depth 1,
 * falling back to a GET of nginx's JSON autoindex when PROPFIND is refused.
 * 0, -ENOENT (no such folder), -EIO / -EBADMSG with c->err set.
 */
int collector_list(struct collector *c, const char *rel, struct coll_list *out);
/* GET rel into out (appended).  0, -ENOENT (404), -EIO with c->err set. */
int collector_get(struct collector *c, const char *rel, struct bytes *out);
/* The URL of rel, for messages (no credentials ever are in one).  Caller frees. */
char *collector_url(const struct collector *c, const char *rel);

#endif
