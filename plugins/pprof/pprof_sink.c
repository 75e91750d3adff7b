/*
 * pprof: continuous profiling to a backend.  write() only queues the
 * buffer as a job on the kit's async worker (a reference held); the
 * worker's thread walks each buffer once into the window's profile
 * (agg.c) and drops the reference at once, so no pooled buffer is held
 * longer than its aggregation.  Every `window` the thread closes the
 * window (between jobs, in the worker's idle hook, or after a job): the
 * profile, gzipped, goes to the shipping thread (outbox.c, on the
 * collector's object shipper) with its from/until times, and a new one
 * begins.  barrier() is the worker's; drain() queues a flush (close the
 * window now) and waits for the collector at most drain_timeout; what is
 * still unsent then goes to spool_dir (without one it is lost, counted).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <perfsink/sink.h>
#include <perfsink/kit.h>
#include "agg.h"
#include "pprof_conf.h"
#include "outbox.h"

struct pprof_sink {
	const struct perfsink_instance *inst;
	struct pprof_conf conf;
	struct agg agg;
	struct outbox *ship;
	struct perfsink_kit_worker *worker; /* the aggregation thread */
	int started;
	/* The worker's idle wait for the window's end, cut short by a push. */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int woken;
	int64_t from_ns;                  /* this window's start (CLOCK_REALTIME) */
	int64_t due_ms;                   /* its end (CLOCK_MONOTONIC); the worker's */
	uint64_t bytes_in, buffers;       /* atomics: added by write, read by stats */
	int drained;
	char where[2048];                 /* host->output's name of the destination */
};

/* A buffer to aggregate, or (buf NULL) a flush: close the window now. */
struct agg_job {
	struct perfsink_kit_job job;
	struct pprof_sink *p;
};

#define LOG(p, lvl, ...) (p)->inst->host->log((p)->inst, PERFSINK_LOG_##lvl, __VA_ARGS__)

static int64_t now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int pprof_open(const struct perfsink_instance *inst, void **ctx)
{
	char why[512];
	struct pprof_sink *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->inst = inst;
	int rc = pprof_conf_load(&p->conf, inst, why, sizeof(why));
	if (rc) {
		inst->host->log(inst, PERFSINK_LOG_ERROR, "%s", why);
		pprof_conf_free(&p->conf);
		free(p);
		return rc;
	}
	char cache[4096];
	if (perfsink_kit_buildid_cache_dir(cache, sizeof(cache)))
		snprintf(cache, sizeof(cache), ".debug");
	rc = agg_init(&p->agg, p->conf.max_memory, p->conf.symbolize == PPROF_SYM_LOCAL, cache);
	if (rc) {
		pprof_conf_free(&p->conf);
		free(p);
		return rc;
	}
	p->agg.symbol_cache_max = p->conf.symbol_cache_max;
	p->agg.unwind_max = (uint32_t)p->conf.unwind_max;
	pthread_mutex_init(&p->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cv, &ca);
	pthread_condattr_destroy(&ca);
	*ctx = p;
	return 0;
}

/* ------------------------------------------------ the aggregation thread */

/* Close the window now: ship its profile, start the next.  The worker's. */
static void close_window(struct pprof_sink *p)
{
	uint8_t *data;
	size_t n;
	int64_t until = now_ns(CLOCK_REALTIME);
	uint64_t samples = p->agg.win_samples, dropped = p->agg.win_dropped;
	int rc = agg_window_end(&p->agg, p->from_ns, until, &data, &n);
	if (dropped)
		LOG(p, WARN, "window from %" PRId64 " ms: %" PRIu64 " samples dropped over max_memory "
		    "(%" PRIu64 " bytes)", p->from_ns / 1000000, dropped, p->conf.max_memory);
	if (rc)
		LOG(p, ERROR, "window from %" PRId64 " ms: cannot encode its %" PRIu64 " samples: %s",
		    p->from_ns / 1000000, samples, strerror(-rc));
	else if (data)   /* an empty window is not sent */
		outbox_push(p->ship, data, n, p->from_ns, until, samples);
	p->from_ns = until;
	p->due_ms = now_ns(CLOCK_MONOTONIC) / 1000000 + p->conf.window_ms;
}

static void close_if_due(struct pprof_sink *p)
{
	if (now_ns(CLOCK_MONOTONIC) / 1000000 >= p->due_ms)
		close_window(p);
}

/* A job: aggregate its buffer (the worker drops the reference after), or
 * close the window (a flush).  Aggregation cannot fail: a sample it
 * cannot keep is counted. */
static int agg_run(struct perfsink_kit_job *job, int err)
{
	struct agg_job *j = (struct agg_job *)job;
	(void)err;
	if (job->buf)
		agg_buffer(&j->p->agg, job->buf->data, job->buf->len);
	else
		close_window(j->p);
	close_if_due(j->p);
	return 0;
}

static void agg_done(struct perfsink_kit_job *job)
{
	free(job);
}

/* The worker's idle hook: between jobs, wait for the window's end (or a
 * push's wake), then close the window if it is due. */
static void agg_idle(void *arg, int more)
{
	struct pprof_sink *p = arg;
	int64_t left = p->due_ms - now_ns(CLOCK_MONOTONIC) / 1000000;
	pthread_mutex_lock(&p->mu);
	if (!more && left > 0 && !p->woken) {
		struct timespec ts;
		perfsink_kit_deadline(CLOCK_MONOTONIC, left, &ts);
		pthread_cond_timedwait(&p->cv, &p->mu, &ts);
	}
	p->woken = 0;
	pthread_mutex_unlock(&p->mu);
	close_if_due(p);
}

static void agg_wake(void *arg)
{
	struct pprof_sink *p = arg;
	pthread_mutex_lock(&p->mu);
	p->woken = 1;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

/* Queue b (NULL: a flush) on the worker.  0 or a negative errno. */
static int agg_push(struct pprof_sink *p, struct perfsink_buf *b)
{
	struct agg_job *j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->p = p;
	j->job.run = agg_run;
	j->job.done = agg_done;
	j->job.buf = b;
	return perfsink_kit_worker_push(p->worker, &j->job);
}

/* ------------------------------------------------------------------ ops */

/* The sample types Pyroscope is told of (sample_type_config). */
static const char *types_json(const struct agg *a, char *buf, size_t n)
{
	if (a->clock)
		snprintf(buf, n, "{\"samples\":{\"units\":\"samples\",\"display-name\":\"cpu_samples\"},"
			 "\"cpu\":{\"units\":\"nanoseconds\",\"display-name\":\"cpu\"}}");
	else
		snprintf(buf, n, "{\"samples\":{\"units\":\"samples\",\"display-name\":\"samples\"}}");
	return buf;
}

static int pprof_start(void *ctx, const struct perfsink_stream *s)
{
	struct pprof_sink *p = ctx;
	struct perfsink_bytes hdr = { 0 };
	char types[256];
	int rc = p->inst->host->pipe_header(s, NULL, &hdr);
	if (!rc) {
		rc = agg_attrs(&p->agg, hdr.data, hdr.len, s->nr_events ? s->event_names[0] : NULL);
		p->inst->host->bytes_free(&hdr);
	}
	if (rc) {
		LOG(p, ERROR, "cannot read the stream's events: %s", strerror(-rc));
		return rc;
	}
	if (p->started)
		return 0;   /* a rotation: the same run goes on */
	rc = outbox_create(&p->conf, p->inst, s->host_name, s->session,
			 types_json(&p->agg, types, sizeof(types)), &p->ship);
	if (rc)
		return rc;
	p->from_ns = now_ns(CLOCK_REALTIME);
	p->due_ms = now_ns(CLOCK_MONOTONIC) / 1000000 + p->conf.window_ms;
	struct perfsink_kit_worker_conf wc = {
		.host = p->inst->host, .idle = agg_idle, .wake = agg_wake, .arg = p,
	};
	rc = perfsink_kit_worker_new(&wc, &p->worker);
	if (rc) {
		outbox_destroy(p->ship);
		p->ship = NULL;
		return rc;
	}
	p->started = 1;
	outbox_where(p->ship, p->where, sizeof(p->where));
	perfsink_output(p->inst, PERFSINK_OUTPUT_BEGUN, p->where, 0);
	if (p->conf.mode == PPROF_MODE_PUT)
		LOG(p, INFO, "profiles every %" PRId64 " ms to %s%s%s", p->conf.window_ms, p->conf.url,
		    p->conf.bucket[0] ? " bucket " : "", p->conf.bucket);
	else
		LOG(p, INFO, "profiles every %" PRId64 " ms to %s/ingest as %s", p->conf.window_ms,
		    p->conf.url, p->conf.app);
	return 0;
}

static int pprof_write(void *ctx, struct perfsink_buf *b)
{
	struct pprof_sink *p = ctx;
	int rc = agg_push(p, b);
	if (rc == 0) {
		__atomic_fetch_add(&p->bytes_in, b->len, __ATOMIC_RELAXED);
		__atomic_fetch_add(&p->buffers, 1, __ATOMIC_RELAXED);
	}
	return rc;
}

static int pprof_barrier(void *ctx)
{
	struct pprof_sink *p = ctx;
	return p->started ? perfsink_kit_worker_barrier(p->worker) : 0;
}

static int pprof_rotate(void *ctx, const struct perfsink_stream *next)
{
	return pprof_start(ctx, next);
}

/* Close the window now and wait until it is handed to the shipper. */
static int flush(struct pprof_sink *p)
{
	int rc = agg_push(p, NULL);
	return rc ? rc : perfsink_kit_worker_barrier(p->worker);
}

static int pprof_drain(void *ctx)
{
	struct pprof_sink *p = ctx;
	if (!p->started || p->drained)
		return 0;
	p->drained = 1;
	int frc = flush(p);
	if (frc)
		LOG(p, ERROR, "cannot close the last window: %s", strerror(-frc));
	int rc = outbox_drain(p->ship, p->conf.drain_timeout_ms);
	struct outbox_left left;
	outbox_stop(p->ship, &left);   /* what is unsent goes to the spool, or is lost */
	uint64_t lost, lost_samples;
	outbox_lost(p->ship, &lost, &lost_samples);
	if (left.windows)
		LOG(p, WARN, "%" PRIu64 " profiles (%" PRIu64 " samples, %" PRIu64 " bytes) not "
		    "delivered within drain_timeout wait in the spool %s/%s for the next run",
		    left.windows, left.samples, left.bytes, p->conf.spool_dir, p->inst->name);
	if (rc == -ETIMEDOUT && !left.windows && !p->conf.spool_dir[0])
		LOG(p, ERROR, "profiles not delivered within drain_timeout: lost (no spool_dir)");
	struct perfsink_sink_stats st;
	outbox_stats(p->ship, &st);
	perfsink_output(p->inst, PERFSINK_OUTPUT_DONE, p->where, st.bytes_out);
	/* Not delivered: waiting in the spool, or lost; either fails the run. */
	return rc ? rc : lost || left.windows ? -EIO : 0;
}

static void pprof_stats(void *ctx, struct perfsink_sink_stats *o)
{
	struct pprof_sink *p = ctx;
	/* The shipper's counters: files, bytes_out, retries, lost_parts, spooled_*,
	 * backlog_*, dropped_records (samples of the windows it dropped). */
	if (p->ship)
		outbox_stats(p->ship, o);
	o->bytes_in = __atomic_load_n(&p->bytes_in, __ATOMIC_RELAXED);
	o->buffers = __atomic_load_n(&p->buffers, __ATOMIC_RELAXED);
	/* samples the aggregation dropped too (read racily: a counter) */
	o->dropped_records += __atomic_load_n(&p->agg.dropped, __ATOMIC_RELAXED);
}

/* What the processes, files and their caches hold at the end, and what
 * the bounds (symbol_cache_max, unwind_max) dropped: one line for -v. */
static void log_caches(struct pprof_sink *p)
{
	struct pp_symbols_stats sc;
	const struct pp_unwind_stats *uw = &p->agg.procs.unwinders;
	pp_symbols_stats(p->agg.sy, &sc);
	LOG(p, DEBUG, "at the end: %u processes (%zu bytes), %u files; symbols of %u held (%zu "
	    "bytes, symbol_cache_max %" PRIu64 "), %" PRIu64 " reads, %" PRIu64 " evicted; %u "
	    "unwinders held (unwind_max %" PRIu64 "), %" PRIu64 " made, %" PRIu64 " evicted",
	    p->agg.procs.pids.n, pp_procs_bytes(&p->agg.procs), p->agg.procs.dso_keys.n, sc.files,
	    sc.bytes, p->conf.symbol_cache_max, sc.reads, sc.evictions, uw->held,
	    p->conf.unwind_max, uw->made, uw->evictions);
}

static int pprof_close(void *ctx, const struct perfsink_summary *sum)
{
	struct pprof_sink *p = ctx;
	int rc = 0;
	(void)sum;
	if (p->started) {
		if (!p->drained)
			rc = pprof_drain(p);
		perfsink_kit_worker_free(p->worker);
		struct perfsink_sink_stats st;
		struct outbox_left left;
		uint64_t lost, lost_samples;
		outbox_stop(p->ship, &left);
		outbox_stats(p->ship, &st);
		outbox_lost(p->ship, &lost, &lost_samples);
		outbox_destroy(p->ship);
		/* Nothing lost silently: one line with every count when anything was. */
		if (p->agg.dropped || p->agg.bad || lost || left.windows)
			LOG(p, WARN, "%" PRIu64 " samples aggregated, %" PRIu64 " profiles sent; lost: %"
			    PRIu64 " samples over max_memory, %" PRIu64 " undecodable, %" PRIu64
			    " profiles (%" PRIu64 " samples) not delivered; %" PRIu64 " profiles (%"
			    PRIu64 " samples) in the spool", p->agg.samples, st.files, p->agg.dropped,
			    p->agg.bad, lost, lost_samples, left.windows, left.samples);
		else
			LOG(p, INFO, "%" PRIu64 " samples aggregated, %" PRIu64 " profiles sent",
			    p->agg.samples, st.files);
		if (p->agg.dwarf)
			LOG(p, INFO, "%" PRIu64 " DWARF stacks, %" PRIu64 " unwound past their leaf",
			    p->agg.dwarf, p->agg.unwound);
		log_caches(p);
	}
	agg_free(&p->agg);
	pprof_conf_free(&p->conf);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p);
	return rc;
}

static struct perfsink_sink_ops pprof_ops = {
	.abi_major = PERFSINK_ABI_MAJOR,
	.abi_minor = PERFSINK_ABI_MINOR,
	.struct_size = sizeof(struct perfsink_sink_ops),
	.name = "pprof",
	.description = "stacks aggregated per window, shipped as pprof profiles (Pyroscope, WebDAV, S3)",
	.open = pprof_open,
	.start = pprof_start,
	.write = pprof_write,
	.barrier = pprof_barrier,
	.rotate = pprof_rotate,
	.close = pprof_close,
	.stats = pprof_stats,
	.drain = pprof_drain,
};

/* The key table lives with the config (pprof_conf.c); ops takes it here. */
__attribute__((visibility("default"))) const struct perfsink_sink_ops *perfsink_sink_entry(void);
const struct perfsink_sink_ops *perfsink_sink_entry(void)
{
	pprof_ops.keys = pprof_conf_keys();
	return &pprof_ops;
}
