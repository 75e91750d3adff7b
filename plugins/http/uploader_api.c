/*
 * The uploader's engine side: the sink ops' entry points (uploader.h),
 * which hand streams and buffers to the thread (uploader.c) under
 * ship.lock, wake it, and wait for it (barrier, upload, drain).
 */
#include "uploader_int.h"
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
	rc = ship_init(&u->ship, inst, &conf->ship, spool);
	u->ship.backlog_sent_fn = backlog_buildids;
	u->ship.backlog_sent_arg = u;
	u->key_base = strdup("unknown/unknown");
	if (rc == 0 && !u->key_base)
		rc = -ENOMEM;
	if (rc == 0)
		rc = perfsink_kit_worker_new(&(struct perfsink_kit_worker_conf){
			.host = u->host, .idle = up_idle, .wake = up_wake, .arg = u }, &u->worker);
	if (rc == 0) {
		*out = u;
		return 0;
	}
	ship_destroy(&u->ship);
	free(u->key_base);
	free(u);
	return rc;
}

/* Queue j; 0 or the fatal error (j freed). */
static int push(struct uploader *u, struct up_job *j)
{
	int rc;

	pthread_mutex_lock(&u->ship.lock);
	rc = u->ship.err;
	pthread_mutex_unlock(&u->ship.lock);
	if (rc) {
		j->kj.buf = NULL;
		j->kj.done(&j->kj);
		return rc;
	}
	return perfsink_kit_worker_push(u->worker, &j->kj);
}

int uploader_start(struct uploader *u, const struct perfsink_stream *s, const char *session,
		   const uint8_t *prologue, size_t len)
{
	size_t n = strlen(s->host_name) + strlen(session) + 2;
	struct up_job *j = up_job_new(u, UP_START);
	char *host, *slash;

	if (!j || !(j->key_base = malloc(n)) || !(j->bytes = malloc(len ? len : 1))) {
		if (j)
			j->kj.done(&j->kj);
		return -ENOMEM;
	}
	snprintf(j->key_base, n, "%s/%s", s->host_name, session);
	host = j->key_base;
	slash = j->key_base + strlen(s->host_name);
	*slash = '\0';
	http_name_sanitize(host);
	http_name_sanitize(slash + 1);
	*slash = '/';
	memcpy(j->bytes, prologue, len);
	j->len = len;
	j->start_ns = s->start_realtime_ns;
	/* A start comes first or after a barrier: its job runs before the buffers after it. */
	push(u, j);
	return 0;
}

int uploader_epilogue(struct uploader *u, const uint8_t *bytes, size_t len)
{
	struct up_job *j = up_job_new(u, UP_EPILOGUE);

	if (!j || !(j->bytes = malloc(len ? len : 1))) {
		if (j)
			j->kj.done(&j->kj);
		return -ENOMEM;
	}
	memcpy(j->bytes, bytes, len);
	j->len = len;
	push(u, j);
	return 0;
}

int uploader_write(struct uploader *u, struct perfsink_buf *buf)
{
	struct up_job *j = up_job_new(u, UP_BUFFER);
	int rc;

	if (!j)
		return -ENOMEM;
	j->kj.buf = buf; /* the worker holds a reference until it is in a part */
	rc = push(u, j);
	if (rc == 0) {
		pthread_mutex_lock(&u->ship.lock);
		u->ship.st.bytes_in += perfsink_buf_raw_len(buf); /* before compression */
		u->ship.st.buffers++;
		pthread_mutex_unlock(&u->ship.lock);
	}
	return rc;
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
	struct up_job *j = up_job_new(u, UP_FLUSH);

	if (!j)
		return -ENOMEM;
	pthread_mutex_lock(&u->ship.lock);
	u->flushing++;
	pthread_mutex_unlock(&u->ship.lock);
	if (push(u, j) == 0)
		perfsink_kit_worker_barrier(u->worker);
	perfsink_kit_deadline(CLOCK_REALTIME, u->conf->drain_timeout_ms < BARRIER_SEND_WAIT_MS ?
			      u->conf->drain_timeout_ms : BARRIER_SEND_WAIT_MS, &until);
	pthread_mutex_lock(&u->ship.lock);
	while (!u->ship.err && u->sending && !late)
		late = pthread_cond_timedwait(&u->ship.cond, &u->ship.lock, &until) == ETIMEDOUT;
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

	struct up_job *j = up_job_new(u, UP_UPLOAD);

	if (!j)
		return -ENOMEM;
	pthread_mutex_lock(&u->ship.lock);
	u->upload_req = 1;
	pthread_mutex_unlock(&u->ship.lock);
	push(u, j);
	pthread_mutex_lock(&u->ship.lock);
	/* In 100 ms steps: a stop asked by a signal ends the wait within them. */
	while (!u->ship.err && !u->upload_done && rc == 0) {
		int64_t left = until - perfsink_coll_mono_ms();

		if (left <= 0)
			rc = -ETIMEDOUT;
		else if (perfsink_stop_requested(u->inst))
			rc = -EINTR;
		else {
			perfsink_kit_deadline(CLOCK_REALTIME, left < 100 ? left : 100, &ts);
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
	struct up_job *j = up_job_new(u, UP_DRAIN);

	pthread_mutex_lock(&u->ship.lock);
	u->stopping = 1;
	u->drain_until = perfsink_coll_mono_ms() + drain_ms;
	pthread_mutex_unlock(&u->ship.lock);
	/* Pushed even after a fatal error: what is queued still goes to the spool. */
	if (!j || perfsink_kit_worker_push(u->worker, &j->kj) < 0)
		LOG(u, ERROR, "no memory for the drain: unsent parts are not spooled");
	perfsink_kit_worker_stop(u->worker);
	u->joined = 1;
	pthread_mutex_lock(&u->ship.lock);
	rc = u->ship.err;
	pthread_mutex_unlock(&u->ship.lock);
	return rc;
}

int uploader_close(struct uploader *u, int64_t drain_ms)
{
	int rc = uploader_drain(u, drain_ms);

	perfsink_kit_worker_free(u->worker);
	part_cutter_destroy(&u->cut);
	ship_destroy(&u->ship);
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
