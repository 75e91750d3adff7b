/* The windows' profiles through the collector's object shipper; see outbox.h. */
#include "outbox.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <curl/curl.h>
#include <perfsink/collector.h>
#include <perfsink/collector_ship.h>
#include <perfsink/kit.h>

struct outbox {
	const struct pprof_conf *c;
	const struct perfsink_instance *inst;
	char *host, *session, *types;   /* host, session: made safe for a key and a label */
	struct spool spool;
	int have_spool;
	struct coll_ship_conf sc;       /* the conf's, with the ingest hook (pyroscope) */
	struct ship ship;               /* the thread's, but for ship.lock/st and multi's wakeup */
	pthread_t thr;
	int thr_started;
	/* mu guards what follows; cv signals a change of it. */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct part *in_head, *in_tail; /* windows pushed, not yet handed to the shipper */
	int stop, stopped, busy;
	int err;                        /* the shipper's fatal error: nothing more is sent */
	struct outbox_left left;
	uint64_t oom_lost, oom_samples; /* windows push could not queue (under mu) */
};

#define LOG(o, lvl, ...) (o)->inst->host->log((o)->inst, PERFSINK_LOG_##lvl, __VA_ARGS__)

/* --------------------------------------------- the shipper's callbacks */

/* Every dropped window is said with its samples (the shipper counts it). */
static void window_dropped(void *arg, const struct part *p, const char *why)
{
	struct outbox *o = arg;
	if (!strncmp(why, "queue full", 10))
		LOG(o, WARN, "queue_max reached: dropping the window of %" PRIu64 " samples from %"
		    PRIu64 " ms", p->records, p->seq);
	else
		LOG(o, WARN, "%s: dropping the window of %" PRIu64 " samples from %" PRIu64 " ms", why,
		    p->records, p->seq);
}

/* A spooled window is sent only if it is a gzipped profile as this sink writes them. */
static int window_check(int fd, uint64_t len, const struct part *p, char *why, size_t n)
{
	uint8_t m[3];
	(void)p;
	if (len < 18) {   /* gzip's header and trailer */
		snprintf(why, n, "%" PRIu64 " bytes: too short for a gzipped profile", len);
		return -EBADMSG;
	}
	ssize_t k = pread(fd, m, sizeof(m), 0);
	if (k < 0)
		return -errno;
	if (k != sizeof(m) || m[0] != 0x1f || m[1] != 0x8b || m[2] != 8) {
		snprintf(why, n, "not a gzipped profile");
		return -EBADMSG;
	}
	return 0;
}

/*
 * Pyroscope's ingest: the URL from the window's key ({host}/{session}/
 * {from_ms}) and until (p->opened_ms; a window read back from the spool
 * has none: from + window), the multipart body Pyroscope takes for
 * format=pprof.  The shipper's post_build hook.
 */
static int ingest_build(void *arg, CURL *e, const struct part *p, char **url, curl_mime **form)
{
	struct outbox *o = arg;
	const struct pprof_conf *c = o->c;
	char name[768];
	int64_t from = (int64_t)p->seq, until = p->opened_ms > from ? p->opened_ms : from + c->window_ms;
	snprintf(name, sizeof(name), "%s{host=%.*s%s%s}", c->app, (int)strcspn(p->key, "/"), p->key,
		 c->labels[0] ? "," : "", c->labels);
	char *esc = curl_easy_escape(e, name, 0);
	int64_t from_s = from / 1000, until_s = (until + 999) / 1000;
	if (until_s <= from_s)
		until_s = from_s + 1;
	size_t n = esc ? strlen(c->url) + strlen(esc) + 128 : 0;
	if (esc && (*url = malloc(n)))
		snprintf(*url, n, "%s/ingest?name=%s&from=%" PRId64 "&until=%" PRId64
			 "&format=pprof&spyName=perfsink", c->url, esc, from_s, until_s);
	curl_free(esc);
	curl_mime *m = *url ? curl_mime_init(e) : NULL;
	curl_mimepart *mp = m ? curl_mime_addpart(m) : NULL;
	if (!mp || curl_mime_name(mp, "profile") || curl_mime_filename(mp, "profile.pb.gz") ||
	    curl_mime_type(mp, "application/octet-stream") || transfer_form_data(mp, p))
		goto fail;
	mp = curl_mime_addpart(m);
	if (!mp || curl_mime_name(mp, "sample_type_config") ||
	    curl_mime_filename(mp, "sample_type_config.json") || curl_mime_type(mp, "application/json") ||
	    curl_mime_data(mp, o->types, CURL_ZERO_TERMINATED))
		goto fail;
	*form = m;
	return 0;
fail:
	curl_mime_free(m);
	free(*url);
	*url = NULL;
	return -ENOMEM;
}

/* ------------------------------------------------------------ the thread */

/* The shipper's state for the engine side: st (under ship.lock), busy and
 * err (under mu).  Returns err. */
static int publish(struct outbox *o)
{
	pthread_mutex_lock(&o->ship.lock);
	ship_stats_fill(&o->ship);
	int err = o->ship.err;
	pthread_mutex_unlock(&o->ship.lock);
	pthread_mutex_lock(&o->mu);
	o->busy = ship_busy(&o->ship) || o->in_head;
	o->err = err;
	pthread_cond_broadcast(&o->cv);
	pthread_mutex_unlock(&o->mu);
	return err;
}

/* Hand the pushed windows to the shipper; whether a stop was asked. */
static int take_inbox(struct outbox *o)
{
	pthread_mutex_lock(&o->mu);
	struct part *p = o->in_head;
	int stop = o->stop;
	o->in_head = o->in_tail = NULL;
	pthread_mutex_unlock(&o->mu);
	while (p) {
		struct part *next = p->next;
		p->next = NULL;
		ship_enqueue(&o->ship, p);
		p = next;
	}
	return stop;
}

static void *run(void *arg)
{
	struct outbox *o = arg;
	struct ship_left left;
	ship_backlog_scan(&o->ship);
	while (!take_inbox(o)) {
		int64_t now = perfsink_coll_mono_ms();
		ship_step(&o->ship, now);
		/* Failed: nothing is sent any more; wait for windows (the policy) or the stop. */
		int64_t t = publish(o) ? 1000 : ship_timeout(&o->ship, perfsink_coll_mono_ms(), 1000);
		curl_multi_poll(o->ship.multi, NULL, 0, (int)(t > 0 ? t : 0), NULL);
	}
	ship_finish(&o->ship, &left);
	pthread_mutex_lock(&o->ship.lock);
	ship_stats_fill(&o->ship);
	pthread_mutex_unlock(&o->ship.lock);
	pthread_mutex_lock(&o->mu);
	o->left = (struct outbox_left){ left.parts, left.bytes, left.records };
	o->busy = 0;
	pthread_cond_broadcast(&o->cv);
	pthread_mutex_unlock(&o->mu);
	return NULL;
}

/* --------------------------------------------------------- the interface */

/* h with every character a key or a label may not hold made '_'. */
static char *safe_name(const char *h)
{
	char *s = strdup(h && *h ? h : "localhost");
	for (char *p = s; p && *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *p))
			*p = '_';
	return s;
}

static int spool_setup(struct outbox *o)
{
	const struct pprof_conf *c = o->c;
	char err[512];
	if (!c->spool_dir[0])
		return 0;
	int rc = spool_open(&o->spool, c->spool_dir, o->inst->name, c->spool_max, err, sizeof(err));
	if (rc) {
		LOG(o, ERROR, "%s", err);
		return rc;
	}
	o->spool.check_fd = window_check;
	o->spool.part_max = c->max_memory + SPOOL_PART_SLACK;
	o->have_spool = 1;
	return 0;
}

int outbox_create(const struct pprof_conf *c, const struct perfsink_instance *inst,
		  const char *host, const char *session, const char *types, struct outbox **out)
{
	struct outbox *o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	o->c = c;
	o->inst = inst;
	o->host = safe_name(host);
	o->session = safe_name(session);
	o->types = strdup(types);
	o->sc = c->ship;
	if (c->mode == PPROF_MODE_PYROSCOPE) {
		o->sc.post_build = ingest_build;
		o->sc.post_arg = o;
	}
	pthread_mutex_init(&o->mu, NULL);
	pthread_cond_init(&o->cv, NULL);
	int rc = o->host && o->session && o->types ? spool_setup(o) : -ENOMEM;
	if (!rc)
		rc = ship_init(&o->ship, inst, &o->sc, o->have_spool ? &o->spool : NULL);
	if (!rc) {
		o->ship.dropped_fn = window_dropped;
		o->ship.dropped_arg = o;
		rc = -pthread_create(&o->thr, NULL, run, o);
	}
	if (rc) {
		outbox_destroy(o);
		return rc;
	}
	o->thr_started = 1;
	*out = o;
	return 0;
}

void outbox_push(struct outbox *o, uint8_t *data, size_t len, int64_t from_ns, int64_t until_ns,
		 uint64_t samples)
{
	uint64_t from_ms = (uint64_t)(from_ns / 1000000);
	struct part *p = part_new(from_ms, PART_DATA);
	char key[512];
	snprintf(key, sizeof(key), "%s/%s/%010" PRIu64, o->host, o->session, from_ms);
	if (!p || !(p->key = strdup(key))) {
		part_free(p);
		free(data);
		pthread_mutex_lock(&o->mu);
		o->oom_lost++;
		o->oom_samples += samples;
		pthread_mutex_unlock(&o->mu);
		LOG(o, ERROR, "out of memory: a window of %" PRIu64 " samples is lost", samples);
		return;
	}
	p->body = (struct perfsink_kit_buf){ data, len, len };
	p->records = samples;               /* what a drop of it loses */
	p->opened_ms = until_ns / 1000000;  /* its until, for the ingest URL */
	pthread_mutex_lock(&o->mu);
	if (o->in_tail)
		o->in_tail->next = p;
	else
		o->in_head = p;
	o->in_tail = p;
	o->busy = 1;
	pthread_mutex_unlock(&o->mu);
	curl_multi_wakeup(o->ship.multi);
}

int outbox_drain(struct outbox *o, int64_t timeout_ms)
{
	int64_t due = perfsink_coll_mono_ms() + timeout_ms;
	pthread_mutex_lock(&o->mu);
	while (o->busy && !o->err && perfsink_coll_mono_ms() < due &&
	       !perfsink_stop_requested(o->inst)) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100000000;   /* short naps: the deadline and stop checks stay prompt */
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&o->cv, &o->mu, &ts);
	}
	int rc = o->err ? o->err : o->busy ? -ETIMEDOUT : 0;
	pthread_mutex_unlock(&o->mu);
	return rc;
}

void outbox_stats(struct outbox *o, struct perfsink_sink_stats *out)
{
	pthread_mutex_lock(&o->ship.lock);
	*out = o->ship.st;
	pthread_mutex_unlock(&o->ship.lock);
}

void outbox_lost(struct outbox *o, uint64_t *windows, uint64_t *samples)
{
	pthread_mutex_lock(&o->ship.lock);
	*windows = o->ship.st.lost_parts;
	*samples = o->ship.st.dropped_records;
	pthread_mutex_unlock(&o->ship.lock);
	pthread_mutex_lock(&o->mu);
	*windows += o->oom_lost;
	*samples += o->oom_samples;
	pthread_mutex_unlock(&o->mu);
}

void outbox_where(const struct outbox *o, char *buf, size_t n)
{
	const struct pprof_conf *c = o->c;
	if (c->mode == PPROF_MODE_PUT) {
		char key[1024];
		snprintf(key, sizeof(key), "%s/%s/", o->host, o->session);
		/* The shipper's URL of the folder: no suffix after it. */
		struct coll_ship_conf sc = c->ship;
		sc.key_suffix = NULL;
		char *u = transfer_url(&sc, key);
		snprintf(buf, n, "%s", u ? u : c->url);
		free(u);
		return;
	}
	snprintf(buf, n, "%s/ingest?name=%s{host=%s%s%s}", c->url, c->app, o->host,
		 c->labels[0] ? "," : "", c->labels);
}

void outbox_stop(struct outbox *o, struct outbox_left *left)
{
	if (o->thr_started && !o->stopped) {
		pthread_mutex_lock(&o->mu);
		o->stop = 1;
		pthread_mutex_unlock(&o->mu);
		curl_multi_wakeup(o->ship.multi);
		pthread_join(o->thr, NULL);
		o->stopped = 1;
	}
	if (left)
		*left = o->left;
}

void outbox_destroy(struct outbox *o)
{
	if (!o)
		return;
	outbox_stop(o, NULL);
	/* Windows pushed after the stop never reached the shipper. */
	for (struct part *p = o->in_head, *next; p; p = next) {
		next = p->next;
		part_free(p);
	}
	ship_destroy(&o->ship);
	if (o->have_spool)
		spool_close(&o->spool);
	pthread_mutex_destroy(&o->mu);
	pthread_cond_destroy(&o->cv);
	free(o->host);
	free(o->session);
	free(o->types);
	free(o);
}
