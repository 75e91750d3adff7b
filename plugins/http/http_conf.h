/*
 * The http sink's configuration: the struct open() builds from the parsed
 * values of its keys (http_keys.h: the key table the core validates and
 * the fields it fills), with what crosses keys checked (URL, TLS files,
 * auth, S3) and secrets read from their files.  Secrets are kept only in
 * memory and never logged.
 */
#ifndef HTTP_CONF_H
#define HTTP_CONF_H
#include <perfsink/sink.h>
#include <perfsink/collector.h>
#include <perfsink/collector_ship.h>
#include "http_keys.h"
#include <stddef.h>
#include <stdint.h>

enum http_mode { MODE_HTTP = 0, MODE_S3 };
/* symbols = ...: what is shipped to {url}/buildid/ (all: both, of every
 * file mapped; sampled: both, of the files samples fell in). */
enum http_symbols { SYMBOLS_NONE = 0, SYMBOLS_EXECUTABLE, SYMBOLS_DEBUGINFO, SYMBOLS_ALL,
		    SYMBOLS_SAMPLED };

struct http_conf {
	enum http_mode mode;
	char *url;              /* validated, without trailing '/' */
	size_t part_size;
	int64_t max_latency_ms;
	size_t queue_size;
	enum coll_overflow overflow;  /* <perfsink/collector_ship.h> */
	const char *spool_dir;
	uint64_t spool_max;
	int64_t drain_timeout_ms, backoff_base_ms, backoff_cap_ms;
	int64_t connect_timeout_ms, stall_timeout_ms;
	/* tls_verify, ca_file, client_cert, client_key ("" when unset) and user
	 * are stored in coll (below) by the key map; the secrets are owned here. */
	struct perfsink_coll_auth auth; /* bearer_token_file's and password_file's */
	char **headers;         /* "Name: value", NULL-terminated */
	/* s3 */
	const char *region, *bucket, *prefix;
	int path_style;
	char *access_key, *secret_key, *session_token;
	size_t multipart_chunk;
	int compress;           /* 0 none, 1 zstd */
	int compress_level;
	enum http_symbols symbols;
	uint64_t symbols_max;   /* bytes of one shipped file at most */
	uint64_t symbols_budget; /* bytes shipped per session at most; 0: no limit */
	int err_key;            /* after a failed load: the key at fault, or -1 */
	/* How requests reach the collector (<perfsink/collector.h>): TLS and
	 * user from the keys, the rest pointing at the fields above. */
	struct perfsink_coll_conf coll;
	/* What the object shipper reads (<perfsink/collector_ship.h>), pointing
	 * at the fields above: c must not move once loaded. */
	struct coll_ship_conf ship;
};

/*
 * Build c from the validated values.  Returns 0, or a negative errno with
 * one line of reason in err (never containing a secret).
 */
int http_conf_load(struct http_conf *c, const struct perfsink_value *v, char *err, size_t errlen);
void http_conf_free(struct http_conf *c);

/*
 * Check that url is absolute http(s) with a host, no credentials, query or
 * fragment.  Returns 0 or -EINVAL with the reason in err.
 */
int http_url_check(const char *url, char *err, size_t errlen);

/* Make s usable as one path segment (and S3 key part): [A-Za-z0-9._-]. */
void http_name_sanitize(char *s);

#endif
