/*
 * One upload of one part: a PUT of the part's bytes to its URL (http mode,
 * or s3 mode with SigV4), on a curl easy handle that the caller adds to its
 * multi handle.  Large s3 parts go as a multipart upload (create, one PUT
 * per multipart_chunk, complete): the transfer is then a short sequence of
 * requests, advanced with transfer_done() after each one.
 *
 * Single-threaded: transfers belong to the sink's thread.
 */
#ifndef HTTP_TRANSFER_H
#define HTTP_TRANSFER_H
#include <curl/curl.h>
#include <stddef.h>
#include <stdint.h>

struct http_conf;
struct part;

enum transfer_result {
	XFER_DONE = 0,   /* the part is stored */
	XFER_NEXT,       /* next request of a multipart upload is ready: add easy again */
	XFER_RETRY,      /* connect error, timeout, 5xx, 408, 429: try again later */
	XFER_FATAL,      /* 4xx or a local error: retrying cannot help */
};

struct transfer;

/* A transfer for p (whose bytes are in memory); NULL on allocation failure. */
struct transfer *transfer_new(const struct http_conf *c, struct part *p);
/* The easy handle of the current request; valid until the next call. */
CURL *transfer_easy(struct transfer *t);
/*
 * The current request finished with code cc.  On XFER_RETRY the same
 * request is set up again; msg gets one line for the log (status, method
 * and URL, never credentials).
 */
enum transfer_result transfer_done(struct transfer *t, CURLcode cc, char *msg, size_t msglen);
struct part *transfer_part(const struct transfer *t);
/*
 * After transfer_done() gave XFER_RETRY for a 429 or 503: the wait the
 * collector asked for with Retry-After, in ms; -1 when it asked nothing.
 */
int64_t transfer_retry_after(const struct transfer *t);
/*
 * CLOCK_MONOTONIC ms at which the current request counts as stalled
 * (stall_timeout without a byte moving): the owner must drive curl by then.
 */
int64_t transfer_stall_deadline(const struct transfer *t);
void transfer_free(struct transfer *t);

/*
 * Whether the collector has an object at key (HEAD, blocking, at most
 * timeout_ms): 1 with its size in *size, 0 when it has none (404), or
 * -ETIMEDOUT, -EIO (msg says why: status or curl error), -ENOMEM.  For a
 * thread of its own (the symbol shipper), not the uploader's multi handle.
 * abort_fn (may be NULL), called with arg about once a second and more
 * often while bytes move, ends the request when it returns non-zero.
 */
int transfer_head(const struct http_conf *c, const char *key, int64_t timeout_ms,
		  curl_xferinfo_callback abort_fn, void *arg, uint64_t *size, char *msg, size_t msglen);

/* The URL a part goes to (no credentials): for messages and tests. */
char *transfer_url(const struct http_conf *c, const char *key);

#endif
