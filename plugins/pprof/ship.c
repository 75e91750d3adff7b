/* Shipping the windows' profiles; see ship.h. */
#include "ship.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <curl/curl.h>
#include <perfsink/kit.h>
#include <perfsink/collector.h>

struct item {
	struct item *next;
	uint8_t *data;
	size_t len;
	int64_t from_ns, until_ns;
	uint64_t samples;
};

struct ship {
	const struct pprof_conf *c;
	const struct perfsink_instance *inst;
	char *host, *session, *types;   /* host: made safe for a key and a label */
	pthread_t thr;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct item *head, *tail;
	int inflight, stop, stopped;
	struct pship_stats st;
	struct perfsink_coll_backoff bo;
	CURL *e;
	int64_t retry_after_ms;         /* from the last answer; -1: none */
	char answer[160];               /* the start of the last answer's body */
	size_t answer_len;
};

#define LOG(s, lvl, ...) (s)->inst->host->log((s)->inst, PERFSINK_LOG_##lvl, __VA_ARGS__)

static void item_free(struct item *it)
{
	free(it->data);
	free(it);
}

/* ----------------------------------------------------------- a request */

struct body {
	const uint8_t *p;
	size_t left;
};

static size_t read_cb(char *buf, size_t size, size_t n, void *arg)
{
	struct body *b = arg;
	size_t k = size * n < b->left ? size * n : b->left;
	memcpy(buf, b->p, k);
	b->p += k;
	b->left -= k;
	return k;
}

static size_t write_cb(char *p, size_t size, size_t n, void *arg)
{
	struct ship *s = arg;
	size_t k = size * n, room = sizeof(s->answer) - 1 - s->answer_len;
	memcpy(s->answer + s->answer_len, p, k < room ? k : room);
	s->answer_len += k < room ? k : room;
	s->answer[s->answer_len] = 0;
	return k;
}

static size_t header_cb(char *p, size_t size, size_t n, void *arg)
{
	struct ship *s = arg;
	size_t k = size * n;
	char v[64];
	if (perfsink_coll_header_value(p, k, "Retry-After", v, sizeof(v)))
		s->retry_after_ms = perfsink_coll_retry_after_parse(v);
	return k;
}

/* A stop request abandons the request in flight. */
static int progress_cb(void *arg, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
	struct ship *s = arg;
	(void)a; (void)b; (void)c; (void)d;
	return __atomic_load_n(&s->stop, __ATOMIC_RELAXED);
}

/* The user's "Name: value | Name: value" headers, appended to *h. */
static int user_headers(struct curl_slist **h, const char *spec)
{
	char *copy = strdup(spec), *save = NULL;
	if (!copy)
		return -ENOMEM;
	int rc = 0;
	for (char *t = strtok_r(copy, "|", &save); t && !rc; t = strtok_r(NULL, "|", &save)) {
		t += strspn(t, " \t");
		size_t l = strlen(t);
		while (l && (t[l - 1] == ' ' || t[l - 1] == '\t'))
			t[--l] = 0;
		if (l)
			rc = perfsink_coll_header_add(h, t);
	}
	free(copy);
	return rc;
}

/* The URL of it; malloc'd, NULL when out of memory. */
static char *url_of(struct ship *s, const struct item *it)
{
	const struct pprof_conf *c = s->c;
	char *u = NULL;
	if (c->mode == PPROF_MODE_PUT) {
		char path[1024];
		snprintf(path, sizeof(path), "%s%s%s/%s/%" PRId64 ".pb.gz", c->prefix,
			 c->prefix[0] ? "/" : "", s->host, s->session, it->from_ns / 1000000);
		return perfsink_coll_url(c->url, c->bucket[0] ? c->bucket : NULL, c->path_style, path);
	}
	char name[768];
	snprintf(name, sizeof(name), "%s{host=%s%s%s}", c->app, s->host, c->labels[0] ? "," : "",
		 c->labels);
	char *esc = curl_easy_escape(s->e, name, 0);
	int64_t from = it->from_ns / 1000000000, until = (it->until_ns + 999999999) / 1000000000;
	if (until <= from)
		until = from + 1;
	size_t n = esc ? strlen(c->url) + strlen(esc) + 128 : 0;
	if (esc && (u = malloc(n)))
		snprintf(u, n, "%s/ingest?name=%s&from=%" PRId64 "&until=%" PRId64
			 "&format=pprof&spyName=perfsink", c->url, esc, from, until);
	curl_free(esc);
	return u;
}

/* The multipart body Pyroscope's ingest takes for format=pprof. */
static curl_mime *form(struct ship *s, const struct item *it)
{
	curl_mime *m = curl_mime_init(s->e);
	curl_mimepart *p = m ? curl_mime_addpart(m) : NULL;
	if (!p || curl_mime_name(p, "profile") || curl_mime_filename(p, "profile.pb.gz") ||
	    curl_mime_type(p, "application/octet-stream") ||
	    curl_mime_data(p, (const char *)it->data, it->len))
		goto fail;
	p = curl_mime_addpart(m);
	if (!p || curl_mime_name(p, "sample_type_config") ||
	    curl_mime_filename(p, "sample_type_config.json") || curl_mime_type(p, "application/json") ||
	    curl_mime_data(p, s->types, CURL_ZERO_TERMINATED))
		goto fail;
	return m;
fail:
	curl_mime_free(m);
	return NULL;
}

/* One try: 0 stored, 1 worth another try, -1 refused for good (why says). */
static int send_one(struct ship *s, const struct item *it, char *why, size_t n)
{
	const struct pprof_conf *c = s->c;
	struct curl_slist *h = NULL;
	curl_mime *m = NULL;
	struct body b = { it->data, it->len };
	char *url = url_of(s, it);
	int rc = -1;
	curl_easy_reset(s->e);
	s->retry_after_ms = -1;
	s->answer_len = 0;
	s->answer[0] = 0;
	if (!url || perfsink_coll_easy_setup(s->e, &c->coll) || user_headers(&h, c->headers) ||
	    perfsink_coll_s3_headers(&h, &c->coll)) {
		snprintf(why, n, "cannot set up the request (memory, or libcurl lacks an option)");
		goto out;
	}
	curl_easy_setopt(s->e, CURLOPT_URL, url);
	curl_easy_setopt(s->e, CURLOPT_TIMEOUT_MS, (long)c->request_ms);
	curl_easy_setopt(s->e, CURLOPT_WRITEFUNCTION, write_cb);
	curl_easy_setopt(s->e, CURLOPT_WRITEDATA, s);
	curl_easy_setopt(s->e, CURLOPT_HEADERFUNCTION, header_cb);
	curl_easy_setopt(s->e, CURLOPT_HEADERDATA, s);
	curl_easy_setopt(s->e, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(s->e, CURLOPT_XFERINFOFUNCTION, progress_cb);
	curl_easy_setopt(s->e, CURLOPT_XFERINFODATA, s);
	if (c->mode == PPROF_MODE_PUT) {
		perfsink_coll_header_add(&h, "Content-Type: application/octet-stream");
		curl_easy_setopt(s->e, CURLOPT_UPLOAD, 1L);
		curl_easy_setopt(s->e, CURLOPT_READFUNCTION, read_cb);
		curl_easy_setopt(s->e, CURLOPT_READDATA, &b);
		curl_easy_setopt(s->e, CURLOPT_INFILESIZE_LARGE, (curl_off_t)it->len);
	} else if (!(m = form(s, it))) {
		snprintf(why, n, "cannot build the form: out of memory");
		goto out;
	} else {
		curl_easy_setopt(s->e, CURLOPT_MIMEPOST, m);
	}
	curl_easy_setopt(s->e, CURLOPT_HTTPHEADER, h);
	CURLcode cr = curl_easy_perform(s->e);
	long status = 0;
	curl_easy_getinfo(s->e, CURLINFO_RESPONSE_CODE, &status);
	const char *what = c->mode == PPROF_MODE_PUT ? "PUT" : "POST";
	if (cr != CURLE_OK) {
		snprintf(why, n, "%s %s: %s", what, url, curl_easy_strerror(cr));
		rc = 1;
	} else if (status >= 200 && status < 300) {
		rc = 0;
	} else {
		s->answer[strcspn(s->answer, "\r\n")] = 0;
		snprintf(why, n, "%s %s: HTTP %ld %s", what, url, status, s->answer);
		rc = perfsink_coll_status_transient(status) ? 1 : -1;
	}
out:
	curl_mime_free(m);
	curl_slist_free_all(h);
	free(url);
	return rc;
}

/* ------------------------------------------------------------ the loop */

static void pop(struct ship *s)
{
	struct item *it = s->head;
	s->head = it->next;
	if (!s->head)
		s->tail = NULL;
	s->st.queued--;
	s->st.queued_bytes -= it->len;
	item_free(it);
	pthread_cond_broadcast(&s->cv);
}

/* Sleep until ms on the monotonic clock or a stop. */
static void wait_until(struct ship *s, int64_t due_ms)
{
	while (!s->stop && perfsink_coll_mono_ms() < due_ms) {
		struct timespec ts;
		int64_t left = due_ms - perfsink_coll_mono_ms();
		if (left > 100)
			left = 100;   /* short naps: drain's deadline and stop checks stay prompt */
		perfsink_kit_deadline(CLOCK_MONOTONIC, left > 0 ? left : 0, &ts);
		pthread_cond_timedwait(&s->cv, &s->mu, &ts);
	}
}

static void after(struct ship *s, struct item *it, int r, const char *why)
{
	if (r == 0) {
		if (s->bo.attempt)
			LOG(s, INFO, "the collector takes profiles again after %u failed tries",
			    s->bo.attempt);
		s->st.sent++;
		s->st.sent_bytes += it->len;
		s->st.state = PERFSINK_STATE_OK;
		s->st.retry_in_ms = 0;
		perfsink_coll_backoff_reset(&s->bo);
		pop(s);
		return;
	}
	if (r < 0) {
		LOG(s, ERROR, "%s; the window of %" PRIu64 " samples is lost", why, it->samples);
		s->st.lost++;
		s->st.lost_samples += it->samples;
		pop(s);
		return;
	}
	s->st.retries++;
	int64_t d = perfsink_coll_backoff_next(&s->bo);
	if (s->retry_after_ms >= 0)
		d = s->retry_after_ms;
	if (s->bo.attempt == 1)
		LOG(s, WARN, "%s; trying again (profiles wait in memory, queue_max %" PRIu64 " bytes)",
		    why, s->c->queue_max);
	s->st.state = PERFSINK_STATE_RETRYING;
	s->st.retry_in_ms = (uint32_t)d;
	wait_until(s, perfsink_coll_mono_ms() + d);
}

static void *loop(void *arg)
{
	struct ship *s = arg;
	char why[1024];
	pthread_mutex_lock(&s->mu);
	while (!s->stop) {
		if (!s->head) {
			pthread_cond_wait(&s->cv, &s->mu);
			continue;
		}
		struct item *it = s->head;
		s->inflight = 1;
		pthread_mutex_unlock(&s->mu);
		int r = send_one(s, it, why, sizeof(why));
		pthread_mutex_lock(&s->mu);
		s->inflight = 0;
		if (!s->stop)
			after(s, it, r, why);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* --------------------------------------------------------- the interface */

/* host with every character a key or a label may not hold made '_'. */
static char *safe_host(const char *h)
{
	char *s = strdup(h && *h ? h : "localhost");
	for (char *p = s; p && *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *p))
			*p = '_';
	return s;
}

int pship_create(const struct pprof_conf *c, const struct perfsink_instance *inst, const char *host,
		const char *session, const char *types, struct ship **out)
{
	struct ship *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->c = c;
	s->inst = inst;
	s->host = safe_host(host);
	s->session = safe_host(session);
	s->types = strdup(types);
	s->e = curl_easy_init();
	perfsink_coll_backoff_init(&s->bo, c->backoff_base_ms, c->backoff_cap_ms,
				   (uint64_t)perfsink_coll_mono_ms() ^ (uintptr_t)s);
	if (!s->host || !s->session || !s->types || !s->e) {
		if (s->e)
			curl_easy_cleanup(s->e);
		s->e = NULL;   /* no thread yet: pship_destroy only frees */
		pship_destroy(s, NULL);
		return -ENOMEM;
	}
	pthread_mutex_init(&s->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cv, &ca);
	pthread_condattr_destroy(&ca);
	int rc = pthread_create(&s->thr, NULL, loop, s);
	if (rc) {
		pthread_mutex_destroy(&s->mu);
		pthread_cond_destroy(&s->cv);
		curl_easy_cleanup(s->e);
		s->e = NULL;
		free(s->host); free(s->session); free(s->types); free(s);
		return -rc;
	}
	*out = s;
	return 0;
}

void pship_push(struct ship *s, uint8_t *data, size_t len, int64_t from_ns, int64_t until_ns,
	       uint64_t samples)
{
	struct item *it = calloc(1, sizeof(*it));
	pthread_mutex_lock(&s->mu);
	if (!it) {
		free(data);
		s->st.lost++;
		s->st.lost_samples += samples;
		pthread_mutex_unlock(&s->mu);
		LOG(s, ERROR, "out of memory: a window of %" PRIu64 " samples is lost", samples);
		return;
	}
	*it = (struct item){ NULL, data, len, from_ns, until_ns, samples };
	/* Over queue_max: the oldest not in flight go (an outage keeps the newest). */
	struct item **pp = s->inflight && s->head ? &s->head->next : &s->head;
	while (*pp && s->st.queued_bytes + len > s->c->queue_max) {
		struct item *old = *pp;
		*pp = old->next;
		if (s->tail == old)
			s->tail = pp == &s->head ? NULL : s->head;
		s->st.queued--;
		s->st.queued_bytes -= old->len;
		s->st.lost++;
		s->st.lost_samples += old->samples;
		LOG(s, WARN, "queue_max reached: dropping the window of %" PRIu64
		    " samples from %" PRId64 " ms", old->samples, old->from_ns / 1000000);
		item_free(old);
	}
	if (s->tail)
		s->tail->next = it;
	else
		s->head = it;
	s->tail = it;
	s->st.queued++;
	s->st.queued_bytes += len;
	if (s->st.state == PERFSINK_STATE_RETRYING)
		s->st.state = PERFSINK_STATE_SPOOLING;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

int pship_drain(struct ship *s, int64_t timeout_ms)
{
	int64_t due = perfsink_coll_mono_ms() + timeout_ms;
	pthread_mutex_lock(&s->mu);
	while (s->head && perfsink_coll_mono_ms() < due && !perfsink_stop_requested(s->inst)) {
		struct timespec ts;
		perfsink_kit_deadline(CLOCK_MONOTONIC, 100, &ts);
		pthread_cond_timedwait(&s->cv, &s->mu, &ts);
	}
	int rc = s->head ? -ETIMEDOUT : 0;
	pthread_mutex_unlock(&s->mu);
	return rc;
}

void pship_where(const struct ship *s, char *buf, size_t n)
{
	const struct pprof_conf *c = s->c;
	char path[1024];
	char *u = NULL;
	if (c->mode == PPROF_MODE_PUT) {
		snprintf(path, sizeof(path), "%s%s%s/%s/", c->prefix, c->prefix[0] ? "/" : "", s->host,
			 s->session);
		u = perfsink_coll_url(c->url, c->bucket[0] ? c->bucket : NULL, c->path_style, path);
		snprintf(buf, n, "%s", u ? u : c->url);
		free(u);
		return;
	}
	snprintf(buf, n, "%s/ingest?name=%s{host=%s%s%s}", c->url, c->app, s->host,
		 c->labels[0] ? "," : "", c->labels);
}

void pship_stats(struct ship *s, struct pship_stats *out)
{
	pthread_mutex_lock(&s->mu);
	*out = s->st;
	pthread_mutex_unlock(&s->mu);
}

void pship_stop(struct ship *s)
{
	if (!s->e || s->stopped)
		return;
	pthread_mutex_lock(&s->mu);
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->thr, NULL);
	s->stopped = 1;
	pthread_mutex_lock(&s->mu);
	while (s->head) {
		s->st.lost++;
		s->st.lost_samples += s->head->samples;
		pop(s);
	}
	s->st.state = PERFSINK_STATE_OK;
	s->st.retry_in_ms = 0;
	pthread_mutex_unlock(&s->mu);
}

void pship_destroy(struct ship *s, struct pship_stats *final)
{
	if (!s)
		return;
	if (s->e) {
		pship_stop(s);
		if (final)
			*final = s->st;
		pthread_mutex_destroy(&s->mu);
		pthread_cond_destroy(&s->cv);
		curl_easy_cleanup(s->e);
	}
	free(s->host);
	free(s->session);
	free(s->types);
	free(s);
}
