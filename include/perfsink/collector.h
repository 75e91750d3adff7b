/* SPDX-License-Identifier: MIT */
/*
 * perfsink collector client: how the http sink (uploads), `perfsink
 * ls/fetch/upload` (reads) and the sinks to come reach a collector with
 * libcurl, written once: the easy handle's transport, TLS and
 * authentication (bearer, basic, or S3's SigV4 with the headers libcurl
 * 7.88 needs), an object's URL, the retry policy (which answers are
 * worth another try, the jittered backoff every user waits between
 * tries, Retry-After), and a folder's listing (PROPFIND, JSON autoindex,
 * S3 ListObjectsV2 pages).  Each user keeps its own request loop (the
 * sink's multi handle, fetch's bounded one).
 *
 * A convenience library of this tree (plugins/collector, libcollector),
 * linked into the http plugin and the perfsink program; not installed
 * (docs/ARCHITECTURE.md says why).  Nothing here logs or exits; no
 * function puts a secret in a message.  Pure functions of their arguments
 * and the handle given: any thread, one handle per thread.
 */
#ifndef PERFSINK_COLLECTOR_H
#define PERFSINK_COLLECTOR_H

#include <curl/curl.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * How to reach a collector.  Strings are borrowed (they must live as long
 * as the handle is used: libcurl copies most, not all); NULL or "" is
 * unset.  The secrets come from the kit (perfsink_kit_secret_read,
 * perfsink_kit_s3_keys_load).
 */
struct perfsink_coll_conf {
	int64_t connect_ms;      /* TCP+TLS connect timeout */
	int tls_verify;          /* 0: neither the certificate nor the name is checked */
	const char *ca_file;     /* CA bundle (PEM) */
	const char *client_cert; /* mutual TLS, with client_key */
	const char *client_key;
	/* http(s): at most one of bearer, user + password */
	const char *bearer;      /* Authorization: Bearer */
	const char *user;        /* basic auth, used when password is set */
	const char *password;
	/* s3: set region to sign every request with SigV4 (bearer and basic unused) */
	const char *s3_region;
	const char *s3_key_id, *s3_secret, *s3_token;
};

/*
 * HTTP authentication of a collector, read from the files its keys name:
 * the http sink's bearer_token_file, user and password_file, which
 * `perfsink ls/fetch/upload --config` read from the sink's section, so
 * both accept the same keys and read them the same way (the kit's secret
 * reader: O_CLOEXEC, one line, buffers wiped).  Rules: password_file
 * needs user and user needs password_file; bearer_token_file goes alone.
 */
enum perfsink_coll_auth_key {
	PERFSINK_COLL_AUTH_BEARER_FILE,
	PERFSINK_COLL_AUTH_USER,
	PERFSINK_COLL_AUTH_PASSWORD_FILE,
};
struct perfsink_coll_auth {
	char *bearer;    /* from bearer_token_file, or NULL */
	char *password;  /* from password_file, or NULL */
	/* After an error: the key at fault, and 1 when its file could not
	 * be read (the kit's error), 0 when the keys do not go together. */
	enum perfsink_coll_auth_key bad_key;
	int unreadable;
};
/*
 * Fill a from the three keys (NULL or "": unset); bearer_file is read
 * first, then password_file, then the rules are checked.  0; -EINVAL when
 * the keys do not go together; the kit's error for a file
 * (perfsink_kit_secret_read: -errno, -EINVAL for an empty first line,
 * -ENOMEM).  why gets one line that never holds a secret.  On error a
 * holds no secret (bad_key and unreadable say what failed).
 */
int perfsink_coll_auth_load(struct perfsink_coll_auth *a, const char *bearer_file, const char *user,
			    const char *password_file, char *why, size_t n);
/* Wipe and free the secrets of a (zeroed: loading again is fine). */
void perfsink_coll_auth_free(struct perfsink_coll_auth *a);

/*
 * What every request to a collector has, set on e (after curl_easy_reset
 * or on a new handle): http and https only, no signals (threads), the
 * connect timeout, TLS verification (peer and host name), the CA file,
 * the client certificate and key, and the authentication: SigV4 as
 * "aws:amz:REGION:s3" with the key id and secret, else bearer, else basic.
 * The caller adds its URL, method, body, callbacks and headers
 * (perfsink_coll_s3_headers for S3).  Returns 0, or -ENOTSUP when this
 * libcurl lacks an option asked for (SigV4 before 7.75, bearer).
 */
int perfsink_coll_easy_setup(CURL *e, const struct perfsink_coll_conf *c);

/*
 * The headers an S3 request needs beside SigV4, appended to *h: libcurl
 * 7.88 neither sends nor signs a payload hash (x-amz-content-sha256:
 * UNSIGNED-PAYLOAD), and a session token goes as x-amz-security-token
 * (the buffer that built it is wiped).  Nothing when c is not S3.
 * 0, or -ENOMEM (*h then holds what was appended before: free it).
 */
int perfsink_coll_s3_headers(struct curl_slist **h, const struct perfsink_coll_conf *c);

/*
 * The URL of an object: base (the collector's URL or S3 endpoint, no
 * trailing '/', no query) and path (already safe in a URL: escaped or of
 * [A-Za-z0-9._~/-]).  bucket NULL: base/path (a WebDAV collector);
 * path_style: base/bucket/path; else virtual-hosted,
 * scheme://bucket.host[:port][/basepath]/path.  malloc'd (the caller
 * frees it), NULL when out of memory.  No credentials are ever in one.
 */
char *perfsink_coll_url(const char *base, const char *bucket, int path_style, const char *path);

/*
 * The start of an answer, kept for its message and its XML fields (an S3
 * error's <Code>, CreateMultipartUpload's <UploadId>): its first
 * PERFSINK_COLL_ANSWER_MAX - 1 bytes, NUL-terminated, whatever its size,
 * so a collector cannot make a client hold more.  Zeroed (or reset) is
 * empty.
 */
#define PERFSINK_COLL_ANSWER_MAX 4096
struct perfsink_coll_answer {
	char text[PERFSINK_COLL_ANSWER_MAX];
	size_t len;
};
void perfsink_coll_answer_reset(struct perfsink_coll_answer *a);
/* Keep what of p (len bytes) fits; the rest is passed over.  Returns len. */
size_t perfsink_coll_answer_add(struct perfsink_coll_answer *a, const char *p, size_t len);
/* CURLOPT_WRITEFUNCTION over a struct perfsink_coll_answer (CURLOPT_WRITEDATA). */
size_t perfsink_coll_answer_write(char *p, size_t size, size_t n, void *a);
/*
 * The text between the first <tag> and the </tag> after it, in out
 * (NUL-terminated) and 1; 0 (out untouched) when the answer kept has no
 * such pair or the text does not fit in n - 1 bytes.
 */
int perfsink_coll_answer_xml(const struct perfsink_coll_answer *a, const char *tag, char *out,
			     size_t n);

/* Append header v ("Name: value") to *h.  0, or -ENOMEM (*h unchanged). */
int perfsink_coll_header_add(struct curl_slist **h, const char *v);

/*
 * A header line as libcurl's CURLOPT_HEADERFUNCTION gets it (len bytes,
 * not NUL-terminated, CRLF at its end): when it is header name (any
 * case), its value without the leading blanks and the line end, cut to
 * n - 1 bytes, NUL-terminated in out, and 1; else 0 (out untouched).
 */
int perfsink_coll_header_value(const char *line, size_t len, const char *name, char *out, size_t n);

/*
 * Whether an HTTP status is worth another try: 5xx, 408 (request
 * timeout), 429 (too many requests).  Any other answer is final.
 */
int perfsink_coll_status_transient(long status);

/*
 * CLOCK_MONOTONIC in ms: the clock that request deadlines (connect,
 * stall, total), backoff delays and Retry-After waits are measured on.
 */
int64_t perfsink_coll_mono_ms(void);

/*
 * Jittered exponential backoff ("full jitter" above a floor): the n-th
 * consecutive retry waits a uniformly random time in [ceil/2, ceil],
 * ceil = min(cap, base * 2^n).  The lower half bound keeps retries from
 * hammering a collector that just came back, the jitter keeps many
 * recorders from retrying in lockstep.  One struct per retrying thing.
 */
struct perfsink_coll_backoff {
	int64_t base_ms;
	int64_t cap_ms;
	unsigned attempt;   /* consecutive failures so far */
	uint64_t rng;       /* xorshift state; never 0 */
};
void perfsink_coll_backoff_init(struct perfsink_coll_backoff *b, int64_t base_ms, int64_t cap_ms,
				uint64_t seed);
/* Record one more failure; returns the delay before the next try, in ms. */
int64_t perfsink_coll_backoff_next(struct perfsink_coll_backoff *b);
/* A success: the next failure starts again from base. */
void perfsink_coll_backoff_reset(struct perfsink_coll_backoff *b);
/*
 * The wait before the next try, as every user of the collector schedules
 * it: what a 429/503 asked for with Retry-After (retry_after_ms >= 0,
 * perfsink_coll_retry_after_parse), at least base (a "0" cannot make a
 * client spin) and at most cap; else (-1) the jittered backoff.  Counts
 * one more failure either way.  In ms.
 */
int64_t perfsink_coll_backoff_wait(struct perfsink_coll_backoff *b, int64_t retry_after_ms);

/*
 * A Retry-After value (RFC 9110 10.2.3: delay-seconds, or an HTTP-date) as
 * ms from now; a date in the past is 0; -1 when it is neither (or more
 * than a year of seconds).
 */
int64_t perfsink_coll_retry_after_parse(const char *v);

/* ------------------------------------------------------------- listings */

/*
 * A folder of a collector, listed.  Three answers are understood: a
 * WebDAV PROPFIND multistatus (Depth: 1), nginx's JSON autoindex (a
 * collector without a WebDAV listing: GET the folder), and an S3
 * ListObjectsV2 page.  The parsers are pure, text in and entries out (no
 * I/O: a unit test feeds captured answers); nothing a collector sends is
 * trusted, so every entry is one path segment, never empty, never '/'.
 */
struct perfsink_coll_entry {
	char *name;      /* one path segment, decoded; no '/' */
	int is_dir;
	uint64_t size;
	int64_t mtime;   /* seconds since the epoch; 0 when not told */
};

struct perfsink_coll_list {
	struct perfsink_coll_entry *e;
	size_t nr, cap;
	char *next_token; /* S3: NextContinuationToken of a truncated answer, else NULL */
};

void perfsink_coll_list_free(struct perfsink_coll_list *l);
/* Add a copy of name; 0 or -ENOMEM. */
int perfsink_coll_list_add(struct perfsink_coll_list *l, const char *name, size_t len, int is_dir,
			   uint64_t size, int64_t mtime);

/* The body of a PROPFIND (Depth: 1) asking for what a listing shows. */
#define PERFSINK_COLL_PROPFIND_BODY                                         \
	"<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"                       \
	"<propfind xmlns=\"DAV:\"><prop><resourcetype/><getcontentlength/>"   \
	"<getlastmodified/></prop></propfind>\n"
/*
 * Whether the answer to a PROPFIND says this server lists no folder by
 * WebDAV (400, 403, 405, 501): a GET of the folder (nginx's JSON
 * autoindex) is the other way to list it.
 */
int perfsink_coll_propfind_refused(long status);

/*
 * PROPFIND answer for the folder whose URL path is dir_path ("/perf/h/"):
 * its members (the folder's own entry is skipped).  0, -EBADMSG, -ENOMEM.
 */
int perfsink_coll_list_propfind(const char *xml, size_t len, const char *dir_path,
				struct perfsink_coll_list *out);
/* nginx `autoindex_format json` array.  0, -EBADMSG, -ENOMEM. */
int perfsink_coll_list_autoindex(const char *json, size_t len, struct perfsink_coll_list *out);
/*
 * ListObjectsV2 with delimiter "/" under prefix (ending in '/' or empty):
 * CommonPrefixes become folders, Contents files, both named relative to
 * prefix; a truncated page's continuation in out->next_token.  0,
 * -EBADMSG, -ENOMEM.
 */
int perfsink_coll_list_s3(const char *xml, size_t len, const char *prefix,
			  struct perfsink_coll_list *out);
/* "Thu, 03 Dec 2026 12:00:00 GMT" or "2026-12-03T12:00:00.000Z"; 0 if neither. */
int64_t perfsink_coll_time_parse(const char *s);

/*
 * s percent-encoded but for [A-Za-z0-9._~-] (and '/' when keep_slash: a
 * path; else encoded: an S3 query value).  malloc'd, NULL when out of memory.
 */
char *perfsink_coll_escape(const char *s, int keep_slash);

/*
 * The ListObjectsV2 URL of one page of a listing under prefix (token: the
 * last page's continuation, or NULL for the first), its query written
 * canonically for SigV4 (sorted, values encoded, '/' as %2F as AWS
 * computes it: libcurl 7.88 signs the query as written).  slash_plain
 * writes '/' as it is: some S3-compatible servers (moto 5.2) compute the
 * signature over the decoded query and refuse %2F.  malloc'd, NULL when
 * out of memory.
 */
char *perfsink_coll_s3_list_url(const char *base, const char *bucket, int path_style,
				const char *prefix, int slash_plain, const char *token);

/*
 * The pages of one S3 listing, bounded: at most max pages, and no
 * continuation token followed twice (a collector that would list forever).
 */
struct perfsink_coll_s3_pages {
	unsigned max;    /* pages of one listing at most (0 is taken as 1) */
	unsigned pages;  /* pages answered with a continuation so far */
	uint64_t *seen;  /* hashes of the tokens followed */
};
/* 0 or -ENOMEM. */
int perfsink_coll_s3_pages_init(struct perfsink_coll_s3_pages *p, unsigned max);
void perfsink_coll_s3_pages_free(struct perfsink_coll_s3_pages *p);
/*
 * A page answered with continuation token: 0, follow it; -ELOOP, a token
 * of an earlier page of this listing; -E2BIG, max pages were asked
 * already.  p->pages counts the pages so far, for the message.
 */
int perfsink_coll_s3_pages_next(struct perfsink_coll_s3_pages *p, const char *token);

#ifdef __cplusplus
}
#endif
#endif /* PERFSINK_COLLECTOR_H */
