/*
 * The object shipper: a queue of objects (struct part: a key and bytes) to
 * PUT on the collector, one transfer at a time in queue order, retried
 * with jittered backoff (or as a 429/503's Retry-After asks), moved to the
 * spool on an outage or overflow (per the http_conf policy: spool, block,
 * drop_oldest), and the spool's backlog of earlier runs sent after them.
 * The http sink's uploader ships its stream parts with it; a sink that
 * PUTs one object per window (pprof) needs only:
 *
 *     ship_init(&s, inst, conf, spool);       once, on its own thread's side
 *     ship_enqueue(&s, part);                 part->key set: the URL tail
 *     ship_step(&s, now);                     in its loop: start, drive, reap
 *     curl_multi_poll(s.multi, ..., ship_timeout(&s, now, max), ...);
 *     ship_finish(&s, &left);                 unsent objects to the spool
 *     ship_destroy(&s);
 *
 * and reads s.st (under s.lock) for its stats().
 *
 * Losing data: an object the spool cannot take is dropped; with
 * ship.have_lt (a stream's LOST template) it is replaced by a LOST record
 * saying how many records were lost, else it is sent empty.
 *
 * THREADS.  Every ship_* function runs on the owner's one thread (the
 * sink's), except that s->lock guards err and st, which the engine side
 * reads; ship_fail takes it.  The lock is a leaf.
 */
#ifndef HTTP_SHIP_H
#define HTTP_SHIP_H
#include <perfsink/collector.h>
#include <perfsink/kit.h>
#include <perfsink/sink.h>
#include <curl/curl.h>
#include <pthread.h>
#include <stdint.h>

struct http_conf;
struct part;
struct spool;
struct transfer;

struct ship {
	const struct perfsink_instance *inst;
	const struct perfsink_host *host;
	const struct http_conf *conf;
	struct spool *spool;
	CURLM *multi;
	/*
	 * Leaf lock: nothing else is locked while it is held, and no host
	 * call but buf_get is made under it.  cond signals any change below
	 * (the owner's fields under it too).
	 */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int err;                   /* first fatal error, 0 if none; set by ship_fail */
	struct perfsink_sink_stats st;
	uint64_t quarantined;      /* spool entries moved to quarantine */

	/* The owner's thread only. */
	struct part *q_head, *q_tail; /* this run's objects, queue order */
	size_t q_mem;              /* bytes of data parts only in memory */
	struct part *backlog;      /* objects of earlier runs, key order */
	int backlog_scanned;
	struct transfer *xfer;
	struct perfsink_coll_backoff bo;
	int64_t next_try;
	int down;                  /* last attempt failed; retrying */
	struct perfsink_kit_lost_template lt; /* set by the owner: what a drop leaves */
	int have_lt;
	uint64_t lost_parts;
	int loss_warned;
	int end_spool_warned;      /* an end marker could not be spooled: said once */
	uint64_t ends_sent;        /* end markers delivered (not parts: not in st.files) */
	/* Whose data waits in the spool: this run's parts, earlier runs' (backlog). */
	uint64_t spooled_parts, spooled_bytes, backlog_parts, backlog_bytes, backlog_sent;
	/* Called when an object of the backlog was delivered, its bytes still loaded. */
	void (*backlog_sent_fn)(void *arg, const struct part *p);
	void *backlog_sent_arg;
};

/* What ship_finish left in the spool. */
struct ship_left {
	uint64_t parts, ends, bytes;
};

/* Set up s (its curl multi, lock, backoff; spool callbacks to s).  0 or -ENOMEM. */
int ship_init(struct ship *s, const struct perfsink_instance *inst, const struct http_conf *conf,
	      struct spool *spool);
void ship_destroy(struct ship *s);
/* The first fatal error sticks; wakes the engine side. */
void ship_fail(struct ship *s, int rc);
/* Queue p (key set; NULL: nothing) after every object before it; apply the overflow policy. */
void ship_enqueue(struct ship *s, struct part *p);
/* Read the spool's backlog of earlier runs, once: sent after this run's objects. */
void ship_backlog_scan(struct ship *s);
/* Start a transfer when one is due, let curl work, reap what ended, start the next. */
void ship_step(struct ship *s, int64_t now);
/* t lowered to when the shipper must run again (a retry, a stalled transfer). */
int64_t ship_timeout(const struct ship *s, int64_t now, int64_t t);
/* Objects queued, in the backlog or in flight. */
int ship_busy(const struct ship *s);
/* s->lock held: st's shipper counters and state from s. */
void ship_stats_fill(struct ship *s);
/* At the end: abandon the transfer in flight (its object stays queued).  Again: nothing. */
void ship_finish_transfer(struct ship *s);
/* Then: ship_finish_transfer, spool what is unsent, free the queue; counts in *left. */
void ship_finish(struct ship *s, struct ship_left *left);

/* Between ship_*.c only. */
int ship_in_memory(const struct part *p);
void ship_spill(struct ship *s, struct part *p);
void ship_leaves(struct ship *s, const struct part *p, int sent);
void ship_policy(struct ship *s);
void ship_unlink_head(struct part **head, struct part **tail, struct part *p);

#define SHIP_LOG(s, lvl, ...) (s)->host->log((s)->inst, PERFSINK_LOG_##lvl, __VA_ARGS__)

#endif
