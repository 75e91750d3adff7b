/* The object shipper's transfers: one at a time, retries, backoff; see collector_ship.h. */
#include "ship_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* p, the head of the queue or of the backlog, is gone from the spool. */
static void part_forget(struct ship *s, struct part *p)
{
	ship_leaves(s, p, 0);
	if (p == s->q_head)
		ship_unlink_head(&s->q_head, &s->q_tail, p);
	else
		ship_unlink_head(&s->backlog, NULL, p);
	part_free(p);
}

static void transfer_begin(struct ship *s, struct part *p)
{
	int rc = 0;

	if (s->dropped_fn && p->kind == PART_META && !p->body.len && !p->spool_path) {
		/* A dropped object (said and counted by dropped_fn): nothing to send. */
		ship_unlink_head(&s->q_head, &s->q_tail, p);
		part_free(p);
		return;
	}
	if (!p->body.data && p->spool_path)
		rc = spool_load(s->spool, p);
	if (rc == -EBADMSG || rc == -ENOENT) {
		/* Quarantined (and reported), or removed by someone else. */
		if (rc == -ENOENT)
			SHIP_LOG(s, WARN, "spool %s: vanished before it was sent", p->spool_path);
		part_forget(s, p);
		return;
	}
	if (rc < 0) {
		SHIP_LOG(s, ERROR, "%s", s->spool->err);
		ship_fail(s, rc);
		return;
	}
	s->xfer = transfer_new(s->conf, p);
	if (!s->xfer) {
		ship_fail(s, -ENOMEM);
		return;
	}
	SHIP_LOG(s, DEBUG, "part %s: request starts", p->key);
	curl_multi_add_handle(s->multi, transfer_easy(s->xfer));
}

static void transfers_pump(struct ship *s, int64_t now)
{
	/* Again when a bad spooled part was set aside: take the next one. */
	while (!s->xfer && !s->err && now >= s->next_try && (s->q_head || s->backlog))
		transfer_begin(s, s->q_head ? s->q_head : s->backlog);
}

static void part_delivered(struct ship *s, struct part *p)
{
	if (ship_in_memory(p))
		s->q_mem -= p->body.len;
	ship_leaves(s, p, 1);
	if (p == s->q_head)
		ship_unlink_head(&s->q_head, &s->q_tail, p);
	else
		ship_unlink_head(&s->backlog, NULL, p);
	if (p->kind != PART_END) { /* parts are what the summary counts */
		pthread_mutex_lock(&s->lock);
		s->st.bytes_out += p->body.len;
		s->st.files++;
		pthread_mutex_unlock(&s->lock);
	} else {
		s->ends_sent++;
	}
	if (s->spool)
		spool_remove(s->spool, p);
	part_free(p);
	perfsink_coll_backoff_reset(&s->bo);
	if (s->down)
		SHIP_LOG(s, INFO, "collector reachable again; sending what waited");
	s->down = 0;
}

/* The wait before the next try: the collector client's rule (a Retry-After
 * within the backoff's base and cap, else the jittered backoff). */
static int64_t retry_delay(struct ship *s, int64_t retry_after, const char **how)
{
	*how = retry_after < 0 ? "with backoff" : "as the collector asked (Retry-After)";
	return perfsink_coll_backoff_wait(&s->bo, retry_after);
}

static void transfer_failed(struct ship *s, enum transfer_result r, const char *msg, int64_t now,
			    int64_t retry_after)
{
	if (r == XFER_RETRY) {
		const char *how;
		int64_t delay = retry_delay(s, retry_after, &how);

		pthread_mutex_lock(&s->lock);
		s->st.retries++;
		pthread_mutex_unlock(&s->lock);
		if (!s->down)
			SHIP_LOG(s, WARN, "%s; retrying %s (next in %" PRId64 " ms), %s wait in %s",
			    msg, how, delay, ship_objects(s),
			    s->conf->overflow == OVERFLOW_SPOOL && s->spool ? s->spool->dir : "memory");
		else
			SHIP_LOG(s, DEBUG, "%s; next try in %" PRId64 " ms %s", msg, delay, how);
		s->down = 1;
		s->next_try = now + delay;
		ship_policy(s);
		return;
	}
	if (s->spool)
		SHIP_LOG(s, ERROR, "%s: giving up (not retryable); unsent %s stay in %s for %s",
		    msg, ship_objects(s), s->spool->dir, s->conf->resend ? s->conf->resend : "`perfsink upload`");
	else
		SHIP_LOG(s, ERROR, "%s: giving up (not retryable); unsent %s are lost (no spool_dir)", msg,
		    ship_objects(s));
	ship_fail(s, strstr(msg, "HTTP 401") || strstr(msg, "HTTP 403") ? -EACCES : -EIO);
}

static void transfers_reap(struct ship *s)
{
	CURLMsg *m;
	int left;

	while ((m = curl_multi_info_read(s->multi, &left))) {
		char msg[1024];
		enum transfer_result r;
		int64_t retry_after;
		struct part *p;

		if (m->msg != CURLMSG_DONE || !s->xfer)
			continue;
		curl_multi_remove_handle(s->multi, m->easy_handle);
		r = transfer_done(s->xfer, m->data.result, msg, sizeof(msg));
		if (r == XFER_NEXT) {
			curl_multi_add_handle(s->multi, transfer_easy(s->xfer));
			continue;
		}
		p = transfer_part(s->xfer);
		retry_after = transfer_retry_after(s->xfer);
		transfer_free(s->xfer);
		s->xfer = NULL;
		if (r == XFER_DONE && p == s->backlog && s->backlog_sent_fn)
			s->backlog_sent_fn(s->backlog_sent_arg, p);
		if (p->spool_path) {
			/* Read back for this try only; the spool keeps the bytes. */
			part_unload(p);
		}
		if (r == XFER_DONE)
			part_delivered(s, p);
		else
			transfer_failed(s, r, msg, perfsink_coll_mono_ms(), retry_after);
	}
}

void ship_step(struct ship *s, int64_t now)
{
	int running;

	transfers_pump(s, now);
	curl_multi_perform(s->multi, &running);
	transfers_reap(s);
	transfers_pump(s, perfsink_coll_mono_ms());
}

int64_t ship_timeout(const struct ship *s, int64_t now, int64_t t)
{
	if (!s->xfer && (s->q_head || s->backlog) && s->next_try - now < t)
		t = s->next_try - now;
	if (s->xfer && transfer_stall_deadline(s->xfer) - now < t)
		t = transfer_stall_deadline(s->xfer) - now;
	return t;
}

int ship_busy(const struct ship *s)
{
	return s->q_head || s->backlog || s->xfer;
}
