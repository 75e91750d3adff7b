/*
 * The http sink's thread: takes buffers from the engine side, cuts them
 * into parts (uploader_stream.c), ships them (ship.h), publishes stats;
 * at the end, spools what is left.  See uploader.h.
 */
#include "uploader_int.h"
#include "http_conf.h"
#include "part.h"
#include "spool.h"

#include <inttypes.h>
#include <stdlib.h>

static int64_t poll_timeout(struct uploader *u, int64_t now)
{
	int64_t t = 1000, d = part_cutter_deadline(&u->cut);

	if (d >= 0 && d - now < t)
		t = d - now;
	t = ship_timeout(&u->ship, now, t);
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

	pthread_mutex_lock(&u->ship.lock);
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
	throttled = u->conf->overflow == OVERFLOW_BLOCK && u->ship.q_mem >= u->conf->queue_size &&
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
		pthread_cond_broadcast(&u->ship.cond);
	pthread_mutex_unlock(&u->ship.lock);
	if (epi)
		epilogue_take(u, epi, epi_len);
	if (pro) {
		u->recording = 1;
		ship_backlog_scan(&u->ship);
		prologue_take(u, key_base, start_ns, pro, pro_len);
	}
	if (upload_req)
		ship_backlog_scan(&u->ship);
	return n;
}

static void shared_publish(struct uploader *u)
{
	uint64_t pending = u->spool->used + u->ship.q_mem + (u->cut.open ? u->cut.open->body.len : 0);

	pthread_mutex_lock(&u->ship.lock);
	u->taking = 0;
	u->sending = (u->ship.q_head || u->cut.open) && !u->ship.down && !u->ship.err;
	u->ship.st.pending_bytes = pending;
	ship_stats_fill(&u->ship);
	/* Done only once the spool was read: a request taken after this
	 * round's engine_side_take finds no backlog yet, not an empty one. */
	if (u->upload_req && u->ship.backlog_scanned && !u->ship.backlog && !u->upload_done)
		u->upload_done = 1;
	pthread_cond_broadcast(&u->ship.cond);
	pthread_mutex_unlock(&u->ship.lock);
}

/* At the end: whatever was not sent goes to the spool (or is counted lost). */
static void uploader_finish(struct uploader *u)
{
	struct ship_left left;
	uint64_t parts, ends, bytes;

	/* The transfer is stopped first: the last part is cut after it, as before. */
	ship_finish_transfer(&u->ship);
	part_enqueue(u, part_cutter_flush(&u->cut));
	ship_finish(&u->ship, &left);
	parts = left.parts;
	ends = left.ends;
	bytes = left.bytes;
	/*
	 * `perfsink upload` has no host summary: say what was sent there.  A
	 * recording's summary line (the host's, from stats()) says it instead,
	 * with the same counts.
	 */
	if (u->ship.backlog_scanned && !u->recording)
		LOG(u, INFO, "sent %" PRIu64 " parts (%" PRIu64 " bytes) and %" PRIu64 " end marker%s, %"
		    PRIu64 " retries, left %" PRIu64 " parts and %" PRIu64 " end marker%s (%" PRIu64
		    " bytes) in the spool, lost %" PRIu64 " bytes (%" PRIu64 " records) in %" PRIu64
		    " parts", u->ship.st.files, u->ship.st.bytes_out, u->ship.ends_sent, u->ship.ends_sent == 1 ? "" : "s",
		    u->ship.st.retries, parts, ends, ends == 1 ? "" : "s", bytes, u->ship.st.dropped_bytes,
		    u->ship.st.dropped_records, u->ship.lost_parts);
	if (u->interrupted)
		LOG(u, WARN, "interrupted: %" PRIu64 " parts (%" PRIu64 " bytes) left unsent in %s; the "
		    "next run or `perfsink upload` sends them", parts, bytes, u->spool->dir);
	else if (parts || ends)
		LOG(u, WARN, "%" PRIu64 " parts (%" PRIu64 " bytes) and %" PRIu64 " end marker%s not "
		    "sent; they wait in %s for the next run or `perfsink upload`%s", parts, bytes, ends,
		    ends == 1 ? "" : "s", u->spool->dir, ends ? " (until then `perfsink ls` shows the "
		    "session not ended)" : "");
	if (u->ship.quarantined)
		LOG(u, WARN, "%" PRIu64 " bad spool entries were set aside in %s and not sent; "
		    "inspect them, then delete them", u->ship.quarantined, u->spool->qdir);
	if (u->ship.lost_parts)
		LOG(u, WARN, "lost %" PRIu64 " bytes (%" PRIu64 " records) in %" PRIu64 " parts; "
		    "raise spool_max or queue_size", u->ship.st.dropped_bytes, u->ship.st.dropped_records,
		    u->ship.lost_parts);
}

void *uploader_main(void *arg)
{
	struct uploader *u = arg;
	struct perfsink_buf *bufs[TAKE_MAX];

	for (;;) {
		int stop, flush;
		size_t n = engine_side_take(u, bufs, &stop, &flush);
		int64_t now;

		buffers_append(u, bufs, n);
		now = perfsink_coll_mono_ms();
		part_enqueue(u, part_cutter_expire(&u->cut, now));
		if (stop || flush)
			part_enqueue(u, part_cutter_flush(&u->cut));
		if (stop)
			end_enqueue(u, u->t_end_ns);
		ship_step(&u->ship, now);
		shared_publish(u);
		/* A second Ctrl-C (upload: the first): what is left goes to the spool now. */
		if (stop && perfsink_stop_requested(u->inst) && ship_busy(&u->ship)) {
			u->interrupted = 1;
			break;
		}
		if (stop && (!u->ship.q_head || now >= u->t_drain_until || u->ship.err))
			break;
		if (n == TAKE_MAX)
			continue;
		curl_multi_poll(u->ship.multi, NULL, 0, (int)poll_timeout(u, perfsink_coll_mono_ms()), NULL);
	}
	uploader_finish(u);
	shared_publish(u);
	return NULL;
}
