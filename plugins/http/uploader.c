/* The http sink's thread: parts, uploads, retries, spool; see uploader.h. */
#include "uploader.h"
#include "compress.h"
#include "http_conf.h"
#include "part.h"
#include "spool.h"
#include "transfer.h"
#include <perfsink/kit.h>

#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TAKE_MAX 64
/* Longest wait of barrier() for queued parts to be sent. */
#define BARRIER_SEND_WAIT_MS 250

struct uploader {
	const struct perfsink_instance *inst;
	const struct perfsink_host *host;
	const struct http_conf *conf;
	struct spool *spool;
	CURLM *multi;
	pthread_t thread;

	/*
	 * Leaf lock: nothing else is locked while it is held, and no host
	 * call but buf_get is made under it.  cond signals any change below.
	 */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct perfsink_buf **bq;  /* engine -> thread, ring of bq_cap */
	size_t bq_cap, bq_head, bq_len;
	int taking;                /* thread holds buffers taken from bq */
	int sending;               /* parts are queued and the collector is up */
	int flushing;              /* a barrier waits: ignore the block throttle */
	uint8_t *prologue;         /* handed over by uploader_start */
	size_t prologue_len;
	uint8_t *epilogue;         /* handed over by uploader_epilogue */
	size_t epilogue_len;
	char *next_key_base;       /* "{host}/{session}" of the stream handed over */
	int64_t next_start_ns;     /* its CLOCK_REALTIME start (stream->start_realtime_ns) */
	int64_t end_ns;            /* CLOCK_REALTIME the last stream ended; 0: not told */
	int upload_req, upload_done;
	uploader_buildids_fn on_buildids; /* set by uploader_on_buildids */
	void *on_buildids_arg;
	uint64_t quarantined;      /* spool entries moved to quarantine */
	int stopping;              /* set by uploader_close */
	int64_t drain_until;       /* with stopping */
	int err;                   /* first fatal error, 0 if none; set by fail() */
	struct perfsink_sink_stats st;

	/* Thread only. */
	int t_stopping;            /* copies of stopping and drain_until, */
	int64_t t_drain_until;     /* taken under lock by engine_side_take */
	struct part_cutter cut;
	struct part *q_head, *q_tail; /* this run's parts, seq order */
	size_t q_mem;              /* bytes of data parts only in memory */
	struct part *backlog;      /* parts of earlier runs, key order */
	int backlog_scanned;
	struct transfer *xfer;
	struct perfsink_coll_backoff bo;
	int64_t next_try;
	int down;                  /* last attempt failed; retrying */
	struct perfsink_kit_lost_template lt;
	int have_lt;
	char *key_base;            /* "{host}/{session}" of the parts being cut */
	int64_t start_ns;          /* CLOCK_REALTIME its stream began */
	int64_t t_end_ns;          /* copy of end_ns, taken with stopping */
	struct compressor *comp;   /* compress = zstd, else NULL */
	uint64_t lost_parts;
	int loss_warned;
	int end_queued;            /* the end marker of key_base is queued */
	int end_spool_warned;      /* an end marker could not be spooled: said once */
	uint64_t ends_sent;        /* end markers delivered (not parts: not in st.files) */
	int have_stream;           /* key_base names a stream begun by start() */
	/* Whose data waits in the spool: this run's parts, earlier runs' (backlog). */
	uint64_t spooled_parts, spooled_bytes, backlog_parts, backlog_bytes, backlog_sent;
	int interrupted;           /* a second Ctrl-C ended the drain */
	int recording;             /* a stream began: the host prints the summary */
	int joined;                /* engine side: the thread has ended (drain) */
};

#define LOG(u, lvl, ...) (u)->host->log((u)->inst, PERFSINK_LOG_##lvl, __VA_ARGS__)

/* Thread: the first fatal error; the engine side reads err under the lock. */
static void fail(struct uploader *u, int rc)
{
	pthread_mutex_lock(&u->lock);
	if (!u->err)
		u->err = rc;
	pthread_cond_broadcast(&u->cond);
	pthread_mutex_unlock(&u->lock);
}

/* ------------------------------------------------------------ part queue */

static int part_in_flight(const struct uploader *u, const struct part *p)
{
	return u->xfer && transfer_part(u->xfer) == p;
}

static int part_in_memory_only(const struct part *p)
{
	return p->kind == PART_DATA && p->body.data && !p->spool_path;
}

/* Replace p's records by a LOST marker that tells perf how many were lost. */
static void part_drop(struct uploader *u, struct part *p, const char *why)
{
	uint8_t rec[PERFSINK_KIT_LOST_RECORD_MAX];
	size_t n = u->have_lt ? perfsink_kit_lost_record_write(&u->lt, p->records, rec, sizeof(rec)) : 0;

	if (part_in_memory_only(p))
		u->q_mem -= p->body.len;
	pthread_mutex_lock(&u->lock);
	u->st.dropped_bytes += p->body.len;
	u->st.dropped_records += p->records;
	pthread_mutex_unlock(&u->lock);
	u->lost_parts++;
	if (!u->loss_warned) {
		LOG(u, WARN, "losing data: part %" PRIu64 " (%zu bytes, %" PRIu64 " records) dropped: %s; "
		    "a LOST record marks the gap", p->seq, p->body.len, p->records, why);
		u->loss_warned = 1;
	}
	p->kind = PART_META;
	p->body.len = 0;
	p->records = 0;
	if (n && part_append(p, rec, n) < 0)
		p->body.len = 0;
}

/*
 * An end marker goes to the spool like a part, after its stream's parts
 * (the queue's order), but is never replaced by a LOST record: one the
 * spool cannot take is only not sent, and said once.
 */
static void end_spill(struct uploader *u, struct part *p)
{
	if (spool_put(u->spool, p) == 0) { /* a marker is no part: not in spooled_parts */
		u->spooled_bytes += p->body.len;
		part_unload(p);
	} else if (!u->end_spool_warned) {
		LOG(u, WARN, "the end marker %s cannot be spooled (%s): it is not sent, and the session "
		    "shows as not ended even once its parts are sent", p->key, u->spool->err);
		u->end_spool_warned = 1;
	}
}

/* Move p's bytes to the spool; drop p when the spool cannot take them. */
static void part_spill(struct uploader *u, struct part *p)
{
	int was_mem = part_in_memory_only(p);
	int rc;

	if (p->spool_path || !p->body.data)
		return;
	if (p->kind == PART_END) {
		end_spill(u, p);
		return;
	}
	rc = spool_put(u->spool, p);
	if (rc == -ENOSPC) {
		part_drop(u, p, "spool full (spool_max)");
		rc = spool_put(u->spool, p);
	} else if (rc < 0) {
		part_drop(u, p, u->spool->err);
		rc = spool_put(u->spool, p);
	}
	if (rc == 0) {
		if (was_mem && p->kind == PART_DATA)
			u->q_mem -= p->body.len;
		u->spooled_parts++;
		u->spooled_bytes += p->body.len;
		part_unload(p);
	}
}

/* p leaves the queue or the backlog (sent, or gone from the spool): uncount it. */
static void part_leaves(struct uploader *u, const struct part *p, int sent)
{
	if (p != u->q_head) {
		u->backlog_parts -= p->kind != PART_END;
		u->backlog_bytes -= p->body.len;
		if (sent)
			u->backlog_sent += p->body.len;
	} else if (p->spool_path) {
		u->spooled_parts -= p->kind != PART_END;
		u->spooled_bytes -= p->body.len;
	}
}

static void policy_apply(struct uploader *u)
{
	const struct http_conf *c = u->conf;
	struct part *p;

	if (c->overflow == OVERFLOW_SPOOL) {
		int all = u->down || u->err;

		for (p = u->q_head; p && (all || u->q_mem > c->queue_size); p = p->next)
			if (!part_in_flight(u, p))
				part_spill(u, p);
	} else if (c->overflow == OVERFLOW_DROP_OLDEST) {
		for (p = u->q_head; p && u->q_mem > c->queue_size; p = p->next)
			if (!part_in_flight(u, p) && part_in_memory_only(p))
				part_drop(u, p, "queue full (overflow = drop_oldest)");
	}
}

static void part_enqueue(struct uploader *u, struct part *p)
{
	size_t n;

	if (!p)
		return;
	n = strlen(u->key_base) + 24;
	if (!p->key)
		p->key = malloc(n);
	if (p->key && p->kind != PART_END)
		snprintf(p->key, n, "%s/%010" PRIu64, u->key_base, p->seq);
	if (u->q_tail)
		u->q_tail->next = p;
	else
		u->q_head = p;
	u->q_tail = p;
	if (part_in_memory_only(p))
		u->q_mem += p->body.len;
	policy_apply(u);
}

static void part_unlink_head(struct part **head, struct part **tail, struct part *p)
{
	*head = p->next;
	if (tail && *tail == p)
		*tail = NULL;
	p->next = NULL;
}

/* ------------------------------------------------------------- transfers */

/* p, the head of the queue or of the backlog, is gone from the spool. */
static void part_forget(struct uploader *u, struct part *p)
{
	part_leaves(u, p, 0);
	if (p == u->q_head)
		part_unlink_head(&u->q_head, &u->q_tail, p);
	else
		part_unlink_head(&u->backlog, NULL, p);
	part_free(p);
}

static void transfer_begin(struct uploader *u, struct part *p)
{
	int rc = 0;

	if (!p->body.data && p->spool_path)
		rc = spool_load(u->spool, p);
	if (rc == -EBADMSG || rc == -ENOENT) {
		/* Quarantined (and reported), or removed by someone else. */
		if (rc == -ENOENT)
			LOG(u, WARN, "spool %s: vanished before it was sent", p->spool_path);
		part_forget(u, p);
		return;
	}
	if (rc < 0) {
		LOG(u, ERROR, "%s", u->spool->err);
		fail(u, rc);
		return;
	}
	u->xfer = transfer_new(u->conf, p);
	if (!u->xfer) {
		fail(u, -ENOMEM);
		return;
	}
	LOG(u, DEBUG, "part %s: request starts", p->key);
	curl_multi_add_handle(u->multi, transfer_easy(u->xfer));
}

static void transfers_pump(struct uploader *u, int64_t now)
{
	/* Again when a bad spooled part was set aside: take the next one. */
	while (!u->xfer && !u->err && now >= u->next_try && (u->q_head || u->backlog))
		transfer_begin(u, u->q_head ? u->q_head : u->backlog);
}

static void part_delivered(struct uploader *u, struct part *p)
{
	if (part_in_memory_only(p))
		u->q_mem -= p->body.len;
	part_leaves(u, p, 1);
	if (p == u->q_head)
		part_unlink_head(&u->q_head, &u->q_tail, p);
	else
		part_unlink_head(&u->backlog, NULL, p);
	if (p->kind != PART_END) { /* parts are what the summary counts */
		pthread_mutex_lock(&u->lock);
		u->st.bytes_out += p->body.len;
		u->st.files++;
		pthread_mutex_unlock(&u->lock);
	} else {
		u->ends_sent++;
	}
	spool_remove(u->spool, p);
	part_free(p);
	perfsink_coll_backoff_reset(&u->bo);
	if (u->down)
		LOG(u, INFO, "collector reachable again; sending what waited");
	u->down = 0;
}

/*
 * The wait before the next try: what a 429/503 asked for with Retry-After
 * (at least backoff_base, so "0" cannot make the sink spin; at most
 * backoff_cap), else the jittered backoff.
 */
static int64_t retry_delay(struct uploader *u, int64_t retry_after, const char **how)
{
	int64_t delay = perfsink_coll_backoff_next(&u->bo);

	*how = "with backoff";
	if (retry_after < 0)
		return delay;
	*how = "as the collector asked (Retry-After)";
	if (retry_after < u->conf->backoff_base_ms)
		return u->conf->backoff_base_ms;
	return retry_after < u->conf->backoff_cap_ms ? retry_after : u->conf->backoff_cap_ms;
}

static void transfer_failed(struct uploader *u, enum transfer_result r, const char *msg, int64_t now,
			    int64_t retry_after)
{
	if (r == XFER_RETRY) {
		const char *how;
		int64_t delay = retry_delay(u, retry_after, &how);

		pthread_mutex_lock(&u->lock);
		u->st.retries++;
		pthread_mutex_unlock(&u->lock);
		if (!u->down)
			LOG(u, WARN, "%s; retrying %s (next in %" PRId64 " ms), parts wait in %s",
			    msg, how, delay, u->conf->overflow == OVERFLOW_SPOOL ? u->spool->dir : "memory");
		else
			LOG(u, DEBUG, "%s; next try in %" PRId64 " ms %s", msg, delay, how);
		u->down = 1;
		u->next_try = now + delay;
		policy_apply(u);
		return;
	}
	LOG(u, ERROR, "%s: giving up (not retryable); unsent parts stay in %s for `perfsink upload`",
	    msg, u->spool->dir);
	fail(u, strstr(msg, "HTTP 401") || strstr(msg, "HTTP 403") ? -EACCES : -EIO);
}

/* Whether data is HEADER_BUILD_ID records and nothing else: a stream's build-id part. */
static int only_build_ids(const uint8_t *data, size_t len)
{
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec r;

	perfsink_kit_rec_iter_init(&it, data, len);
	while (perfsink_kit_rec_next(&it, &r))
		if (r.type != PERFSINK_RECORD_HEADER_BUILD_ID)
			return 0;
	return len > 0 && it.stop == PERFSINK_KIT_REC_END;
}

/* p, of an earlier run, was delivered: its build-ids' symbols may still be unshipped. */
static void backlog_buildids(struct uploader *u, const struct part *p)
{
	uploader_buildids_fn fn;
	const char *slash = strrchr(p->key, '/');
	char *key_base;
	void *arg;

	pthread_mutex_lock(&u->lock);
	fn = u->on_buildids;
	arg = u->on_buildids_arg;
	pthread_mutex_unlock(&u->lock);
	if (!fn || p->kind != PART_DATA || !p->seq || !slash || !p->body.data ||
	    !only_build_ids(p->body.data, p->body.len))
		return;
	key_base = strndup(p->key, (size_t)(slash - p->key));
	if (key_base)
		fn(arg, key_base, p->body.data, p->body.len);
	free(key_base);
}

static void transfers_reap(struct uploader *u)
{
	CURLMsg *m;
	int left;

	while ((m = curl_multi_info_read(u->multi, &left))) {
		char msg[1024];
		enum transfer_result r;
		int64_t retry_after;
		struct part *p;

		if (m->msg != CURLMSG_DONE || !u->xfer)
			continue;
		curl_multi_remove_handle(u->multi, m->easy_handle);
		r = transfer_done(u->xfer, m->data.result, msg, sizeof(msg));
		if (r == XFER_NEXT) {
			curl_multi_add_handle(u->multi, transfer_easy(u->xfer));
			continue;
		}
		p = transfer_part(u->xfer);
		retry_after = transfer_retry_after(u->xfer);
		transfer_free(u->xfer);
		u->xfer = NULL;
		if (r == XFER_DONE && p == u->backlog)
			backlog_buildids(u, p);
		if (p->spool_path) {
			/* Read back for this try only; the spool keeps the bytes. */
			part_unload(p);
		}
		if (r == XFER_DONE)
			part_delivered(u, p);
		else
			transfer_failed(u, r, msg, perfsink_coll_mono_ms(), retry_after);
	}
}

/* ----------------------------------------------------------------- thread */

/*
 * The end marker of the stream being cut: {host}/{session}.end, a sibling of
 * the parts' folder (so `cat` of the folder is still the stream), holding
 * {"parts": N}.  Queued after the last part, so the collector gets it only
 * once every part before it is stored.  Queued only when the stream ends
 * (a rotation, or the drain at the end of a run): a recorder that crashed
 * or was killed leaves none.  Its stream's tail waits in the spool at exit:
 * so does the marker, after it, and `perfsink upload` or the next run sends
 * it last.
 */
static void end_enqueue(struct uploader *u, int64_t end_ns)
{
	char body[PART_END_MAX];
	struct part *p;
	size_t n;

	if (!u->have_stream || u->end_queued)
		return;
	u->end_queued = 1;
	if (end_ns <= 0) { /* not told (a failed run): when the stream's end reached us */
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		end_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	}
	n = part_end_format(body, u->cut.next_seq, u->start_ns > 0 ? u->start_ns : 0, end_ns);
	p = part_new(u->cut.next_seq, PART_END);
	if (p && part_append(p, body, n) == 0 &&
	    (p->key = malloc(strlen(u->key_base) + 5))) {
		sprintf(p->key, "%s.end", u->key_base);
		part_enqueue(u, p);
		return;
	}
	if (p)
		part_free(p);
	LOG(u, WARN, "no memory for the end marker of %s: it is not sent", u->key_base);
}

/*
 * A new stream (start, or a rotation): the last part of the previous one is
 * sealed under its name (it ended when the new one began), then numbering
 * starts again at 0 under the new one.
 */
static void prologue_take(struct uploader *u, char *key_base, int64_t start_ns, uint8_t *bytes,
			  size_t len)
{
	struct part *p;

	part_enqueue(u, part_cutter_flush(&u->cut));
	end_enqueue(u, start_ns);
	free(u->key_base);
	u->key_base = key_base;
	u->start_ns = start_ns;
	u->cut.next_seq = 0;
	u->end_queued = 0;
	u->have_stream = 1;

	u->have_lt = perfsink_kit_lost_template_from_pipe_header(bytes, len, &u->lt) == 0;
	p = part_cutter_meta(&u->cut, bytes, len);
	free(bytes);
	if (!p) {
		fail(u, -ENOMEM);
		return;
	}
	part_enqueue(u, p);
}

/* The current stream's last records, as a part of their own after its data. */
static void epilogue_take(struct uploader *u, uint8_t *bytes, size_t len)
{
	struct part *p;

	part_enqueue(u, part_cutter_flush(&u->cut));
	p = u->have_stream ? part_cutter_meta(&u->cut, bytes, len) : NULL;
	free(bytes);
	if (p)
		part_enqueue(u, p);
	else if (u->have_stream)
		fail(u, -ENOMEM);
}

/* Spool callback, on the thread: a bad entry was set aside. */
static void spool_quarantined(void *arg, const char *path, const char *to, const char *why,
			      uint64_t bytes)
{
	struct uploader *u = arg;

	pthread_mutex_lock(&u->lock);
	u->quarantined++;
	u->st.dropped_bytes += bytes;
	pthread_mutex_unlock(&u->lock);
	if (to)
		LOG(u, WARN, "spool %s: %s: moved to %s, not sent (counted as lost)", path, why, to);
	else
		LOG(u, WARN, "spool %s: %s; not sent (counted as lost)", path, why);
}

static void backlog_scan(struct uploader *u)
{
	int n;

	if (u->backlog_scanned)
		return;
	u->backlog_scanned = 1;
	n = spool_scan(u->spool, &u->backlog);
	if (n < 0) {
		LOG(u, ERROR, "%s", u->spool->err);
		fail(u, n);
		return;
	}
	u->backlog_bytes = u->spool->used;
	if (n > 0) {
		unsigned ends = 0;

		for (struct part *p = u->backlog; p; p = p->next)
			ends += p->kind == PART_END;
		u->backlog_parts = (uint64_t)n - ends; /* parts, as st.files counts them */
		LOG(u, INFO, "%u parts and %u end marker%s of earlier runs in %s (%" PRIu64 " bytes): "
		    "sending them", (unsigned)n - ends, ends, ends == 1 ? "" : "s", u->spool->dir,
		    u->spool->used);
	}
}

static void buffers_append(struct uploader *u, struct perfsink_buf **bufs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct part *sealed = NULL;
		const uint8_t *d = bufs[i]->data;
		size_t len = bufs[i]->len;
		/* Counted by the host since ABI 1.1; 0 from a host that did not. */
		uint64_t records = bufs[i]->records ? bufs[i]->records
						    : perfsink_kit_records_count(d, len, NULL);
		int rc = 0;

		if (u->comp)
			rc = compressor_run(u->comp, bufs[i]->data, bufs[i]->len, bufs[i]->tail_round,
					    &d, &len);
		if (rc == 0)
			rc = part_cutter_append(&u->cut, d, len, records, perfsink_coll_mono_ms(), &sealed);
		if (rc < 0 && !u->err) {
			LOG(u, ERROR, "cannot add a buffer to a part: %s", strerror(-rc));
			fail(u, rc);
		}
		part_enqueue(u, sealed);
		u->host->buf_put(bufs[i]);
	}
}

static int64_t poll_timeout(struct uploader *u, int64_t now)
{
	int64_t t = 1000, d = part_cutter_deadline(&u->cut);

	if (d >= 0 && d - now < t)
		t = d - now;
	if (!u->xfer && (u->q_head || u->backlog) && u->next_try - now < t)
		t = u->next_try - now;
	if (u->xfer && transfer_stall_deadline(u->xfer) - now < t)
		t = transfer_stall_deadline(u->xfer) - now;
	if (u->t_stopping && u->t_drain_until - now < t)
		t = u->t_drain_until - now;
	/* While draining, look at host->stop_requested often enough to leave at once. */
	if (u->t_stopping && t > 100)
		t = 100;
	return t < 0 ? 0 : t;
}

/* Take buffers (and the prologue) from the engine side; returns how many. */
static size_t engine_side_take(struct uploader *u, struct perfsink_buf **bufs, int *stop,
			       int *flush)
{
	uint8_t *pro = NULL, *epi = NULL;
	char *key_base;
	int64_t start_ns;
	size_t pro_len = 0, epi_len = 0, n = 0;
	int upload_req, throttled;

	pthread_mutex_lock(&u->lock);
	/* After the buffers written before it: taken once none is left. */
	if (u->epilogue && !u->bq_len) {
		epi = u->epilogue;
		epi_len = u->epilogue_len;
		u->epilogue = NULL;
	}
	pro = u->prologue;
	pro_len = u->prologue_len;
	u->prologue = NULL;
	key_base = u->next_key_base;
	u->next_key_base = NULL;
	start_ns = u->next_start_ns;
	throttled = u->conf->overflow == OVERFLOW_BLOCK && u->q_mem >= u->conf->queue_size &&
		    !u->flushing && !u->stopping;
	while (!throttled && n < TAKE_MAX && u->bq_len) {
		bufs[n++] = u->bq[u->bq_head];
		u->bq_head = (u->bq_head + 1) % u->bq_cap;
		u->bq_len--;
	}
	u->taking = n > 0;
	u->t_stopping = u->stopping;
	u->t_drain_until = u->drain_until;
	u->t_end_ns = u->end_ns;
	*stop = u->stopping && !u->bq_len;
	*flush = u->flushing && !u->bq_len;
	upload_req = u->upload_req;
	if (n)
		pthread_cond_broadcast(&u->cond);
	pthread_mutex_unlock(&u->lock);
	if (epi)
		epilogue_take(u, epi, epi_len);
	if (pro) {
		u->recording = 1;
		backlog_scan(u);
		prologue_take(u, key_base, start_ns, pro, pro_len);
	}
	if (upload_req)
		backlog_scan(u);
	return n;
}

static void shared_publish(struct uploader *u)
{
	uint64_t pending = u->spool->used + u->q_mem + (u->cut.open ? u->cut.open->body.len : 0);

	int64_t wait = u->next_try - perfsink_coll_mono_ms();

	pthread_mutex_lock(&u->lock);
	u->taking = 0;
	u->sending = (u->q_head || u->cut.open) && !u->down && !u->err;
	u->st.pending_bytes = pending;
	u->st.spooled_bytes = u->spooled_bytes;
	u->st.spooled_parts = u->spooled_parts;
	u->st.backlog_bytes = u->backlog_bytes;
	u->st.backlog_parts = u->backlog_parts;
	u->st.backlog_sent_bytes = u->backlog_sent;
	u->st.lost_parts = u->lost_parts;
	u->st.retry_in_ms = u->down && wait > 0 ? (uint32_t)wait : 0;
	if (u->err)
		u->st.state = PERFSINK_STATE_FAILED;
	else if (u->down)
		u->st.state = u->spooled_parts ? PERFSINK_STATE_SPOOLING : PERFSINK_STATE_RETRYING;
	else
		u->st.state = PERFSINK_STATE_OK;
	/* Done only once the spool was read: a request taken after this
	 * round's engine_side_take finds no backlog yet, not an empty one. */
	if (u->upload_req && u->backlog_scanned && !u->backlog && !u->upload_done)
		u->upload_done = 1;
	pthread_cond_broadcast(&u->cond);
	pthread_mutex_unlock(&u->lock);
}

/* At the end: whatever was not sent goes to the spool (or is counted lost). */
static void uploader_finish(struct uploader *u)
{
	uint64_t parts = 0, ends = 0, bytes = 0;
	struct part *p;

	if (u->xfer) {
		curl_multi_remove_handle(u->multi, transfer_easy(u->xfer));
		p = transfer_part(u->xfer);
		transfer_free(u->xfer);
		u->xfer = NULL;
		if (p->spool_path)
			part_unload(p);
	}
	part_enqueue(u, part_cutter_flush(&u->cut));
	while ((p = u->q_head)) {
		part_spill(u, p);
		if (p->spool_path) {
			parts += p->kind != PART_END;
			ends += p->kind == PART_END;
			bytes += p->body.len;
		}
		part_unlink_head(&u->q_head, &u->q_tail, p);
		part_free(p);
	}
	while ((p = u->backlog)) {
		parts += p->kind != PART_END;
		ends += p->kind == PART_END;
		bytes += p->body.len;
		part_unlink_head(&u->backlog, NULL, p);
		part_free(p);
	}
	/*
	 * `perfsink upload` has no host summary: say what was sent there.  A
	 * recording's summary line (the host's, from stats()) says it instead,
	 * with the same counts.
	 */
	if (u->backlog_scanned && !u->recording)
		LOG(u, INFO, "sent %" PRIu64 " parts (%" PRIu64 " bytes) and %" PRIu64 " end marker%s, %"
		    PRIu64 " retries, left %" PRIu64 " parts and %" PRIu64 " end marker%s (%" PRIu64
		    " bytes) in the spool, lost %" PRIu64 " bytes (%" PRIu64 " records) in %" PRIu64
		    " parts", u->st.files, u->st.bytes_out, u->ends_sent, u->ends_sent == 1 ? "" : "s",
		    u->st.retries, parts, ends, ends == 1 ? "" : "s", bytes, u->st.dropped_bytes,
		    u->st.dropped_records, u->lost_parts);
	if (u->interrupted)
		LOG(u, WARN, "interrupted: %" PRIu64 " parts (%" PRIu64 " bytes) left unsent in %s; the "
		    "next run or `perfsink upload` sends them", parts, bytes, u->spool->dir);
	else if (parts || ends)
		LOG(u, WARN, "%" PRIu64 " parts (%" PRIu64 " bytes) and %" PRIu64 " end marker%s not "
		    "sent; they wait in %s for the next run or `perfsink upload`%s", parts, bytes, ends,
		    ends == 1 ? "" : "s", u->spool->dir, ends ? " (until then `perfsink ls` shows the "
		    "session not ended)" : "");
	if (u->quarantined)
		LOG(u, WARN, "%" PRIu64 " bad spool entries were set aside in %s and not sent; "
		    "inspect them, then delete them", u->quarantined, u->spool->qdir);
	if (u->lost_parts)
		LOG(u, WARN, "lost %" PRIu64 " bytes (%" PRIu64 " records) in %" PRIu64 " parts; "
		    "raise spool_max or queue_size", u->st.dropped_bytes, u->st.dropped_records,
		    u->lost_parts);
}

static void *uploader_main(void *arg)
{
	struct uploader *u = arg;
	struct perfsink_buf *bufs[TAKE_MAX];

	for (;;) {
		int stop, flush, running;
		size_t n = engine_side_take(u, bufs, &stop, &flush);
		int64_t now;

		buffers_append(u, bufs, n);
		now = perfsink_coll_mono_ms();
		part_enqueue(u, part_cutter_expire(&u->cut, now));
		if (stop || flush)
			part_enqueue(u, part_cutter_flush(&u->cut));
		if (stop)
			end_enqueue(u, u->t_end_ns);
		transfers_pump(u, now);
		curl_multi_perform(u->multi, &running);
		transfers_reap(u);
		transfers_pump(u, perfsink_coll_mono_ms());
		shared_publish(u);
		/* A second Ctrl-C (upload: the first): what is left goes to the spool now. */
		if (stop && perfsink_stop_requested(u->inst) && (u->q_head || u->backlog || u->xfer)) {
			u->interrupted = 1;
			break;
		}
		if (stop && (!u->q_head || now >= u->t_drain_until || u->err))
			break;
		if (n == TAKE_MAX)
			continue;
		curl_multi_poll(u->multi, NULL, 0, (int)poll_timeout(u, perfsink_coll_mono_ms()), NULL);
	}
	uploader_finish(u);
	shared_publish(u);
	return NULL;
}

/* ------------------------------------------------------------ engine side */

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
	spool->on_quarantine = spool_quarantined;
	spool->arg = u;
	part_cutter_init(&u->cut, conf->part_size, conf->max_latency_ms);
	if (conf->compress) {
		u->comp = compressor_new(conf->compress_level);
		if (!u->comp) {
			free(u);
			return -ENOTSUP;
		}
	}
	perfsink_coll_backoff_init(&u->bo, conf->backoff_base_ms, conf->backoff_cap_ms,
		     (uint64_t)perfsink_coll_mono_ms() ^ ((uint64_t)(uintptr_t)u << 16));
	u->multi = curl_multi_init();
	u->key_base = strdup("unknown/unknown");
	if (!u->multi || !u->key_base) {
		rc = -ENOMEM;
		goto fail;
	}
	pthread_mutex_init(&u->lock, NULL);
	pthread_cond_init(&u->cond, NULL);
	rc = -pthread_create(&u->thread, NULL, uploader_main, u);
	if (rc == 0) {
		*out = u;
		return 0;
	}
	pthread_cond_destroy(&u->cond);
	pthread_mutex_destroy(&u->lock);
fail:
	compressor_free(u->comp);
	if (u->multi)
		curl_multi_cleanup(u->multi);
	free(u->key_base);
	free(u);
	return rc;
}

static void wake(struct uploader *u)
{
	curl_multi_wakeup(u->multi);
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
	pthread_mutex_lock(&u->lock);
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
	pthread_mutex_unlock(&u->lock);
	wake(u);
	return 0;
}

int uploader_epilogue(struct uploader *u, const uint8_t *bytes, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);

	if (!copy)
		return -ENOMEM;
	memcpy(copy, bytes, len);
	pthread_mutex_lock(&u->lock);
	free(u->epilogue);
	u->epilogue = copy;
	u->epilogue_len = len;
	pthread_mutex_unlock(&u->lock);
	wake(u);
	return 0;
}

int uploader_write(struct uploader *u, struct perfsink_buf *buf)
{
	int rc;

	pthread_mutex_lock(&u->lock);
	while (!u->err && u->bq_len == u->bq_cap)
		pthread_cond_wait(&u->cond, &u->lock);
	rc = u->err;
	if (rc == 0) {
		u->host->buf_get(buf);
		u->bq[(u->bq_head + u->bq_len) % u->bq_cap] = buf;
		u->bq_len++;
		u->st.bytes_in += buf->len;
		u->st.buffers++;
	}
	pthread_mutex_unlock(&u->lock);
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
	pthread_mutex_lock(&u->lock);
	u->end_ns = end_ns;
	pthread_mutex_unlock(&u->lock);
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
	pthread_mutex_lock(&u->lock);
	u->flushing++;
	while (!u->err && (u->bq_len || u->taking || (u->sending && !late))) {
		pthread_mutex_unlock(&u->lock);
		wake(u);
		pthread_mutex_lock(&u->lock);
		if (u->bq_len || u->taking)
			pthread_cond_wait(&u->cond, &u->lock);
		else if (u->sending)
			late = pthread_cond_timedwait(&u->cond, &u->lock, &until) == ETIMEDOUT;
	}
	u->flushing--;
	rc = u->err;
	pthread_mutex_unlock(&u->lock);
	return rc;
}

int uploader_upload(struct uploader *u, int64_t timeout_ms)
{
	struct timespec ts;
	int rc = 0;

	int64_t until = perfsink_coll_mono_ms() + timeout_ms;

	pthread_mutex_lock(&u->lock);
	u->upload_req = 1;
	pthread_mutex_unlock(&u->lock);
	wake(u);
	pthread_mutex_lock(&u->lock);
	/* In 100 ms steps: a stop asked by a signal ends the wait within them. */
	while (!u->err && !u->upload_done && rc == 0) {
		int64_t left = until - perfsink_coll_mono_ms();

		if (left <= 0)
			rc = -ETIMEDOUT;
		else if (perfsink_stop_requested(u->inst))
			rc = -EINTR;
		else {
			deadline_after(&ts, left < 100 ? left : 100);
			pthread_cond_timedwait(&u->cond, &u->lock, &ts);
		}
	}
	if (u->err)
		rc = u->err;
	else if (u->upload_done)
		rc = u->quarantined || u->st.lost_parts ? -EBADMSG : 0;
	pthread_mutex_unlock(&u->lock);
	return rc;
}

int uploader_drain(struct uploader *u, int64_t drain_ms)
{
	int rc;

	if (u->joined)
		return u->err;
	pthread_mutex_lock(&u->lock);
	u->stopping = 1;
	u->drain_until = perfsink_coll_mono_ms() + drain_ms;
	pthread_mutex_unlock(&u->lock);
	wake(u);
	pthread_join(u->thread, NULL);
	u->joined = 1;
	pthread_mutex_lock(&u->lock);
	rc = u->err;
	pthread_mutex_unlock(&u->lock);
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
	curl_multi_cleanup(u->multi);
	pthread_cond_destroy(&u->cond);
	pthread_mutex_destroy(&u->lock);
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
	pthread_mutex_lock(&u->lock);
	u->on_buildids = fn;
	u->on_buildids_arg = arg;
	pthread_mutex_unlock(&u->lock);
}

void uploader_stats(struct uploader *u, struct perfsink_sink_stats *out)
{
	pthread_mutex_lock(&u->lock);
	*out = u->st;
	pthread_mutex_unlock(&u->lock);
}
