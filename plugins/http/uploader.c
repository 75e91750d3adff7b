/*
 * The http sink's thread, the kit's async worker: the engine side's
 * streams, buffers and requests are jobs run in order (cut into parts by
 * uploader_stream.c, shipped by ship.h); between them, and when none is
 * queued, up_idle drives the transfers and publishes stats; the drain job
 * sends what it can until drain_timeout, then spools the rest.  See
 * uploader.h.
 */
#include "uploader_int.h"
#include "http_conf.h"
#include "part.h"

#include <inttypes.h>
#include <stdlib.h>

/* How long the thread may wait in curl_multi_poll; draining: short, to see a stop asked. */
static int64_t poll_timeout(struct uploader *u, int64_t now, int draining)
{
	int64_t t = 1000, d = part_cutter_deadline(&u->cut);

	if (d >= 0 && d - now < t)
		t = d - now;
	t = ship_timeout(&u->ship, now, t);
	if (draining && u->drain_until - now < t)
		t = u->drain_until - now;
	/* While draining, look at host->stop_requested often enough to leave at once. */
	if (draining && t > 100)
		t = 100;
	return t < 0 ? 0 : t;
}

static void shared_publish(struct uploader *u)
{
	uint64_t pending = u->spool->used + u->ship.q_mem + (u->cut.open ? u->cut.open->body.len : 0);

	pthread_mutex_lock(&u->ship.lock);
	u->sending = (u->ship.q_head || u->cut.open) && !u->ship.down && !u->ship.err;
	u->ship.st.pending_bytes = pending;
	ship_stats_fill(&u->ship);
	/* Done only once the spool was read (the upload job). */
	if (u->upload_req && u->ship.backlog_scanned && !u->ship.backlog && !u->upload_done)
		u->upload_done = 1;
	pthread_cond_broadcast(&u->ship.cond);
	pthread_mutex_unlock(&u->ship.lock);
}

/* One turn of the loop: parts that waited too long, transfers, stats. */
static void up_turn(struct uploader *u)
{
	int64_t now = perfsink_coll_mono_ms();

	part_enqueue(u, part_cutter_expire(&u->cut, now));
	ship_step(&u->ship, now);
	shared_publish(u);
}

/* The worker's idle hook: between jobs, and when none is queued (wait then). */
void up_idle(void *arg, int more)
{
	struct uploader *u = arg;

	up_turn(u);
	if (!more)
		curl_multi_poll(u->ship.multi, NULL, 0,
				(int)poll_timeout(u, perfsink_coll_mono_ms(), 0), NULL);
}

/* The worker's wake hook: push, stop. */
void up_wake(void *arg)
{
	struct uploader *u = arg;

	curl_multi_wakeup(u->ship.multi);
}

/*
 * overflow = block: while this run's parts in memory reach queue_size,
 * the next buffer waits (its reference held: the engine's backpressure),
 * and the thread keeps sending.  Not while a barrier or the drain waits.
 */
static void throttle(struct uploader *u)
{
	for (;;) {
		int hold;

		pthread_mutex_lock(&u->ship.lock);
		hold = u->conf->overflow == OVERFLOW_BLOCK && u->ship.q_mem >= u->conf->queue_size &&
		       !u->flushing && !u->stopping;
		pthread_mutex_unlock(&u->ship.lock);
		if (!hold)
			return;
		up_idle(u, 0);
	}
}

static int job_buffer(struct perfsink_kit_job *job, int err)
{
	struct uploader *u = job->ctx;

	(void)err;
	throttle(u);
	buffers_append(u, &job->buf, 1);
	return 0;
}

static int job_start(struct perfsink_kit_job *job, int err)
{
	struct up_job *j = (struct up_job *)job;
	struct uploader *u = job->ctx;

	(void)err;
	u->recording = 1;
	ship_backlog_scan(&u->ship);
	prologue_take(u, j->key_base, j->start_ns, j->bytes, j->len);
	j->key_base = NULL; /* taken */
	j->bytes = NULL;
	return 0;
}

static int job_epilogue(struct perfsink_kit_job *job, int err)
{
	struct up_job *j = (struct up_job *)job;

	(void)err;
	epilogue_take(job->ctx, j->bytes, j->len);
	j->bytes = NULL; /* taken */
	return 0;
}

/* A barrier: what is cut so far becomes a part, sent as soon as it can be. */
static int job_flush(struct perfsink_kit_job *job, int err)
{
	struct uploader *u = job->ctx;

	(void)err;
	part_enqueue(u, part_cutter_flush(&u->cut));
	up_turn(u);
	return 0;
}

static int job_upload(struct perfsink_kit_job *job, int err)
{
	struct uploader *u = job->ctx;

	(void)err;
	ship_backlog_scan(&u->ship);
	up_turn(u);
	return 0;
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


/*
 * The last job: the stream's last part and end marker, then send until
 * everything is sent, drain_timeout passed, a fatal error, or a second
 * Ctrl-C (upload: the first); what is left goes to the spool.
 */
static int job_drain(struct perfsink_kit_job *job, int err)
{
	struct uploader *u = job->ctx;
	int64_t end_ns;

	(void)err;
	pthread_mutex_lock(&u->ship.lock);
	end_ns = u->end_ns;
	pthread_mutex_unlock(&u->ship.lock);
	part_enqueue(u, part_cutter_flush(&u->cut));
	end_enqueue(u, end_ns);
	for (;;) {
		int64_t now = perfsink_coll_mono_ms();

		ship_step(&u->ship, now);
		shared_publish(u);
		if (perfsink_stop_requested(u->inst) && ship_busy(&u->ship)) {
			u->interrupted = 1;
			break;
		}
		if (!u->ship.q_head || now >= u->drain_until || u->ship.err)
			break;
		curl_multi_poll(u->ship.multi, NULL, 0,
				(int)poll_timeout(u, perfsink_coll_mono_ms(), 1), NULL);
	}
	uploader_finish(u);
	shared_publish(u);
	return 0;
}

static void job_free(struct perfsink_kit_job *job)
{
	struct up_job *j = (struct up_job *)job;

	free(j->key_base);
	free(j->bytes);
	free(j);
}

static const up_job_fn kinds[] = {
	[UP_BUFFER] = job_buffer, [UP_START] = job_start, [UP_EPILOGUE] = job_epilogue,
	[UP_FLUSH] = job_flush, [UP_UPLOAD] = job_upload, [UP_DRAIN] = job_drain,
};

struct up_job *up_job_new(struct uploader *u, enum up_kind kind)
{
	struct up_job *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->kj.run = kinds[kind];
	j->kj.done = job_free;
	j->kj.ctx = u;
	return j;
}
