/*
 * One request to a collector, within limits it cannot stretch (see
 * collector.h): libcurl's multi interface drives the transfer so that this
 * loop looks at the stop flag, the stall clock and the total clock at least
 * every 100 ms, whatever the server does (one byte every 0.5 s kept a
 * blocking transfer alive for 24 minutes past SIGTERM).
 */
#include "fetch/collector_priv.h"

#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include <perfsink/collector.h>

/* How often the loop looks at the clocks and the stop flag. */
#define TICK_MS 100

int collector_stopped(const struct collector *c)
{
	return c->lim.stop && *c->lim.stop;
}

/* "30s" or "1500ms", for messages that name an option's value. */
static const char *dur(int64_t ms, char *buf, size_t n)
{
	if (ms % 1000 == 0)
		snprintf(buf, n, "%" PRId64 "s", ms / 1000);
	else
		snprintf(buf, n, "%" PRId64 "ms", ms);
	return buf;
}

/* ------------------------------------------------------------ the body */

void body_sink_mem(struct body_sink *s, struct collector *c, struct bytes *mem, uint64_t max)
{
	memset(s, 0, sizeof(*s));
	s->c = c;
	s->mem = mem;
	s->fd = -1;
	s->max = max;
	s->mem_start = mem->len;
}

void body_sink_fd(struct body_sink *s, struct collector *c, int fd, uint64_t max)
{
	memset(s, 0, sizeof(*s));
	s->c = c;
	s->fd = fd;
	s->max = max;
}

/* A new try: what the last one stored is not the body. */
static int body_sink_reset(struct body_sink *s)
{
	s->n = 0;
	s->too_big = s->werr = 0;
	perfsink_coll_answer_reset(&s->err_body);
	if (s->mem) {
		s->mem->len = s->mem_start;
		return 0;
	}
	if (ftruncate(s->fd, 0) < 0 || lseek(s->fd, 0, SEEK_SET) < 0)
		return -errno;
	return 0;
}

static int fd_write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static size_t body_write(char *p, size_t size, size_t n, void *arg)
{
	struct body_sink *s = arg;
	size_t len = size * n;
	long st = 0;

	curl_easy_getinfo(s->c->easy, CURLINFO_RESPONSE_CODE, &st);
	if (st < 200 || st >= 300)
		return perfsink_coll_answer_add(&s->err_body, p, len);
	if (len > s->max - s->n) {
		s->too_big = 1;
		return 0;
	}
	if (s->mem) {
		bytes_add(s->mem, p, len);
		s->werr = s->mem->err;
	} else {
		s->werr = fd_write_all(s->fd, p, len);
	}
	if (s->werr)
		return 0;
	s->n += len;
	return len;
}

void collector_status_error(struct collector *c, const char *method, const char *url, long status,
			    const struct body_sink *s)
{
	char code[64] = " "; /* " NoSuchBucket": the S3 error's code after the status */
	int has_code = perfsink_coll_answer_xml(&s->err_body, "Code", code + 1, sizeof(code) - 1);

	COLL_ERR(c, "%s %s: HTTP %ld%s", method, url, status, has_code ? code : "");
}

/* ------------------------------------------------------------ one try */

int collector_curl_init(struct collector *c)
{
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		COLL_ERR(c, "libcurl initialization failed");
		return -ENOMEM;
	}
	c->easy = curl_easy_init();
	c->multi = curl_multi_init();
	if (!c->easy || !c->multi) {
		collector_curl_free(c);
		return -ENOMEM;
	}
	return 0;
}

void collector_curl_free(struct collector *c)
{
	if (c->multi)
		curl_multi_cleanup(c->multi);
	if (c->easy)
		curl_easy_cleanup(c->easy);
	if (c->multi || c->easy)
		curl_global_cleanup();
	c->multi = c->easy = NULL;
}

enum cut { CUT_NONE, CUT_STOP, CUT_STALL, CUT_TOTAL };

/* Run the easy handle to its end, or cut it; its result in *cc. */
static enum cut perform(struct collector *c, CURLcode *cc)
{
	CURLM *m = c->multi;
	CURL *e = c->easy;
	int64_t start = perfsink_coll_mono_ms(), mark = start;
	curl_off_t mark_bytes = 0;
	enum cut cut = CUT_NONE;
	int running = 1;
	CURLMsg *msg;
	int left;

	*cc = CURLE_OK;
	curl_multi_add_handle(m, e);
	while (running) {
		if (curl_multi_perform(m, &running) != CURLM_OK) {
			*cc = CURLE_OUT_OF_MEMORY;
			break;
		}
		if (!running)
			break;
		int64_t now = perfsink_coll_mono_ms();
		curl_off_t dl = 0, ul = 0;
		curl_easy_getinfo(e, CURLINFO_SIZE_DOWNLOAD_T, &dl);
		curl_easy_getinfo(e, CURLINFO_SIZE_UPLOAD_T, &ul);
		if (dl + ul - mark_bytes >= COLLECTOR_STALL_BYTES) {
			mark_bytes = dl + ul;
			mark = now;
		}
		if (collector_stopped(c))
			cut = CUT_STOP;
		else if (now - start >= c->lim.transfer_ms)
			cut = CUT_TOTAL;
		else if (now - mark >= c->lim.stall_ms)
			cut = CUT_STALL;
		if (cut)
			break;
		curl_multi_poll(m, NULL, 0, TICK_MS, NULL);
	}
	while ((msg = curl_multi_info_read(m, &left)))
		if (msg->msg == CURLMSG_DONE)
			*cc = msg->data.result;
	curl_multi_remove_handle(m, e);
	return cut;
}

/* CURLOPT_HEADERFUNCTION: keep what a Retry-After asks for (429, 503). */
static size_t header_read(char *line, size_t size, size_t n, void *arg)
{
	struct collector *c = arg;
	char v[64];

	if (perfsink_coll_header_value(line, size * n, "Retry-After", v, sizeof(v)))
		c->retry_after_ms = perfsink_coll_retry_after_parse(v);
	return size * n;
}

/* The request's options: the collector client's (transport, TLS, auth,
 * SigV4), then ours.  0 or -ENOMEM/-ENOTSUP. */
static int options_set(struct collector *c, const char *method, const char *url, const char *body,
			struct body_sink *out)
{
	CURL *e = c->easy;

	curl_easy_reset(e);
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, body_write);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, out);
	c->retry_after_ms = -1;
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, header_read);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, c);
	if (method)
		curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);
	if (body) {
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
	}
	return perfsink_coll_easy_setup(e, &c->coll);
}

/* The request's headers; NULL with *rc -ENOMEM when one could not be added. */
static struct curl_slist *headers_make(struct collector *c, const char *body, int depth, int *rc)
{
	struct curl_slist *h = NULL;

	*rc = body ? perfsink_coll_header_add(&h, "Content-Type: application/xml") : 0;
	if (*rc == 0 && depth >= 0)
		*rc = perfsink_coll_header_add(&h, depth ? "Depth: 1" : "Depth: 0");
	if (*rc == 0)
		*rc = perfsink_coll_s3_headers(&h, &c->coll);
	if (*rc) {
		curl_slist_free_all(h);
		return NULL;
	}
	return h;
}

/* -EAGAIN: a failure worth another try (c->err says it). */
static long request_once(struct collector *c, const char *method, const char *url, const char *body,
			 int depth, struct body_sink *out)
{
	const char *m = method ? method : "GET";
	char d[32];
	CURLcode cc;
	long status = 0;

	int rc = options_set(c, method, url, body, out);
	struct curl_slist *h = rc ? NULL : headers_make(c, body, depth, &rc);
	if (rc) {
		COLL_ERR(c, "%s %s: %s", m, url, strerror(-rc));
		return rc;
	}
	curl_easy_setopt(c->easy, CURLOPT_HTTPHEADER, h);
	enum cut cut = perform(c, &cc);
	curl_slist_free_all(h);
	switch (cut) {
	case CUT_STOP:
		COLL_ERR(c, "%s %s: interrupted", m, url);
		return -EINTR;
	case CUT_TOTAL:
		COLL_ERR(c, "%s %s: not done after %s (--transfer-timeout): cut", m, url,
			 dur(c->lim.transfer_ms, d, sizeof(d)));
		return -ETIMEDOUT;
	case CUT_STALL:
		COLL_ERR(c, "%s %s: less than %d bytes moved in %s (--stall-timeout)", m, url,
			 COLLECTOR_STALL_BYTES, dur(c->lim.stall_ms, d, sizeof(d)));
		return -EAGAIN;
	case CUT_NONE:
		break;
	}
	if (out->too_big) {
		COLL_ERR(c, "%s %s: the answer is larger than %" PRIu64 " bytes: refused", m, url, out->max);
		return -EFBIG;
	}
	if (out->werr) {
		COLL_ERR(c, "%s %s: cannot keep the answer: %s", m, url, strerror(-out->werr));
		return out->werr;
	}
	if (cc != CURLE_OK) {
		COLL_ERR(c, "%s %s: %s", m, url, curl_easy_strerror(cc));
		return cc == CURLE_OPERATION_TIMEDOUT || cc == CURLE_COULDNT_CONNECT ||
		       cc == CURLE_RECV_ERROR || cc == CURLE_SEND_ERROR || cc == CURLE_GOT_NOTHING ||
		       cc == CURLE_PARTIAL_FILE ? -EAGAIN : -EIO;
	}
	curl_easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &status);
	return status;
}

/* Sleep ms; 0, or -EINTR as soon as the stop flag is set. */
static int nap(struct collector *c, long ms)
{
	for (; ms > 0; ms -= TICK_MS) {
		if (collector_stopped(c))
			return -EINTR;
		struct timespec ts = { 0, (ms < TICK_MS ? ms : TICK_MS) * 1000000L };
		nanosleep(&ts, NULL);
	}
	return collector_stopped(c) ? -EINTR : 0;
}

/* Each reader waits its own jittered time: many fetches do not retry in step. */
static uint64_t retry_seed(void)
{
	return (uint64_t)perfsink_coll_mono_ms() * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
}

long collector_request(struct collector *c, const char *method, const char *url, const char *body,
		       int depth, struct body_sink *out)
{
	const char *m = method ? method : "GET";
	struct perfsink_coll_backoff bo;

	perfsink_coll_backoff_init(&bo, COLLECTOR_RETRY_BASE_MS, COLLECTOR_RETRY_CAP_MS, retry_seed());
	for (;;) {
		int rc = body_sink_reset(out);
		if (rc) {
			COLL_ERR(c, "%s %s: cannot keep the answer: %s", m, url, strerror(-rc));
			return rc;
		}
		long st = request_once(c, method, url, body, depth, out);
		int transient = st == -EAGAIN || perfsink_coll_status_transient(st);
		if (!transient || bo.attempt + 1 >= COLLECTOR_TRIES)
			return st == -EAGAIN ? -EIO : st;
		/* Only an answer asks for a time; a cut request waits the backoff. */
		int64_t asked = st == 429 || st == 503 ? c->retry_after_ms : -1;
		long wait = (long)perfsink_coll_backoff_wait(&bo, asked);
		if (st < 0)
			pr_debug("%s; trying again in %ld ms", c->err, wait);
		else
			pr_debug("%s %s: status %ld; trying again in %ld ms%s", m, url, st, wait,
				 asked >= 0 ? ", as it asked (Retry-After)" : "");
		if (nap(c, wait) < 0) {
			COLL_ERR(c, "%s %s: interrupted", m, url);
			return -EINTR;
		}
	}
}
