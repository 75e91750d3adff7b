/*
 * The http sink's keys, declared once (kit 1.5, PERFSINK_KIT_KEYS): name,
 * type, default, range, choices, the line `perfsink sinks` prints, and the
 * field of struct http_conf that receives the value (KEY), or none (ONLY:
 * http_conf.c reads those itself: url is checked, the files are read, the
 * headers parsed).  From it come enum http_key below, http_keys[] (the
 * ops' table) and the map perfsink_kit_conf_fill fills struct http_conf
 * by, in http_conf.c.  man/perfsink.ini.5 documents each key: keep both
 * true together.
 */
#ifndef HTTP_KEYS_H
#define HTTP_KEYS_H
#include <perfsink/sink.h>
#include <perfsink/kit.h>

/*
 * Upper bounds of queue_size (memory: a larger queue only postpones what
 * the spool does, and a typo such as 1T must not become a promise of a
 * terabyte of RAM) and spool_max (disk).
 */
#define HTTP_QUEUE_SIZE_MAX (4ll << 30)
#define HTTP_SPOOL_MAX_MAX (1ll << 40)

#define HTTP_KEYS(KEY, ONLY)                                                                    \
	ONLY(K_URL, "url", PERFSINK_KEY_STRING, NULL, 0, 0, NULL,                               \
	     "collector base URL (http mode) or S3 endpoint (s3 mode)")                         \
	KEY(K_MODE, "mode", PERFSINK_KEY_ENUM, "http", 0, 0, "http|s3",                         \
	    "http: PUT to {url}/{host}/{session}/{seq}; s3: objects in a bucket",               \
	    struct http_conf, mode)                                                             \
	KEY(K_PART_SIZE, "part_size", PERFSINK_KEY_SIZE, "4M", 4096, 1ll << 32, NULL,           \
	    "cut the stream into parts of at most this size", struct http_conf, part_size)      \
	KEY(K_MAX_LATENCY, "max_latency", PERFSINK_KEY_DURATION, "1s", 10, 0, NULL,             \
	    "upload a part when it is this old", struct http_conf, max_latency_ms)              \
	KEY(K_QUEUE_SIZE, "queue_size", PERFSINK_KEY_SIZE, "32M", 4096, HTTP_QUEUE_SIZE_MAX, NULL, \
	    "memory for parts waiting to be sent", struct http_conf, queue_size)                \
	KEY(K_OVERFLOW, "overflow", PERFSINK_KEY_ENUM, "spool", 0, 0, "spool|drop_oldest|block", \
	    "when the queue is full: spool to disk, drop the oldest part, or block",            \
	    struct http_conf, overflow)                                                         \
	KEY(K_SPOOL_DIR, "spool_dir", PERFSINK_KEY_PATH, "/var/spool/perfsink", 0, 0, NULL,     \
	    "parts not sent yet are kept here, and sent by the next run or `perfsink "          \
	    "upload`", struct http_conf, spool_dir)                                             \
	KEY(K_SPOOL_MAX, "spool_max", PERFSINK_KEY_SIZE, "1G", 0, HTTP_SPOOL_MAX_MAX, NULL,     \
	    "size cap of the spool; beyond it parts are lost (counted)",                        \
	    struct http_conf, spool_max)                                                        \
	KEY(K_DRAIN_TIMEOUT, "drain_timeout", PERFSINK_KEY_DURATION, "10s", 0, 0, NULL,         \
	    "at close, keep sending this long; the rest stays in the spool",                    \
	    struct http_conf, drain_timeout_ms)                                                 \
	KEY(K_BACKOFF_BASE, "backoff_base", PERFSINK_KEY_DURATION, "500ms", 1, 0, NULL,         \
	    "first retry delay (jittered, doubling)", struct http_conf, backoff_base_ms)        \
	KEY(K_BACKOFF_CAP, "backoff_cap", PERFSINK_KEY_DURATION, "30s", 1, 0, NULL,             \
	    "longest retry delay", struct http_conf, backoff_cap_ms)                            \
	KEY(K_CONNECT_TIMEOUT, "connect_timeout", PERFSINK_KEY_DURATION, "5s", 1, 0, NULL,      \
	    "TCP+TLS connect timeout", struct http_conf, connect_timeout_ms)                    \
	KEY(K_STALL_TIMEOUT, "stall_timeout", PERFSINK_KEY_DURATION, "10s", 1000, 0, NULL,      \
	    "abort (and retry) a request that moves no byte for this long",                     \
	    struct http_conf, stall_timeout_ms)                                                 \
	KEY(K_TLS_VERIFY, "tls_verify", PERFSINK_KEY_BOOL, "true", 0, 0, NULL,                  \
	    "verify the server certificate and name", struct http_conf, coll.tls_verify)        \
	KEY(K_CA_FILE, "ca_file", PERFSINK_KEY_STRING, "", 0, 0, NULL,                          \
	    "CA bundle (PEM) to verify the server with", struct http_conf, coll.ca_file)        \
	KEY(K_CLIENT_CERT, "client_cert", PERFSINK_KEY_STRING, "", 0, 0, NULL,                  \
	    "client certificate (PEM) for mutual TLS", struct http_conf, coll.client_cert)      \
	KEY(K_CLIENT_KEY, "client_key", PERFSINK_KEY_STRING, "", 0, 0, NULL,                    \
	    "private key (PEM) of client_cert", struct http_conf, coll.client_key)              \
	ONLY(K_BEARER_TOKEN_FILE, "bearer_token_file", PERFSINK_KEY_STRING, "", 0, 0, NULL,     \
	     "file holding a bearer token (Authorization: Bearer)")                             \
	KEY(K_USER, "user", PERFSINK_KEY_STRING, "", 0, 0, NULL,                                \
	    "user for HTTP basic auth (password from password_file)",                           \
	    struct http_conf, coll.user)                                                        \
	ONLY(K_PASSWORD_FILE, "password_file", PERFSINK_KEY_STRING, "", 0, 0, NULL,             \
	     "file holding the basic-auth password")                                            \
	ONLY(K_HEADERS, "headers", PERFSINK_KEY_STRING, "", 0, 0, NULL,                         \
	     "extra request headers, \"Name: value | Name: value\"")                            \
	KEY(K_REGION, "region", PERFSINK_KEY_STRING, "us-east-1", 0, 0, NULL,                   \
	    "s3: region for SigV4", struct http_conf, region)                                   \
	KEY(K_BUCKET, "bucket", PERFSINK_KEY_STRING, "", 0, 0, NULL,                            \
	    "s3: bucket (required in s3 mode)", struct http_conf, bucket)                       \
	KEY(K_PREFIX, "prefix", PERFSINK_KEY_STRING, "", 0, 0, NULL,                            \
	    "s3: key prefix before {host}/{session}/{seq}", struct http_conf, prefix)           \
	KEY(K_PATH_STYLE, "path_style", PERFSINK_KEY_BOOL, "false", 0, 0, NULL,                 \
	    "s3: {url}/{bucket}/{key} instead of {bucket}.{host}/{key}",                        \
	    struct http_conf, path_style)                                                       \
	ONLY(K_CREDENTIALS_FILE, "credentials_file", PERFSINK_KEY_STRING, "", 0, 0, NULL,       \
	     "s3: AWS credentials file when AWS_ACCESS_KEY_ID is not set (default "             \
	     "~/.aws/credentials)")                                                             \
	ONLY(K_PROFILE, "profile", PERFSINK_KEY_STRING, "default", 0, 0, NULL,                  \
	     "s3: profile in credentials_file")                                                 \
	KEY(K_MULTIPART_CHUNK, "multipart_chunk", PERFSINK_KEY_SIZE, "8M", 5ll << 20,           \
	    5ll << 30, NULL,                                                                    \
	    "s3: parts larger than this are sent as a multipart upload of such chunks",         \
	    struct http_conf, multipart_chunk)                                                  \
	KEY(K_COMPRESS, "compress", PERFSINK_KEY_ENUM, "none", 0, 0, "none|zstd",               \
	    "zstd: COMPRESSED records in the stream (perf -z style)",                           \
	    struct http_conf, compress)                                                         \
	KEY(K_COMPRESS_LEVEL, "compress_level", PERFSINK_KEY_INT, "1", 1, 19, NULL,             \
	    "zstd level", struct http_conf, compress_level)                                     \
	KEY(K_SYMBOLS, "symbols", PERFSINK_KEY_ENUM, "sampled", 0, 0,                           \
	    "none|executable|debuginfo|all|sampled",                                            \
	    "ship to {url}/buildid/ the mapped files (executable), their debug files "          \
	    "(debuginfo), both (all), both of the files samples fell in only "                  \
	    "(sampled), or none", struct http_conf, symbols)                                    \
	KEY(K_SYMBOLS_MAX, "symbols_max", PERFSINK_KEY_SIZE, "512M", 1, 0, NULL,                \
	    "a file larger than this is not shipped (counted)", struct http_conf, symbols_max)  \
	KEY(K_SYMBOLS_BUDGET, "symbols_budget", PERFSINK_KEY_SIZE, "0", 0, 0, NULL,             \
	    "symbol bytes shipped per session at most, the rest skipped (counted); 0:"          \
	    " no limit", struct http_conf, symbols_budget)

/* Index of each key in http_keys[] (and in the values open() is given). */
enum http_key { PERFSINK_KIT_KEYS_ENUM(HTTP_KEYS) K_COUNT };

extern const struct perfsink_key http_keys[K_COUNT + 1];

#endif
