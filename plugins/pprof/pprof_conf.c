/* The pprof sink's keys and their checks; see pprof_conf.h. */
#include "pprof_conf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define C struct pprof_conf
/* The keys once: KEY stored into struct pprof_conf, in this order. */
#define PPROF_KEYS(KEY, ONLY)                                                                     \
	KEY(K_URL, "url", PERFSINK_KEY_STRING, NULL, 0, 0, NULL,                                  \
	    "Pyroscope server (pyroscope), collector base URL or S3 endpoint (put)", C, url)       \
	KEY(K_MODE, "mode", PERFSINK_KEY_ENUM, "pyroscope", 0, 0, "pyroscope|put",                \
	    "pyroscope: POST {url}/ingest; put: PUT {url}/{host}/{session}/{from}.pb.gz", C, mode) \
	KEY(K_APP, "app", PERFSINK_KEY_STRING, "perfsink", 0, 0, NULL,                            \
	    "pyroscope: application name (name=APP{host=...,labels})", C, app)                    \
	KEY(K_LABELS, "labels", PERFSINK_KEY_STRING, "", 0, 0, NULL,                              \
	    "pyroscope: more labels, \"k=v,k=v\" (host is always one)", C, labels)                \
	KEY(K_WINDOW, "window", PERFSINK_KEY_DURATION, "10s", 100, 3600000, NULL,                 \
	    "aggregate this long, then ship the window as one profile", C, window_ms)             \
	KEY(K_MAX_MEMORY, "max_memory", PERFSINK_KEY_SIZE, "64M", 1048576, 0, NULL,               \
	    "memory of one window's aggregate; samples past it are dropped (counted)", C,         \
	    max_memory)                                                                            \
	KEY(K_SYMBOLIZE, "symbolize", PERFSINK_KEY_ENUM, "none", 0, 0, "none|local",              \
	    "none: addresses and build-ids, the backend symbolizes; local: named here", C,        \
	    symbolize)                                                                            \
	KEY(K_SYMBOL_CACHE_MAX, "symbol_cache_max", PERFSINK_KEY_SIZE, "256M", 0, 0, NULL,        \
	    "files' symbols kept across windows; past it the least recently used are dropped", C, \
	    symbol_cache_max)                                                                      \
	KEY(K_UNWIND_MAX, "unwind_max", PERFSINK_KEY_INT, "256", 0, 1000000, NULL,                \
	    "processes whose DWARF unwinder is kept across windows; past it the least recently "  \
	    "used are dropped", C, unwind_max)                                                     \
	KEY(K_QUEUE_MAX, "queue_max", PERFSINK_KEY_SIZE, "64M", 1024, 0, NULL,                    \
	    "profiles waiting in memory; past it they go to spool_dir, or the oldest is dropped", \
	    C, queue_max)                                                                          \
	KEY(K_SPOOL_DIR, "spool_dir", PERFSINK_KEY_STRING, "", 0, 0, NULL,                        \
	    "profiles not sent yet are kept here, and sent by the next run (empty: memory only)", \
	    C, spool_dir)                                                                          \
	KEY(K_SPOOL_MAX, "spool_max", PERFSINK_KEY_SIZE, "1G", 0, 1ll << 40, NULL,                \
	    "size cap of the spool; beyond it profiles are lost (counted)", C, spool_max)         \
	KEY(K_OVERFLOW, "overflow", PERFSINK_KEY_ENUM, "spool", 0, 0, "spool|drop_oldest",        \
	    "with spool_dir, past queue_max: spool to disk, or drop the oldest profile", C,       \
	    overflow)                                                                              \
	KEY(K_DRAIN_TIMEOUT, "drain_timeout", PERFSINK_KEY_DURATION, "10s", 0, 0, NULL,           \
	    "at the end, how long to wait for the collector", C, drain_timeout_ms)                \
	KEY(K_BACKOFF_BASE, "backoff_base", PERFSINK_KEY_DURATION, "500ms", 1, 0, NULL,           \
	    "first retry delay (jittered, doubling)", C, backoff_base_ms)                         \
	KEY(K_BACKOFF_CAP, "backoff_cap", PERFSINK_KEY_DURATION, "30s", 1, 0, NULL,               \
	    "longest retry delay", C, backoff_cap_ms)                                              \
	KEY(K_CONNECT_TIMEOUT, "connect_timeout", PERFSINK_KEY_DURATION, "5s", 1, 0, NULL,        \
	    "TCP+TLS connect timeout", C, connect_ms)                                              \
	KEY(K_REQUEST_TIMEOUT, "request_timeout", PERFSINK_KEY_DURATION, "30s", 1, 0, NULL,       \
	    "a request with no byte moving this long is retried", C, request_ms)                  \
	KEY(K_TLS_VERIFY, "tls_verify", PERFSINK_KEY_BOOL, "true", 0, 0, NULL,                    \
	    "verify the server certificate and name", C, tls_verify)                              \
	KEY(K_CA_FILE, "ca_file", PERFSINK_KEY_STRING, "", 0, 0, NULL,                            \
	    "CA bundle (PEM) to verify the server with", C, ca_file)                              \
	KEY(K_CLIENT_CERT, "client_cert", PERFSINK_KEY_STRING, "", 0, 0, NULL,                    \
	    "client certificate (PEM) for mutual TLS", C, client_cert)                            \
	KEY(K_CLIENT_KEY, "client_key", PERFSINK_KEY_STRING, "", 0, 0, NULL,                      \
	    "private key (PEM) of client_cert", C, client_key)                                    \
	KEY(K_BEARER, "bearer_token_file", PERFSINK_KEY_STRING, "", 0, 0, NULL,                   \
	    "file holding a bearer token", C, bearer_token_file)                                  \
	KEY(K_USER, "user", PERFSINK_KEY_STRING, "", 0, 0, NULL,                                  \
	    "user for HTTP basic auth (password from password_file)", C, user)                    \
	KEY(K_PASSWORD_FILE, "password_file", PERFSINK_KEY_STRING, "", 0, 0, NULL,                \
	    "file holding the basic-auth password", C, password_file)                             \
	KEY(K_HEADERS, "headers", PERFSINK_KEY_STRING, "", 0, 0, NULL,                            \
	    "extra request headers, \"Name: value | Name: value\"", C, headers)                   \
	KEY(K_BUCKET, "bucket", PERFSINK_KEY_STRING, "", 0, 0, NULL,                              \
	    "put: an S3 bucket at url (SigV4); empty: a WebDAV collector", C, bucket)             \
	KEY(K_REGION, "region", PERFSINK_KEY_STRING, "us-east-1", 0, 0, NULL,                     \
	    "put with bucket: region for SigV4", C, region)                                        \
	KEY(K_PREFIX, "prefix", PERFSINK_KEY_STRING, "", 0, 0, NULL,                              \
	    "put: key prefix before {host}/{session}/{from}.pb.gz", C, prefix)                    \
	KEY(K_PATH_STYLE, "path_style", PERFSINK_KEY_BOOL, "false", 0, 0, NULL,                   \
	    "put with bucket: {url}/{bucket}/key instead of {bucket}.host", C, path_style)        \
	KEY(K_CREDENTIALS_FILE, "credentials_file", PERFSINK_KEY_STRING, "", 0, 0, NULL,          \
	    "put with bucket: AWS credentials file (default: environment, ~/.aws)", C,            \
	    credentials_file)                                                                      \
	KEY(K_PROFILE, "profile", PERFSINK_KEY_STRING, "default", 0, 0, NULL,                     \
	    "put with bucket: profile in credentials_file", C, profile)
PERFSINK_KIT_KEYS(PPROF_KEYS, pprof_key_table, pprof_map);

const struct perfsink_key *pprof_conf_keys(void) { return pprof_key_table; }

/* "ORIGIN: " of key k for messages, or "". */
static const char *origin(const struct perfsink_instance *inst, unsigned k, char *buf, size_t n)
{
	const char *o = perfsink_value_origin(inst, k);
	snprintf(buf, n, "%s%s", o ? o : "", o ? ": " : "");
	return buf;
}

/* Only the characters an object key or a query value may hold as they are. */
static int safe_text(const char *s)
{
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._~-=,/", *s))
			return 0;
	return 1;
}

/* S3's keys, else the auth keys read and checked as the http sink's are. */
static int read_secrets(struct pprof_conf *c, const struct perfsink_instance *inst, char *why,
			size_t n)
{
	static const unsigned key_of[] = {
		[PERFSINK_COLL_AUTH_BEARER_FILE] = K_BEARER,
		[PERFSINK_COLL_AUTH_USER] = K_USER,
		[PERFSINK_COLL_AUTH_PASSWORD_FILE] = K_PASSWORD_FILE,
	};
	char o[512], msg[256];

	if (c->bucket[0])
		return perfsink_kit_s3_keys_load(&c->s3, c->credentials_file, c->profile, why, n);
	int rc = perfsink_coll_auth_load(&c->auth, c->bearer_token_file, c->user, c->password_file,
					 msg, sizeof(msg));
	if (rc && c->auth.unreadable)
		snprintf(why, n, "%s", msg); /* the kit's message names the key and its file */
	else if (rc)
		snprintf(why, n, "%s%s", origin(inst, key_of[c->auth.bad_key], o, sizeof(o)), msg);
	return rc;
}

/* The user's "Name: value | Name: value" as the shipper's NULL-ended list. */
static int headers_split(struct pprof_conf *c, char *why, size_t n)
{
	char *copy = strdup(c->headers), *save = NULL;
	size_t k = 0;
	c->header_list = calloc(strlen(c->headers) / 2 + 2, sizeof(char *));
	if (!copy || !c->header_list) {
		free(copy);
		snprintf(why, n, "out of memory");
		return -ENOMEM;
	}
	for (char *t = strtok_r(copy, "|", &save); t; t = strtok_r(NULL, "|", &save)) {
		t += strspn(t, " \t");
		size_t l = strlen(t);
		while (l && (t[l - 1] == ' ' || t[l - 1] == '\t'))
			t[--l] = 0;
		if (l && !(c->header_list[k++] = strdup(t))) {
			free(copy);
			snprintf(why, n, "out of memory");
			return -ENOMEM;
		}
	}
	free(copy);
	return 0;
}

/* What the object shipper reads (<perfsink/collector_ship.h>); c must not move. */
static void ship_fill(struct pprof_conf *c)
{
	c->ship = (struct coll_ship_conf){
		.s3 = c->bucket[0] != 0,
		.url = c->url,
		.bucket = c->bucket,
		.prefix = c->prefix,
		.path_style = c->path_style,
		.headers = c->header_list,
		.coll = &c->coll,
		/* Without a spool the memory cap drops the oldest, as before spool_dir. */
		.overflow = c->spool_dir[0] && c->overflow == 0 ? OVERFLOW_SPOOL : OVERFLOW_DROP_OLDEST,
		.queue_size = c->queue_max,
		.backoff_base_ms = c->backoff_base_ms,
		.backoff_cap_ms = c->backoff_cap_ms,
		.stall_timeout_ms = c->request_ms,
		.multipart_chunk = PPROF_MULTIPART_CHUNK,
		.key_suffix = ".pb.gz",
		.objects = "windows",
		.resend = "the next run",
	};
}

int pprof_conf_load(struct pprof_conf *c, const struct perfsink_instance *inst, char *why,
		    size_t n)
{
	char o[512];
	memset(c, 0, sizeof(*c));
	int rc = perfsink_kit_conf_fill(pprof_key_table, inst->values, pprof_map, c);
	if (rc) {
		snprintf(why, n, "internal: key table: %s", strerror(-rc));
		return rc;
	}
	if (strncmp(c->url, "http://", 7) && strncmp(c->url, "https://", 8)) {
		snprintf(why, n, "%surl must begin with http:// or https://", origin(inst, K_URL, o, sizeof(o)));
		return -EINVAL;
	}
	if (!safe_text(c->app) || !safe_text(c->labels) || !safe_text(c->prefix)) {
		snprintf(why, n, "%sapp, labels and prefix may hold only [A-Za-z0-9._~-=,/]",
			 origin(inst, K_APP, o, sizeof(o)));
		return -EINVAL;
	}
	if (c->bucket[0] && c->mode != PPROF_MODE_PUT) {
		snprintf(why, n, "%sbucket is for mode = put", origin(inst, K_BUCKET, o, sizeof(o)));
		return -EINVAL;
	}
	rc = read_secrets(c, inst, why, n);
	if (!rc)
		rc = headers_split(c, why, n);
	if (rc)
		return rc;
	c->coll = (struct perfsink_coll_conf){
		.connect_ms = c->connect_ms, .tls_verify = c->tls_verify, .ca_file = c->ca_file,
		.client_cert = c->client_cert, .client_key = c->client_key, .bearer = c->auth.bearer,
		.user = c->user, .password = c->auth.password,
	};
	if (c->bucket[0]) {
		c->coll.s3_region = c->region;
		c->coll.s3_key_id = c->s3.id;
		c->coll.s3_secret = c->s3.secret;
		c->coll.s3_token = c->s3.token;
	}
	ship_fill(c);
	return 0;
}

void pprof_conf_free(struct pprof_conf *c)
{
	perfsink_coll_auth_free(&c->auth);
	perfsink_kit_s3_keys_free(&c->s3);
	for (size_t i = 0; c->header_list && c->header_list[i]; i++)
		free(c->header_list[i]);
	free(c->header_list);
	c->header_list = NULL;
}
