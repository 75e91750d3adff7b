/* The object shipper's queue: order, overflow policy, spill and drop; see collector_ship.h. */
#include "ship_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The first fatal error; the engine side reads err under the lock. */
void ship_fail(struct ship *s, int rc)
{
	pthread_mutex_lock(&s->lock);
	if (!s->err)
		s->err = rc;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

static int part_in_flight(const struct ship *s, const struct part *p)
{
	return s->xfer && transfer_part(s->xfer) == p;
}

int ship_in_memory(const struct part *p)
{
	return p->kind == PART_DATA && p->body.data && !p->spool_path;
}

/* Replace p's records by a LOST marker that tells perf how many were lost. */
static void part_drop(struct ship *s, struct part *p, const char *why)
{
	uint8_t rec[PERFSINK_KIT_LOST_RECORD_MAX];
	size_t n = s->have_lt ? perfsink_kit_lost_record_write(&s->lt, p->records, rec, sizeof(rec)) : 0;

	if (ship_in_memory(p))
		s->q_mem -= p->body.len;
	pthread_mutex_lock(&s->lock);
	s->st.dropped_bytes += p->body.len;
	s->st.dropped_records += p->records;
	pthread_mutex_unlock(&s->lock);
	s->lost_parts++;
	if (s->dropped_fn) {
		s->dropped_fn(s->dropped_arg, p, why);
	} else if (!s->loss_warned) {
		SHIP_LOG(s, WARN, "losing data: part %" PRIu64 " (%zu bytes, %" PRIu64 " records) dropped: %s; "
		    "a LOST record marks the gap", p->seq, p->body.len, p->records, why);
		s->loss_warned = 1;
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
static void end_spill(struct ship *s, struct part *p)
{
	if (spool_put(s->spool, p) == 0) { /* a marker is no part: not in spooled_parts */
		s->spooled_bytes += p->body.len;
		part_unload(p);
	} else if (!s->end_spool_warned) {
		SHIP_LOG(s, WARN, "the end marker %s cannot be spooled (%s): it is not sent, and the session "
		    "shows as not ended even once its parts are sent", p->key, s->spool->err);
		s->end_spool_warned = 1;
	}
}

/* Move p's bytes to the spool; drop p when the spool cannot take them. */
void ship_spill(struct ship *s, struct part *p)
{
	int was_mem = ship_in_memory(p);
	int rc;

	if (p->spool_path || !p->body.data || (s->dropped_fn && p->kind == PART_META && !p->body.len))
		return;
	if (!s->spool) {
		/* No spool_dir: what cannot wait in memory is lost. */
		if (p->kind == PART_DATA)
			part_drop(s, p, "no spool (spool_dir unset)");
		return;
	}
	if (p->kind == PART_END) {
		end_spill(s, p);
		return;
	}
	rc = spool_put(s->spool, p);
	if (rc < 0) {
		part_drop(s, p, rc == -ENOSPC ? "spool full (spool_max)" : s->spool->err);
		/* The LOST record in its place is spooled; a dropped object is forgotten. */
		rc = s->dropped_fn ? 1 : spool_put(s->spool, p);
	}
	if (rc == 0) {
		if (was_mem && p->kind == PART_DATA)
			s->q_mem -= p->body.len;
		s->spooled_parts++;
		s->spooled_bytes += p->body.len;
		part_unload(p);
	}
}

/* p leaves the queue or the backlog (sent, or gone from the spool): uncount it. */
void ship_leaves(struct ship *s, const struct part *p, int sent)
{
	if (p != s->q_head) {
		s->backlog_parts -= p->kind != PART_END;
		s->backlog_bytes -= p->body.len;
		if (sent)
			s->backlog_sent += p->body.len;
	} else if (p->spool_path) {
		s->spooled_parts -= p->kind != PART_END;
		s->spooled_bytes -= p->body.len;
	}
}

void ship_policy(struct ship *s)
{
	const struct coll_ship_conf *c = s->conf;
	struct part *p;

	if (c->overflow == OVERFLOW_SPOOL) {
		int all = s->down || s->err;

		for (p = s->q_head; p && (all || s->q_mem > c->queue_size); p = p->next)
			if (!part_in_flight(s, p))
				ship_spill(s, p);
	} else if (c->overflow == OVERFLOW_DROP_OLDEST) {
		for (p = s->q_head; p && s->q_mem > c->queue_size; p = p->next)
			if (!part_in_flight(s, p) && ship_in_memory(p))
				part_drop(s, p, "queue full (overflow = drop_oldest)");
	}
}

/* Queue p (its key set) after every object queued before, then apply the overflow policy. */
void ship_enqueue(struct ship *s, struct part *p)
{
	if (!p)
		return;
	if (s->q_tail)
		s->q_tail->next = p;
	else
		s->q_head = p;
	s->q_tail = p;
	if (ship_in_memory(p))
		s->q_mem += p->body.len;
	ship_policy(s);
}

void ship_unlink_head(struct part **head, struct part **tail, struct part *p)
{
	*head = p->next;
	if (tail && *tail == p)
		*tail = NULL;
	p->next = NULL;
}
