/*
 * The uploader's engine side: the sink ops' entry points (uploader.h),
 * which hand streams and buffers to the thread (uploader.c) under
 * ship.lock, wake it, and wait for it (barrier, upload, drain).
 */
#include "uploader_int.h"
#include "compress.h"
#include "http_conf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int uploader_new(const struct perfsink_instance *inst, const struct http_conf *conf,
		 struct spool *spool, struct uploader **out)
{
	struct uploader *u = calloc(1, sizeof(*u));
	int rc;

	if (!u)
		return -ENOMEM;
	u->inst = inst;
	u->host = inst->host;
	u->conf = conf;
	u->spool = spool;
	part_cutter_init(&u->cut, conf->part_size, conf->max_latency_ms);
	if (conf->compress) {
		u->comp = compressor_new(conf->compress_level);
		if (!u->comp) {
			free(u);
			return -ENOTSUP;
		}
	}
	rc = ship_init(&u->ship, inst, conf, spool);
	u->ship.backlog_sent_fn = backlog_buildids;
	u->ship.backlog_sent_arg = u;
	u->key_base = strdup("unknown/unknown");
	if (rc == 0 && !u->key_base)
		rc = -ENOMEM;
	if (rc == 0)
		rc = -pthread_create(&u->thread, NULL, uploader_main, u);
	if (rc == 0) {
		*out = u;
		return 0;
	}
	ship_destroy(&u->ship);
	compressor_free(u->comp);
	free(u->key_base);
	free(u);
	return rc;
}

static void wake(struct uploader *u)
{
	curl_multi_wakeup(u->ship.multi);
}

int uploader_start(struct uploader *u, const struct perfsink_stream *s, const char *session,
		   const uint8_t *prologue, size_t len)
{
	size_t cap = (s->nr_buffers ? s->nr_buffers : 1024) + 1;
	size_t n = strlen(s->host_name) + strlen(session) + 2;
	char *base = malloc(n), *host, *slash;
	struct perfsink_buf **bq = u->bq ? NULL : calloc(cap, sizeof(*bq));
	uint8_t *copy = malloc(len ? len : 1);

	if (!base || (!u->bq && !bq) || !copy) {
		free(base);
		free(bq);
		free(copy);
		return -ENOMEM;
	}
	snprintf(base, n, "%s/%s", s->host_name, session);
	host = base;
	slash = base + strlen(s->host_name);
	*slash = '\0';
	http_name_sanitize(host);
	http_name_sanitize(slash + 1);
	*slash = '/';
	memcpy(copy, prologue, len);
	pthread_mutex_lock(&u->ship.lock);
	/* A rotation comes after a barrier: the queue is empty, keep it. */
	if (bq) {
		u->bq = bq;
		u->bq_cap = cap;
	}
	free(u->next_key_base);
	u->next_key_base = base;
	u->next_start_ns = s->start_realtime_ns;
	free(u->prologue);
	u->prologue = copy;
	u->prologue_len = len;
	pthread_mutex_unlock(&u->ship.lock);
	wake(u);
	return 0;
}

int uploader_epilogue(struct uploader *u, const uint8_t *bytes, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);

	if (!copy)
		return -ENOMEM;
	memcpy(copy, bytes, len);
	pthread_mutex_lock(&u->ship.lock);
	free(u->epilogue);
	u->epilogue = copy;
	u->epilogue_len = len;
	pthread_mutex_unlock(&u->ship.lock);
	wake(u);
	return 0;
}

int uploader_write(struct uploader *u, struct perfsink_buf *buf)
{
	int rc;

	pthread_mutex_lock(&u->ship.lock);
	while (!u->ship.err && u->bq_len == u->bq_cap)
		pthread_cond_wait(&u->ship.cond, &u->ship.lock);
	rc = u->ship.err;
	if (rc == 0) {
		u->host->buf_get(buf);
		u->bq[(u->bq_head + u->bq_len) % u->bq_cap] = buf;
		u->bq_len++;
		u->ship.st.bytes_in += buf->len;
		u->ship.st.buffers++;
	}
	pthread_mutex_unlock(&u->ship.lock);
	wake(u);
	return rc;
}

static void deadline_after(struct timespec *ts, int64_t ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (ms % 1000) * 1000000;
	if (ts->tv_nsec >= 1000000000) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000;
	}
}

void uploader_ended(struct uploader *u, int64_t end_ns)
{
	pthread_mutex_lock(&u->ship.lock);
	u->end_ns = end_ns;
	pthread_mutex_unlock(&u->ship.lock);
}

int uploader_barrier(struct uploader *u)
{
	struct timespec until;
	int rc, late = 0;

	/*
	 * Everything queued becomes parts.  Then wait a little for them to be
	 * sent, so that stats() after the final barrier tell what is really
	 * pending when the collector is healthy; but never long: the engine
	 * calls barrier() at each rotation while recording, and a slow
	 * collector must not stall it (close() drains for drain_timeout).
	 */
	deadline_after(&until, u->conf->drain_timeout_ms < BARRIER_SEND_WAIT_MS ?
			       u->conf->drain_timeout_ms : BARRIER_SEND_WAIT_MS);
	pthread_mutex_lock(&u->ship.lock);
	u->flushing++;
	while (!u->ship.err && (u->bq_len || u->taking || (u->sending && !late))) {
		pthread_mutex_unlock(&u->ship.lock);
		wake(u);
		pthread_mutex_lock(&u->ship.lock);
		if (u->bq_len || u->taking)
			pthread_cond_wait(&u->ship.cond, &u->ship.lock);
		else if (u->sending)
			late = pthread_cond_timedwait(&u->ship.cond, &u->ship.lock, &until) == ETIMEDOUT;
	}
	u->flushing--;
	rc = u->ship.err;
	pthread_mutex_unlock(&u->ship.lock);
	return rc;
}

int uploader_upload(struct uploader *u, int64_t timeout_ms)
{
	struct timespec ts;
	int rc = 0;

	int64_t until = perfsink_coll_mono_ms() + timeout_ms;

	pthread_mutex_lock(&u->ship.lock);
	u->upload_req = 1;
	pthread_mutex_unlock(&u->ship.lock);
	wake(u);
	pthread_mutex_lock(&u->ship.lock);
	/* In 100 ms steps: a stop asked by a signal ends the wait within them. */
	while (!u->ship.err && !u->upload_done && rc == 0) {
		int64_t left = until - perfsink_coll_mono_ms();

		if (left <= 0)
			rc = -ETIMEDOUT;
		else if (perfsink_stop_requested(u->inst))
			rc = -EINTR;
		else {
			deadline_after(&ts, left < 100 ? left : 100);
			pthread_cond_timedwait(&u->ship.cond, &u->ship.lock, &ts);
		}
	}
	if (u->ship.err)
		rc = u->ship.err;
	else if (u->upload_done)
		rc = u->ship.quarantined || u->ship.st.lost_parts ? -EBADMSG : 0;
	pthread_mutex_unlock(&u->ship.lock);
	return rc;
}

int uploader_drain(struct uploader *u, int64_t drain_ms)
{
	int rc;

	if (u->joined)
		return u->ship.err;
	pthread_mutex_lock(&u->ship.lock);
	u->stopping = 1;
	u->drain_until = perfsink_coll_mono_ms() + drain_ms;
	pthread_mutex_unlock(&u->ship.lock);
	wake(u);
	pthread_join(u->thread, NULL);
	u->joined = 1;
	pthread_mutex_lock(&u->ship.lock);
	rc = u->ship.err;
	pthread_mutex_unlock(&u->ship.lock);
	return rc;
}

int uploader_close(struct uploader *u, int64_t drain_ms)
{
	size_t i;
	int rc = uploader_drain(u, drain_ms);

	/* Only a thread that died early could leave references here. */
	for (i = 0; i < u->bq_len; i++)
		u->host->buf_put(u->bq[(u->bq_head + i) % u->bq_cap]);
	part_cutter_destroy(&u->cut);
	compressor_free(u->comp);
	ship_destroy(&u->ship);
	free(u->prologue);
	free(u->epilogue);
	free(u->next_key_base);
	free(u->bq);
	free(u->key_base);
	free(u);
	return rc;
}

void uploader_on_buildids(struct uploader *u, uploader_buildids_fn fn, void *arg)
{
	pthread_mutex_lock(&u->ship.lock);
	u->on_buildids = fn;
	u->on_buildids_arg = arg;
	pthread_mutex_unlock(&u->ship.lock);
}

void uploader_stats(struct uploader *u, struct perfsink_sink_stats *out)
{
	pthread_mutex_lock(&u->ship.lock);
	*out = u->ship.st;
	pthread_mutex_unlock(&u->ship.lock);
}
