/*
 * Inside src/fetch: one HTTP request to a collector, with the limits of
 * struct collector_limits (collector_request.c), for collector.c.
 */
#ifndef PS_FETCH_COLLECTOR_PRIV_H
#define PS_FETCH_COLLECTOR_PRIV_H
#include "fetch/collector.h"

#define COLL_ERR(c, ...) snprintf((c)->err, sizeof((c)->err), __VA_ARGS__)

/* Where the body of a 2xx answer goes: mem (appended), or fd (mem NULL). */
struct body_sink {
	struct bytes *mem;
	int fd;
	uint64_t max;         /* more than this: the request ends, -EFBIG */
	uint64_t n;           /* bytes taken by this try */
	size_t mem_start;     /* mem->len before the first try */
	int too_big, werr;    /* set by the write callback */
	struct perfsink_coll_answer err_body; /* start of a non-2xx answer (for its S3 <Code>) */
	struct collector *c;
};

void body_sink_mem(struct body_sink *s, struct collector *c, struct bytes *mem, uint64_t max);
void body_sink_fd(struct body_sink *s, struct collector *c, int fd, uint64_t max);

/*
 * method (NULL: GET) on url, with an optional XML body and Depth header
 * (-1: none).  Returns the HTTP status of the last try, or a negative
 * errno as in collector.h with c->err set.  Transient failures are tried
 * again (see collector.h).
 */
long collector_request(struct collector *c, const char *method, const char *url, const char *body,
		       int depth, struct body_sink *out);
/* c->err for an HTTP error status, with the S3 error code of the answer when there is one. */
void collector_status_error(struct collector *c, const char *method, const char *url, long status,
			    const struct body_sink *s);
/* curl_easy_init + curl_multi_init into c.  0 or -ENOMEM. */
int collector_curl_init(struct collector *c);
void collector_curl_free(struct collector *c);

#endif
