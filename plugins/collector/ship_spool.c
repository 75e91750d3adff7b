/* The object shipper and the spool: the backlog of earlier runs, the end; see collector_ship.h. */
#include "ship_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Spool callback, on the thread: a bad entry was set aside. */
static void spool_quarantined(void *arg, const char *path, const char *to, const char *why,
			      uint64_t bytes)
{
	struct ship *s = arg;

	pthread_mutex_lock(&s->lock);
	s->quarantined++;
	s->st.dropped_bytes += bytes;
	pthread_mutex_unlock(&s->lock);
	if (to)
		SHIP_LOG(s, WARN, "spool %s: %s: moved to %s, not sent (counted as lost)", path, why, to);
	else
		SHIP_LOG(s, WARN, "spool %s: %s; not sent (counted as lost)", path, why);
}

void ship_backlog_scan(struct ship *s)
{
	int n;

	if (s->backlog_scanned || !s->spool)
		return;
	s->backlog_scanned = 1;
	n = spool_scan(s->spool, &s->backlog);
	if (n < 0) {
		SHIP_LOG(s, ERROR, "%s", s->spool->err);
		ship_fail(s, n);
		return;
	}
	s->backlog_bytes = s->spool->used;
	if (n > 0) {
		unsigned ends = 0;

		for (struct part *p = s->backlog; p; p = p->next)
			ends += p->kind == PART_END;
		s->backlog_parts = (uint64_t)n - ends; /* parts, as st.files counts them */
		if (ends)
			SHIP_LOG(s, INFO, "%u %s and %u end marker%s of earlier runs in %s (%" PRIu64
			    " bytes): sending them", (unsigned)n - ends, ship_objects(s), ends,
			    ends == 1 ? "" : "s", s->spool->dir, s->spool->used);
		else
			SHIP_LOG(s, INFO, "%u %s of earlier runs in %s (%" PRIu64 " bytes): sending them",
			    (unsigned)n, ship_objects(s), s->spool->dir, s->spool->used);
	}
}

int ship_init(struct ship *s, const struct perfsink_instance *inst, const struct coll_ship_conf *conf,
	      struct spool *spool)
{
	s->inst = inst;
	s->host = inst->host;
	s->conf = conf;
	s->spool = spool;
	if (spool) {
		spool->on_quarantine = spool_quarantined;
		spool->arg = s;
	}
	perfsink_coll_backoff_init(&s->bo, conf->backoff_base_ms, conf->backoff_cap_ms,
		     (uint64_t)perfsink_coll_mono_ms() ^ ((uint64_t)(uintptr_t)s << 16));
	s->multi = curl_multi_init();
	if (!s->multi)
		return -ENOMEM;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	return 0;
}

void ship_destroy(struct ship *s)
{
	if (!s->multi)
		return;
	curl_multi_cleanup(s->multi);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
}

void ship_stats_fill(struct ship *s)
{
	int64_t wait = s->next_try - perfsink_coll_mono_ms();

	s->st.spooled_bytes = s->spooled_bytes;
	s->st.spooled_parts = s->spooled_parts;
	s->st.backlog_bytes = s->backlog_bytes;
	s->st.backlog_parts = s->backlog_parts;
	s->st.backlog_sent_bytes = s->backlog_sent;
	s->st.lost_parts = s->lost_parts;
	s->st.retry_in_ms = s->down && wait > 0 ? (uint32_t)wait : 0;
	if (s->err)
		s->st.state = PERFSINK_STATE_FAILED;
	else if (s->down)
		s->st.state = s->spooled_parts ? PERFSINK_STATE_SPOOLING : PERFSINK_STATE_RETRYING;
	else
		s->st.state = PERFSINK_STATE_OK;
}

static void left_count(struct ship_left *left, const struct part *p)
{
	left->parts += p->kind != PART_END;
	left->ends += p->kind == PART_END;
	left->bytes += p->body.len;
	left->records += p->records;
}

void ship_finish_transfer(struct ship *s)
{
	struct part *p;

	if (!s->xfer)
		return;
	curl_multi_remove_handle(s->multi, transfer_easy(s->xfer));
	p = transfer_part(s->xfer);
	transfer_free(s->xfer);
	s->xfer = NULL;
	if (p->spool_path)
		part_unload(p);
}

void ship_finish(struct ship *s, struct ship_left *left)
{
	struct part *p;

	*left = (struct ship_left){ 0 };
	ship_finish_transfer(s);
	while ((p = s->q_head)) {
		ship_spill(s, p);
		if (p->spool_path)
			left_count(left, p);
		ship_unlink_head(&s->q_head, &s->q_tail, p);
		part_free(p);
	}
	while ((p = s->backlog)) {
		left_count(left, p);
		ship_unlink_head(&s->backlog, NULL, p);
		part_free(p);
	}
}
