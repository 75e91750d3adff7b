/*
 * http sink: streams a recording, in perf pipe format, to a collector over
 * HTTP(S) or into an S3 bucket, as numbered parts.
 *
 * Layout (see docs/http-sink.md):
 *
 *     PUT {url}/{host}/{session}/{seq}            mode = http
 *     PUT {url}/{bucket}/[{prefix}/]{host}/{session}/{seq}   mode = s3, path_style
 *
 * {seq} is the part number in zero-padded decimal (10 digits) from 0.
 * Part 0 is the pipe-mode prologue (header, HEADER_ATTR, HEADER_FEATUREs,
 * tracing data); later parts hold whole records, cut between buffers.  So
 * `cat` of the parts in seq order is a stream `perf script -i -` reads, and
 * a retried PUT of the same seq only rewrites the same bytes.  A part that
 * had to be dropped (spool full) is replaced, under its own seq, by a
 * PERF_RECORD_LOST whose count is the number of records lost, so perf
 * reports the gap ("lost N chunks").
 */
#include "buildids.h"
#include "held_roots.h"
#include "http_conf.h"
#include "jitdumps.h"
#include "pid_set.h"
#include "symship.h"
#include "uploader.h"

#include <curl/curl.h>
#include <errno.h>
#include <perfsink/kit.h>
#include <perfsink/sink.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct http_sink {
	const struct perfsink_instance *inst;
	struct http_conf conf;
	struct spool spool;
	struct uploader *up;
	const struct perfsink_stream *stream; /* being sent; valid until rotate() returns or close() */
	struct symship *ship;      /* symbols != none, else NULL */
	struct pid_set pids;       /* processes of the stream being sent (JIT maps) */
	struct dump_set dumps;     /* jitdump files its processes mapped */
	struct held_roots roots;   /* of its processes in other mount namespaces */
	char *key_base;            /* "{host}/{session}" of the stream being sent */
	char **urls;      /* every stream's {url}/{host}/{session}/, as reported */
	unsigned nr_urls;
	int64_t drain_start_ms;    /* when drain() began: symbols share its drain_timeout; 0: not yet */
	int64_t drain_until_ms;    /* while in drain(), its deadline, else 0; stats() reads it (atomic) */
	int64_t upload_until_ms;   /* upload()'s deadline, which symbols share; 0: no upload() */
	int64_t next_ship_ms;      /* when the build-ids seen so far go to the shipper again */
	int64_t barrier_real_ns;   /* CLOCK_REALTIME of the last barrier(): the engine's at the stop */
};

static int64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Uploader's thread: an earlier run's build-id part left the spool; ship its symbols now. */
static void ship_spooled(void *arg, const char *key_base, const uint8_t *recs, size_t len)
{
	struct http_sink *h = arg;

	if (symship_queue(h->ship, recs, len, key_base, NULL, 0, NULL, NULL) < 0)
		h->inst->host->log(h->inst, PERFSINK_LOG_WARN,
				   "symbols of %s are not shipped: out of memory", key_base);
}

/* One line; with the FILE:LINE of the key at fault (key < 0: none) from a 1.3 host. */
static void open_error(const struct perfsink_instance *inst, int key, const char *err)
{
	const char *at = key >= 0 ? perfsink_value_origin(inst, (unsigned)key) : NULL;

	if (at)
		inst->host->log(inst, PERFSINK_LOG_ERROR, "%s: sink '%s', key '%s': %s", at,
				inst->name, http_keys[key].name, err);
	else
		inst->host->log(inst, PERFSINK_LOG_ERROR, "%s", err);
}

/*
 * compress = zstd: the engine compresses once for every sink of the level
 * (sink.h, COMPRESSED INPUT), and write() gets COMPRESSED buffers.  The
 * sink has no compressor of its own, so a host without the stage (older
 * than sink ABI 1.9, or built without zstd) cannot run it.
 */
static int want_stage(const struct perfsink_instance *inst, const struct http_conf *c,
		      char *err, size_t n)
{
	int rc;

	if (!c->compress)
		return 0;
	rc = perfsink_want_compressed(inst,
		&(struct perfsink_zwant){ .level = (uint32_t)c->compress_level });
	if (rc == -ENOTSUP)
		snprintf(err, n, "compress = zstd needs a host with the engine's compression stage "
			 "(sink ABI 1.9) built with zstd");
	else if (rc < 0)
		snprintf(err, n, "compress = zstd: the engine's compression stage refused level %d: %s",
			 c->compress_level, strerror(-rc));
	return rc;
}

static int http_open(const struct perfsink_instance *inst, void **ctx)
{
	struct http_sink *h = calloc(1, sizeof(*h));
	char err[512];
	int rc, key = -1;

	if (!h)
		return -ENOMEM;
	h->inst = inst;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		inst->host->log(inst, PERFSINK_LOG_ERROR, "libcurl initialization failed");
		free(h);
		return -ENOMEM;
	}
	rc = http_conf_load(&h->conf, inst->values, err, sizeof(err));
	key = h->conf.err_key;
	if (rc == 0) {
		key = K_SPOOL_DIR;
		rc = spool_open(&h->spool, h->conf.spool_dir, inst->name, h->conf.spool_max, err, sizeof(err));
	} else {
		h->spool.dir = NULL;
	}
	if (rc == 0) {
		key = -1;
		/* No part the sink makes is larger: a bigger file is not read. */
		h->spool.part_max = h->conf.part_size + SPOOL_PART_SLACK;
		rc = want_stage(inst, &h->conf, err, sizeof(err));
		if (rc < 0)
			key = K_COMPRESS;
	}
	if (rc == 0) {
		rc = uploader_new(inst, &h->conf, &h->spool, &h->up);
		if (rc < 0)
			snprintf(err, sizeof(err), "cannot start the upload thread: %s", strerror(-rc));
	}
	if (rc < 0) {
		open_error(inst, key, err);
		spool_close(&h->spool);
		http_conf_free(&h->conf);
		free(h);
		curl_global_cleanup();
		return rc;
	}
	if (h->conf.symbols != SYMBOLS_NONE && (rc = symship_new(inst, &h->conf, &h->ship)) < 0)
		inst->host->log(inst, PERFSINK_LOG_WARN, "symbols are not shipped: cannot start their thread: %s",
				strerror(-rc));
	if (h->ship)
		uploader_on_buildids(h->up, ship_spooled, h);
	if (!h->conf.coll.tls_verify)
		inst->host->log(inst, PERFSINK_LOG_WARN,
				"tls_verify = false: the collector's certificate is not checked");
	*ctx = h;
	return 0;
}

/* "{host}/{session}" as the uploader names the stream's folder. */
static char *key_base_of(const char *host, const char *session)
{
	size_t hn = strlen(host), n = hn + strlen(session) + 2;
	char *base = malloc(n);

	if (!base)
		return NULL;
	snprintf(base, n, "%s/%s", host, session);
	base[hn] = '\0';
	http_name_sanitize(base);
	http_name_sanitize(base + hn + 1);
	base[hn] = '/';
	return base;
}

/* {url}/{host}/{session}/ (s3: with bucket and prefix), as the parts' URLs begin. */
static char *session_url(const struct http_sink *h, const struct perfsink_stream *s,
			 const char *session)
{
	size_t n = strlen(s->host_name) + strlen(session) + 4;
	char *key = malloc(n), *url = NULL, *slash;

	if (!key)
		return NULL;
	snprintf(key, n, "%s/%s/0", s->host_name, session);
	url = transfer_url(&h->conf.ship, key);
	free(key);
	if (url && (slash = strrchr(url, '/')))
		slash[1] = '\0';
	return url;
}

/* Tell the host where this stream goes (sink ABI 1.4): it prints the URL at once. */
static void stream_report(struct http_sink *h, const struct perfsink_stream *s, const char *session)
{
	char *url = session_url(h, s, session);
	char **v = url ? realloc(h->urls, (h->nr_urls + 1) * sizeof(*v)) : NULL;

	if (!v) {
		free(url);
		return;
	}
	h->urls = v;
	v[h->nr_urls++] = url;
	perfsink_output(h->inst, PERFSINK_OUTPUT_BEGUN, url, 0);
}

/*
 * Start a stream (start, or rotate after a barrier).  With rotation every
 * segment, the first too, is a stream of its own under
 * {host}/{session}.{YYYYmmddHHMMSS}.{NNNNNN}, named like the file sinks'
 * segments; stream->max_files is not applied to what is on the collector.
 */
static int http_stream_begin(struct http_sink *h, const struct perfsink_stream *stream)
{
	const struct perfsink_host *host = h->inst->host;
	struct perfsink_compression comp = { 1, 0, 0, PERFSINK_Z_MMAP_LEN };
	struct perfsink_bytes hdr = { 0 };
	char *session;
	int rc;

	comp.level = (uint32_t)h->conf.compress_level;
	rc = host->pipe_header(stream, h->conf.compress ? &comp : NULL, &hdr);
	if (rc < 0) {
		host->log(h->inst, PERFSINK_LOG_ERROR, "cannot build the stream header: %s", strerror(-rc));
		return rc;
	}
	session = perfsink_kit_segment_path(stream->session, stream);
	rc = session ? uploader_start(h->up, stream, session, hdr.data, hdr.len) : -ENOMEM;
	free(h->key_base);
	h->key_base = session ? key_base_of(stream->host_name, session) : NULL;
	if (rc == 0)
		stream_report(h, stream, session);
	h->next_ship_ms = perfsink_coll_mono_ms() + PERFSINK_BUILD_IDS_EVERY_MS;
	free(session);
	host->bytes_free(&hdr);
	return rc;
}

/*
 * The stream's build-ids as HEADER_BUILD_ID records, its last part: so a
 * reader (perfsink fetch, perf report -i -) knows which files the
 * recording mapped.  Best effort: a failure only leaves them out.
 */
static void http_stream_end(struct http_sink *h)
{
	uint8_t *rec = NULL;
	size_t len = 0;

	if (!h->stream)
		return;
	if (buildid_records(h->inst->host, h->stream, &rec, &len) == 0 && len)
		uploader_epilogue(h->up, rec, len);
	else if (len == 0 && rec == NULL)
		h->inst->host->log(h->inst, PERFSINK_LOG_DEBUG, "no build-ids to send with the stream");
	/* The earliest the build-ids reach a sink: the stream's end. */
	if (h->ship && h->key_base &&
	    symship_queue(h->ship, rec, len, h->key_base, h->pids.v, h->pids.cap, &h->dumps,
			  &h->roots) < 0)
		h->inst->host->log(h->inst, PERFSINK_LOG_WARN, "symbols of this stream are not shipped: out of memory");
	pid_set_free(&h->pids);
	dump_set_free(&h->dumps);
	held_roots_close(&h->roots); /* not queued (no memory) */
	free(rec);
	h->stream = NULL;
}

static int http_start(void *ctx, const struct perfsink_stream *stream)
{
	struct http_sink *h = ctx;

	h->stream = stream;
	return http_stream_begin(h, stream);
}

static int http_rotate(void *ctx, const struct perfsink_stream *next)
{
	struct http_sink *h = ctx;

	http_stream_end(h);
	h->stream = next;
	return http_stream_begin(h, next);
}

/*
 * The files mapped so far go to the shipper while recording (a 1.5 host
 * refreshes BUILD_ID every PERFSINK_BUILD_IDS_EVERY_MS), so a live
 * session's symbols are on the collector before it ends; the shipper
 * skips what it has settled.  JIT maps grow until the end: they go with
 * the stream's end only.
 */
static void ship_so_far(struct http_sink *h)
{
	uint8_t *rec = NULL;
	size_t len = 0;
	int64_t now = perfsink_coll_mono_ms();

	if (!h->key_base || !h->stream || now < h->next_ship_ms)
		return;
	h->next_ship_ms = now + PERFSINK_BUILD_IDS_EVERY_MS;
	if (buildid_records(h->inst->host, h->stream, &rec, &len) == 0 && len &&
	    symship_queue_interim(h->ship, rec, len, h->key_base) < 0)
		h->inst->host->log(h->inst, PERFSINK_LOG_DEBUG, "symbols seen so far not queued: out of memory");
	free(rec);
}

/* A process seen: a container's root is held now, while it can be. */
static void task_seen(void *arg, int32_t pid)
{
	held_roots_see(arg, pid);
}

/* A buffer with task records, walked once: their pids, their jitdump files. */
static void task_records(struct http_sink *h, const struct perfsink_buf *buf)
{
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec r;

	/* A compressed buffer carries its task records raw beside (sink ABI 1.9). */
	if (buf->kind == PERFSINK_BUF_COMPRESSED)
		perfsink_kit_rec_iter_init(&it, buf->task_data, buf->task_len);
	else
		perfsink_kit_rec_iter_init(&it, buf->data, buf->len);
	while (perfsink_kit_rec_next(&it, &r)) {
		pid_set_record(&h->pids, r.p, r.type, r.size, task_seen, &h->roots);
		dump_set_record(&h->dumps, r.p, r.type, r.size);
	}
}

static int http_write(void *ctx, struct perfsink_buf *buf)
{
	struct http_sink *h = ctx;

	if (h->ship) {
		/* A tracepoint storm's buffers hold no new task or mapping: not walked. */
		if (buf->task_records)
			task_records(h, buf);
		ship_so_far(h);
	}
	return uploader_write(h->up, buf);
}

static int http_barrier(void *ctx)
{
	struct http_sink *h = ctx;

	/* The engine's last barrier comes as soon as the rings are read after
	 * the stop: the recording's end, for the end marker (drain() comes
	 * later, after the build-id cache's wait). */
	h->barrier_real_ns = real_ns();
	return uploader_barrier(h->up);
}

static int http_upload(void *ctx, int64_t deadline_ms)
{
	struct http_sink *h = ctx;
	int64_t t = deadline_ms > 0 ? deadline_ms : h->conf.drain_timeout_ms;

	h->upload_until_ms = perfsink_coll_mono_ms() + t;
	return uploader_upload(h->up, t);
}

/*
 * End of a recording: send what is queued for at most drain_timeout, say
 * so first (an operator must not read the wait as a hang), spool the rest.
 * A stream whose parts were all sent is done; one with parts left in the
 * spool stays open until `perfsink upload` or a later run sends them.
 */
static int http_drain(void *ctx)
{
	struct http_sink *h = ctx;
	struct perfsink_sink_stats st = { 0 };
	int rc;

	h->drain_start_ms = perfsink_coll_mono_ms();
	uploader_ended(h->up, h->barrier_real_ns ? h->barrier_real_ns : real_ns());
	/* The build-ids and the end marker go out with the last parts (the
	 * host updates BUILD_ID before drain()), and the symbols start. */
	http_stream_end(h);
	uploader_stats(h->up, &st);
	if (st.pending_bytes > st.backlog_bytes)
		h->inst->host->log(h->inst, PERFSINK_LOG_INFO,
				   "sending the last %.1f MB to %s; waiting at most %.0f s (drain_timeout); "
				   "Ctrl-C again leaves it in the spool %s and exits now",
				   (double)(st.pending_bytes - st.backlog_bytes) / (1024.0 * 1024.0),
				   h->nr_urls ? h->urls[h->nr_urls - 1] : h->conf.url,
				   (double)h->conf.drain_timeout_ms / 1000.0, h->spool.dir);
	__atomic_store_n(&h->drain_until_ms, h->drain_start_ms + h->conf.drain_timeout_ms, __ATOMIC_RELAXED);
	rc = uploader_drain(h->up, h->conf.drain_timeout_ms);
	/* The symbols too, within the same drain_timeout: the summary counts them. */
	if (h->ship)
		symship_wait(h->ship, h->drain_start_ms + h->conf.drain_timeout_ms);
	__atomic_store_n(&h->drain_until_ms, 0, __ATOMIC_RELAXED);
	uploader_stats(h->up, &st);
	for (unsigned i = 0; i < h->nr_urls && !st.spooled_parts && !st.lost_parts; i++)
		perfsink_output(h->inst, PERFSINK_OUTPUT_DONE, h->urls[i],
				h->nr_urls == 1 ? st.bytes_out - st.backlog_sent_bytes : 0);
	return rc;
}

static int http_close(void *ctx, const struct perfsink_summary *sum)
{
	struct http_sink *h = ctx;
	int64_t drain = sum ? h->conf.drain_timeout_ms : 0;
	struct perfsink_sink_stats st = { 0 };
	unsigned unshipped;
	int rc;

	if (!h->drain_start_ms) {
		h->drain_start_ms = perfsink_coll_mono_ms();
		if (sum)
			uploader_ended(h->up, h->barrier_real_ns ? h->barrier_real_ns : real_ns());
	}
	if (sum && sum->stop_reason >= 0)
		http_stream_end(h);
	/* After upload() the deadline was upload's; after drain() it is over. */
	rc = uploader_drain(h->up, drain);
	uploader_stats(h->up, &st);
	uploader_close(h->up, 0); /* joined: returns drain's error again */
	/* upload() is over: whatever of the backlog is left waits unsent. */
	if (!rc && h->upload_until_ms && !sum && st.backlog_bytes)
		rc = -EAGAIN;
	/*
	 * Symbols went on meanwhile, on their own thread, within the same
	 * drain_timeout (or what is left of upload()'s deadline).
	 */
	unshipped = h->ship ? symship_close(h->ship, h->upload_until_ms ? h->upload_until_ms
									  : h->drain_start_ms + drain)
			    : 0;
	if (unshipped && sum && st.spooled_parts)
		h->inst->host->log(h->inst, PERFSINK_LOG_INFO,
				   "the symbols not shipped go with the stream's build-id part, which "
				   "waits in the spool: `perfsink upload` (or the next run) ships them "
				   "when it sends it");
	pid_set_free(&h->pids);
	dump_set_free(&h->dumps);
	held_roots_close(&h->roots);
	free(h->key_base);

	for (unsigned i = 0; i < h->nr_urls; i++)
		free(h->urls[i]);
	free(h->urls);
	spool_close(&h->spool);
	http_conf_free(&h->conf);
	free(h);
	curl_global_cleanup(); /* balances open(); libcurl counts them */
	return rc;
}

/* Also from a host thread while drain() waits (sink ABI 1.7): the uploader's counters are locked. */
static void http_stats(void *ctx, struct perfsink_sink_stats *out)
{
	struct http_sink *h = ctx;
	int64_t until = __atomic_load_n(&h->drain_until_ms, __ATOMIC_RELAXED), now = perfsink_coll_mono_ms();

	uploader_stats(h->up, out);
	if (h->ship)
		symship_stats(h->ship, out);
	out->drain_left_ms = until <= now ? 0 : until - now > UINT32_MAX ? UINT32_MAX : (uint32_t)(until - now);
}

static const struct perfsink_sink_ops http_ops = {
	.abi_major = PERFSINK_ABI_MAJOR,
	.abi_minor = PERFSINK_ABI_MINOR,
	.struct_size = sizeof(struct perfsink_sink_ops),
	.flags = 0,
	.name = "http",
	.description = "stream to an HTTP collector or an S3 bucket as numbered perf pipe-mode parts",
	.keys = http_keys,
	.open = http_open,
	.start = http_start,
	.write = http_write,
	.barrier = http_barrier,
	.rotate = http_rotate,
	.close = http_close,
	.stats = http_stats,
	.upload = http_upload,
	.drain = http_drain,
};

PERFSINK_DEFINE_SINK(http_ops)
