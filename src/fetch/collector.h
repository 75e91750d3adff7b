/*
 * A collector as the http sink fills it, read back: a WebDAV (or plain
 * autoindex) HTTP server, or an S3 bucket.  Paths below it are relative
 * ("host/session/0000000000"); folders end in '/' when listed.
 *
 * S3 requests are signed with libcurl's CURLOPT_AWS_SIGV4, with the
 * workarounds 7.88 needs (x-amz-content-sha256 added by us, canonical query
 * strings), as the http sink signs its uploads; credentials and secrets
 * are read by the kit's reader, the sink's too (perfsink_kit_secret_read,
 * perfsink_kit_s3_keys_load).  A connect timeout, a
 * stall, a refused connection, a 5xx or a 429 is tried again, 4 tries in
 * all, after the collector client's jittered backoff (perfsink_coll_backoff:
 * up to 0.5, 1, 2 s, at least half of each): a reader on a loaded machine
 * or a busy collector still gets through.  The listings are parsed and
 * paged by the collector client too (perfsink_coll_list_*,
 * perfsink_coll_s3_*), as every reader of a collector does.
 *
 * Nothing a collector sends is trusted (collector_request.c): every request
 * has a connect, a stall and a total limit (struct collector_limits), every
 * answer a size cap, an S3 listing a page cap and no repeated continuation
 * token, and a stop flag (SIGINT/SIGTERM) ends any request within 100 ms.
 *
 * Single-threaded: one collector is used by one thread.
 */
#ifndef PS_FETCH_COLLECTOR_H
#define PS_FETCH_COLLECTOR_H
#include <signal.h>
#include "base/bytes.h"
#include <perfsink/collector.h>

/* Defaults of struct collector_limits (a field left 0 takes its default). */
#define COLLECTOR_CONNECT_MS 10000
#define COLLECTOR_STALL_MS 30000
#define COLLECTOR_TRANSFER_MS 600000
#define COLLECTOR_LIST_PAGES 1000
/* "Stalled": less than this many bytes moved in stall_ms. */
#define COLLECTOR_STALL_BYTES 1024
/* Tries of one request at most, and the backoff between them (base, cap). */
#define COLLECTOR_TRIES 4
#define COLLECTOR_RETRY_BASE_MS 500
#define COLLECTOR_RETRY_CAP_MS 2000
/* A listing answer (one PROPFIND, autoindex or S3 page) larger than this is refused. */
#define COLLECTOR_LIST_MAX (256u << 20)

struct collector_limits {
	int64_t connect_ms;   /* TCP+TLS connect; tried again */
	int64_t stall_ms;     /* < COLLECTOR_STALL_BYTES moved in this long: cut, tried again */
	int64_t transfer_ms;  /* one request at most this long: cut, not tried again */
	unsigned list_pages;  /* S3: pages of one listing at most */
	volatile sig_atomic_t *stop; /* may be NULL; when set, requests end (-EINTR) */
};

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
	struct collector_limits lim;
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
	char *user;            /* http basic auth, with auth.password */
	struct perfsink_coll_auth auth; /* http auth; secrets never in messages */
	struct collector_limits lim; /* defaults filled in */
	void *easy;            /* CURL * */
	void *multi;           /* CURLM *: drives easy, so a stop is seen within 100 ms */
	char err[512];         /* the last error, one line, never a secret */
	int64_t retry_after_ms; /* the last answer's Retry-After, ms from then; -1: none */
	struct perfsink_coll_conf coll; /* the above for the collector client (borrowed) */
};

/*
 * Open url: "http(s)://host[:port]/path" or "s3://bucket[/prefix]"; o may
 * be NULL.  0, or -EINVAL / -EACCES (credentials missing or unreadable) /
 * -ENOMEM with c->err set.
 */
int collector_open(struct collector *c, const char *url, const struct collector_conf *o);
void collector_close(struct collector *c);
/*
 * Errors of the calls below, each with c->err set (one line): -ENOENT (404),
 * -EIO (transport or HTTP error, a stall, a connect timeout, tried
 * already), -ETIMEDOUT (a request took longer than lim.transfer_ms),
 * -EFBIG (the answer is larger than allowed), -EINTR (*lim.stop was set),
 * -EBADMSG (a listing that is not one, or an endless one), -ENOMEM.
 */
/*
 * The members of folder rel ("" or ending in '/').  HTTP: PROPFIND Depth 1,
 * falling back to a GET of nginx's JSON autoindex when PROPFIND is refused.
 * S3: at most lim.list_pages pages; a continuation token seen before is
 * -EBADMSG (a collector that would list forever).
 */
int collector_list(struct collector *c, const char *rel, struct perfsink_coll_list *out);
/* GET rel into out (appended), at most max bytes. */
int collector_get(struct collector *c, const char *rel, struct bytes *out, size_t max);
/*
 * GET rel into fd (from offset 0; a try that fails is truncated away), at
 * most max bytes; *len gets the size.  Memory stays bounded whatever the
 * size.
 */
int collector_get_fd(struct collector *c, const char *rel, int fd, uint64_t max, uint64_t *len);
/* Whether *lim.stop is set. */
int collector_stopped(const struct collector *c);
/* The URL of rel, for messages (no credentials ever are in one).  Caller frees. */
char *collector_url(const struct collector *c, const char *rel);

#endif
