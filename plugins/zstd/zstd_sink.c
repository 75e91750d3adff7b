/*
 * zstd sink: perf.data compressed like `perf record -z`, readable by stock
 * perf 6.1.
 *
 * File: host->file_header(stream, NULL) at 0; SYNTH buffers raw; RING data
 * as PERF_RECORD_COMPRESSED (type 81) records, each buffer's FINISHED_ROUND
 * (tail_round) raw after the records holding its data; at the end the
 * COMPRESSED feature {zstd, level, ratio, mmap_len} and the final header.
 * Record framing and the mmap_len bound: perfsink_kit_zframe (perfsink/kit.h).
 *
 * Compression: the engine's stage (sink ABI 1.9, sink.h COMPRESSED INPUT)
 * compresses once for every sink of this level, on `threads` workers of
 * its own, and write() gets COMPRESSED buffers (independent frames of at
 * most PERFSINK_Z_CHUNK bytes).  open() fails under a host without it.
 *
 * Flow: write() takes a reference and queues the buffer; the pipe's thread
 * copies it into the batch and releases it.  A batch (one aio write)
 * closes at min_batch bytes, like perf --mmap-flush, 500 ms after it
 * began (what a kill -9 can lose), or at barrier().  The writer appends
 * batches in order:
 * zs_pipe.h.  Space for the feature section is kept allocated so a full
 * disk still leaves a readable file: zs_file.h.
 *
 * Segments: without rotation the output is `path`.  When the stream says
 * PERFSINK_STREAM_ROTATING, every output, the first one too, is
 * "<path>.<YYYYmmddHHMMSS>.<NNNNNN>" (local time the segment began, segment
 * number), named by perfsink_kit_segment_path (perfsink/kit.h) as aio_file does, and
 * stream->max_files prunes the oldest.  Each segment is a complete
 * perf.data file (the stage's frames are independent).
 *
 * Outputs are created by perfsink_kit_output (perfsink/kit.h) at start() and
 * rotate(): no symlink followed, an existing file kept as .old.  open()
 * only checks the path.  A run that ends before any ring data reached the
 * sink, or an output that kept no samples after a write error, is removed
 * and the .old put back: perf refuses a file without records, and fails
 * on one without samples.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <perfsink/kit.h>
#include <perfsink/sink.h>
#include "zs_batch.h"
#include "zs_file.h"
#include "zs_pipe.h"

struct zsink {
	const struct perfsink_instance *inst;
	const struct perfsink_host *host;
	const char *base_path; /* the path value, until close() */
	int level;
	unsigned threads, cblocks;
	uint64_t min_batch, max_pending;
	int symbols;
	pthread_t sym_thread;     /* writes the symbol archive of the last output */
	int sym_running;
	char *sym_path;           /* that output */

	struct zs_file file;
	int file_ok;              /* file is open */
	int ring_seen;            /* ring data was written during the run */
	uint64_t file_in;         /* bytes pushed for the current file */
	uint64_t first_ring_in;   /* file_in after its first ring buffer; 0: none yet */
	const struct perfsink_stream *stream;
	struct zs_pipe *pipe;
	int err;

	struct zs_pipe_stats at_begin; /* pipe totals when this file began */
	struct perfsink_sink_stats st;
	struct perfsink_kit_seglist *segs; /* this run's segments, for max_files */
	unsigned names_taken;     /* segments written under another name (.1, ...) */
};

/* Each key, and where open() stores its value. */
#define ZSTD_KEYS(KEY, ONLY)                                                              \
	KEY(KEY_PATH, "path", PERFSINK_KEY_PATH, "perf.data", 0, 0, NULL,                 \
	    "output file (perf.data, zstd-compressed like perf record -z); -o sets it",   \
	    struct zsink, base_path)                                                      \
	KEY(KEY_LEVEL, "level", PERFSINK_KEY_INT, "1", 1, 22, NULL,                       \
	    "zstd compression level (1 fastest, 22 smallest)", struct zsink, level)       \
	KEY(KEY_THREADS, "threads", PERFSINK_KEY_INT, "2", 1, 64, NULL,                   \
	    "compression threads (the engine's stage of this level takes the most asked)", struct zsink, threads) \
	KEY(KEY_MIN_BATCH, "min_batch", PERFSINK_KEY_SIZE, "128K", 0, 1LL << 30, NULL,    \
	    "ring bytes gathered into one write (like --mmap-flush)",                     \
	    struct zsink, min_batch)                                                      \
	KEY(KEY_MAX_PENDING, "max_pending", PERFSINK_KEY_SIZE, "64M", 1LL << 20, 0, NULL, \
	    "ring bytes queued for writing before write() waits",                         \
	    struct zsink, max_pending)                                                    \
	KEY(KEY_CBLOCKS, "cblocks", PERFSINK_KEY_INT, "4", 1, 64, NULL,                   \
	    "AIO writes in flight", struct zsink, cblocks)                                \
	KEY(KEY_SYMBOLS, "symbols", PERFSINK_KEY_BOOL, "false", 0, 0, NULL,               \
	    "write OUTPUT.symbols.tar.zst (its binaries, as perfsink archive) as each output closes", \
	    struct zsink, symbols)
PERFSINK_KIT_KEYS(ZSTD_KEYS, zstd_keys, zstd_map);

#define LOG(z, lvl, ...) (z)->host->log((z)->inst, (lvl), __VA_ARGS__)

static int zsink_open_file(struct zsink *z, const char *path, const struct perfsink_stream *s)
{
	char why[512];
	int r = zs_file_create(&z->file, path, s, why, sizeof(why));

	if (r < 0) {
		LOG(z, PERFSINK_LOG_ERROR, "%s", why);
		return r;
	}
	z->file_ok = 1;
	return 0;
}

static int zstd_open(const struct perfsink_instance *inst, void **ctx)
{
	struct zsink *z = calloc(1, sizeof(*z));
	char why[512];
	int r;

	if (!z)
		return -ENOMEM;
	z->inst = inst;
	z->host = inst->host;
	zs_file_init(&z->file);
	r = perfsink_kit_conf_fill(zstd_keys, inst->values, zstd_map, z);
	/* Check now: a bad path fails before any event is opened. */
	if (r == 0 && (r = perfsink_kit_output_check(z->base_path, why, sizeof(why))) < 0) {
		const char *at = perfsink_value_origin(inst, KEY_PATH);

		LOG(z, PERFSINK_LOG_ERROR, "%s%ssink '%s', key 'path': %s", at ? at : "",
		    at ? ": " : "", inst->name, why);
	}
	if (r < 0) {
		free(z);
		return r;
	}
	/*
	 * Compressed once by the engine for every sink of this level (sink.h,
	 * COMPRESSED INPUT), on its workers; the pipe only gathers and writes.
	 * A host without that stage (older than 1.9) cannot run this sink.
	 */
	r = perfsink_want_compressed(inst, &(struct perfsink_zwant){
		.level = (uint32_t)z->level, .threads = z->threads });
	if (r < 0) {
		LOG(z, PERFSINK_LOG_ERROR, "sink '%s': the zstd sink needs a host with the engine's "
		    "compression stage (sink ABI 1.9): %s", inst->name, strerror(-r));
		free(z);
		return r;
	}
	*ctx = z;
	return 0;
}

static int zsink_begin(struct zsink *z, const struct perfsink_stream *s)
{
	char why[512];
	int r = zs_file_begin(&z->file, z->host, s, z->cblocks, z->pipe, why, sizeof(why));

	if (r < 0) {
		if (why[0])
			LOG(z, PERFSINK_LOG_ERROR, "%s", why);
		else
			LOG(z, PERFSINK_LOG_ERROR, "cannot write '%s': %s", z->file.path, strerror(-r));
		return r;
	}
	z->stream = s;
	z->file_in = z->first_ring_in = 0;
	zs_pipe_stats(z->pipe, &z->at_begin);
	zs_pipe_set_file(z->pipe, &z->file);
	return 0;
}

/* Create and begin the output of stream s (`path` or a segment name). */
static int zsink_new_output(struct zsink *z, const struct perfsink_stream *s)
{
	char *p = perfsink_kit_segment_path(z->base_path, s);
	int r;

	if (!p)
		return -ENOMEM;
	r = zsink_open_file(z, p, s);
	if (r == 0)
		r = zsink_begin(z, s);
	if (r == 0 && z->file.renamed) {
		z->names_taken++;
		LOG(z, PERFSINK_LOG_WARN, "'%s' is taken by another file: this segment is '%s'", p,
		    z->file.path);
	}
	if (r == 0 && z->segs && (r = perfsink_kit_seglist_add(z->segs, &z->file.out)) < 0)
		LOG(z, PERFSINK_LOG_ERROR, "cannot keep the list of segments: %s", strerror(-r));
	if (r == 0)
		perfsink_output(z->inst, PERFSINK_OUTPUT_BEGUN, z->file.path, 0);
	free(p);
	if (r == 0 && s->max_files && z->segs) {
		int n = perfsink_kit_seglist_prune(z->segs, z->inst, s->max_files);

		if (n < 0)
			LOG(z, PERFSINK_LOG_WARN, "cannot remove old segments of '%s': %s",
			    z->base_path, strerror(-n));
	}
	return r;
}

static int zstd_start(void *ctx, const struct perfsink_stream *s)
{
	struct zsink *z = ctx;
	struct zs_pipe_config pc = { z->min_batch, z->max_pending, z->inst };
	int r;

	char note[512];
	int n = perfsink_kit_output_sweep(z->base_path, "PERFILE2", note, sizeof(note));
	if (n > 0)
		LOG(z, PERFSINK_LOG_WARN, "removed %d temporary file%s of an earlier run that was "
		    "killed before it finished: %s", n, n == 1 ? "" : "s", note);
	r = zs_pipe_create(&pc, &z->pipe);
	if (r < 0) {
		LOG(z, PERFSINK_LOG_ERROR, "cannot start the writer threads: %s", strerror(-r));
		return z->err = r;
	}
	if ((s->flags & PERFSINK_STREAM_ROTATING) && s->max_files &&
	    (r = perfsink_kit_seglist_create(&z->segs)) < 0)
		return z->err = r;
	return z->err = zsink_new_output(z, s);
}

static int zstd_write(void *ctx, struct perfsink_buf *buf)
{
	struct zsink *z = ctx;
	int r;

	if (z->err)
		return z->err;
	r = zs_pipe_push(z->pipe, buf);
	if (r == -ENOMEM)
		LOG(z, PERFSINK_LOG_ERROR, "out of memory");
	if (r < 0) /* other errors were logged by the pipe */
		return z->err = r;
	/* Counted as the ring bytes they stand for, compressed or not (sink ABI 1.9). */
	z->st.bytes_in += perfsink_buf_raw_len(buf);
	z->st.buffers++;
	z->file_in += perfsink_buf_raw_len(buf);
	if (buf->kind == PERFSINK_BUF_RING || buf->kind == PERFSINK_BUF_COMPRESSED) {
		z->ring_seen = 1;
		if (!z->first_ring_in)
			z->first_ring_in = z->file_in;
	}
	return 0;
}

static int zstd_barrier(void *ctx)
{
	struct zsink *z = ctx;
	int r;

	if (!z->pipe)
		return z->err;
	r = zs_pipe_wait_idle(z->pipe);
	if (r && !z->err)
		z->err = r;
	return z->err;
}

static uint32_t ratio_of(uint64_t in, uint64_t out)
{
	return out ? (uint32_t)((in + out / 2) / out) : 0;
}

/* Remove the current output, put back the one it replaced, say why. */
static void zsink_discard(struct zsink *z, const char *why)
{
	char *path = z->file.path ? strdup(z->file.path) : NULL;
	int r = zs_file_discard(&z->file);

	z->file_ok = 0;
	if (r == 0 && path)
		perfsink_output(z->inst, PERFSINK_OUTPUT_REMOVED, path, 0);
	if (r < 0)
		LOG(z, PERFSINK_LOG_WARN, "cannot remove '%s': %s", path ? path : "?", strerror(-r));
	else if (why)
		LOG(z, PERFSINK_LOG_WARN, "'%s' %s; removed it (an output it replaced is back)",
		    path ? path : "?", why);
	free(path);
}

static void zstd_stats(void *ctx, struct perfsink_sink_stats *out);

/* Batches hold buffers in stream order: the first ring buffer is kept whole. */
static int zsink_kept_samples(const struct zsink *z, const struct zs_file_result *res)
{
	return z->first_ring_in && res->kept_in >= z->first_ring_in;
}

/* After a write error: what the file kept, what the sink lost, whether perf reads it. */
static void zsink_say_kept(struct zsink *z, int r, const struct zs_file_result *res)
{
	struct perfsink_sink_stats st;

	zstd_stats(z, &st);
	if (r < 0)
		LOG(z, PERFSINK_LOG_ERROR, "cannot finish '%s': %s; perf cannot read it as it is "
		    "(data.size covers the %llu bytes of records on disk: perfsink recover rebuilds the rest)",
		    z->file.path, strerror(-r), (unsigned long long)res->data_size);
	else if (z->err && zsink_kept_samples(z, res))
		LOG(z, PERFSINK_LOG_WARN, "'%s' keeps the %llu bytes of records written before the error; "
		    "%llu records (%llu bytes of ring data) were lost; perf report reads it",
		    z->file.path, (unsigned long long)res->data_size,
		    (unsigned long long)st.dropped_records, (unsigned long long)st.dropped_bytes);
}

/* Make the current file final and log what it holds. */
/* The symbol archive of a finished output, off the engine thread. */
static void *symbols_thread(void *arg)
{
	struct zsink *z = arg;
	struct perfsink_kit_symarchive_stats st;
	size_t n = strlen(z->sym_path) + sizeof(".symbols.tar.zst");
	char *out = malloc(n), why[512];

	if (!out) {
		LOG(z, PERFSINK_LOG_WARN, "no symbol archive for '%s': out of memory", z->sym_path);
		return NULL;
	}
	snprintf(out, n, "%s.symbols.tar.zst", z->sym_path);
	if (perfsink_kit_symarchive_of_file(z->sym_path, out, &st, why, sizeof(why)))
		LOG(z, PERFSINK_LOG_WARN, "no symbol archive: %s", why);
	else
		LOG(z, PERFSINK_LOG_INFO, "'%s': %u build-ids, %u files and %u debug files (%.2f MB) in %.2f MB%s",
		    out, st.entries, st.files, st.debug, st.bytes / 1048576.0, st.out_bytes / 1048576.0,
		    st.missing + st.changed ? " (some left out: gone or rebuilt)" : "");
	free(out);
	return NULL;
}

static void symbols_join(struct zsink *z)
{
	if (z->sym_running)
		pthread_join(z->sym_thread, NULL);
	z->sym_running = 0;
	free(z->sym_path);
	z->sym_path = NULL;
}

/* One archive at a time: the previous output's is finished first. */
static void symbols_start(struct zsink *z)
{
	int r;

	symbols_join(z);
	z->sym_path = strdup(z->file.path);
	r = z->sym_path ? pthread_create(&z->sym_thread, NULL, symbols_thread, z) : ENOMEM;
	if (r)
		LOG(z, PERFSINK_LOG_WARN, "no symbol archive for '%s': %s", z->file.path, strerror(r));
	z->sym_running = r == 0;
}

static int zsink_finish(struct zsink *z)
{
	struct zs_pipe_stats ps;
	struct perfsink_compression comp = { 1, 0, 0, PERFSINK_Z_MMAP_LEN };
	struct zs_file_result res;
	uint64_t in, out;
	int r;

	zstd_barrier(z);
	zs_pipe_stats(z->pipe, &ps);
	in = ps.comp_in - z->at_begin.comp_in;
	out = ps.comp_out - z->at_begin.comp_out;
	comp.level = (uint32_t)z->level;
	comp.ratio = ratio_of(in, out);
	r = zs_file_finish(&z->file, &comp, &res);
	z->st.retries += res.retries;
	z->st.dropped_bytes += res.lost_in;
	z->st.dropped_records += res.lost_records;
	zsink_say_kept(z, r, &res);
	if (r == 0 && z->err && !zsink_kept_samples(z, &res)) {
		/* No ring data: perf refuses data.size 0 and says "no samples" otherwise. */
		zsink_discard(z, "kept no samples before the error");
		return 0;
	}
	z->st.files++;
	if (r == 0 && z->symbols)
		symbols_start(z);
	return r;
}

/*
 * Close the current file; a complete one is reported to the host with its
 * size, and said with the bytes it took in: the two numbers the summary
 * calls this sink's "in" and "written" (one output's share of each).
 */
static int zsink_close_file(struct zsink *z)
{
	char *path = z->file.begun && z->file.path ? strdup(z->file.path) : NULL;
	int c = zs_file_close(&z->file);
	struct stat st;

	if (c == 0 && path && stat(path, &st) == 0)
		LOG(z, PERFSINK_LOG_INFO, "'%s': %.3f MB compressed to %.3f MB (ratio %.1f, level %d, "
		    "%u thread%s)", path, z->file_in / 1048576.0, st.st_size / 1048576.0,
		    st.st_size ? (double)z->file_in / (double)st.st_size : 0.0, z->level, z->threads,
		    z->threads > 1 ? "s" : "");
	if (c == 0 && path)
		perfsink_kit_output_report_done(z->inst, path);
	free(path);
	return c;
}

static int zstd_rotate(void *ctx, const struct perfsink_stream *next)
{
	struct zsink *z = ctx;
	int r;

	if (z->err)
		return z->err;
	r = zsink_finish(z);
	zsink_close_file(z);
	z->file_ok = 0;
	z->stream = NULL;
	if (r < 0 || z->err)
		return z->err = z->err ? z->err : r;
	return z->err = zsink_new_output(z, next);
}

static int zstd_close(void *ctx, const struct perfsink_summary *sum)
{
	struct zsink *z = ctx;
	/* Aborted before recording (sink.h), or this output never began. */
	int unused = (sum && sum->stop_reason < 0 && !z->ring_seen) || !z->file.begun;
	int r = 0;

	if (z->file_ok && unused) {
		zs_pipe_destroy(z->pipe); /* nothing in flight to the file after it */
		z->pipe = NULL;
		zsink_discard(z, z->err && z->file.begun ? "kept no samples before the error" : NULL);
	} else if (z->pipe && z->file_ok && z->stream) {
		r = zsink_finish(z);
	}
	zs_pipe_destroy(z->pipe);
	if (z->file_ok) {
		int c = zsink_close_file(z);

		if (!r)
			r = c;
	}
	if (!r)
		r = z->err;
	symbols_join(z);
	if (z->names_taken)
		LOG(z, PERFSINK_LOG_WARN, "%u segment name%s taken by other files: written under "
		    "the next free name (NAME.1, ...)", z->names_taken, z->names_taken == 1 ? " was" : "s were");
	perfsink_kit_seglist_destroy(z->segs);
	free(z);
	return r;
}

static void zstd_stats(void *ctx, struct perfsink_sink_stats *out)
{
	struct zsink *z = ctx;
	struct zs_pipe_stats ps = { 0 };

	if (z->pipe)
		zs_pipe_stats(z->pipe, &ps);
	*out = z->st;
	if (z->file_ok && z->file.w) { /* the current file's writer */
		struct perfsink_kit_aiow_stats as;

		perfsink_kit_aiow_stats(z->file.w, &as);
		out->retries += as.retries;
	}
	out->bytes_out = ps.bytes_out;
	out->dropped_bytes += ps.dropped_bytes;
	out->dropped_records += ps.dropped_records;
	if (z->file_ok) { /* what the current file's failed writer cannot keep */
		uint64_t in, records;

		zs_file_lost(&z->file, &in, &records);
		out->dropped_bytes += in;
		out->dropped_records += records;
	}
}

static const struct perfsink_sink_ops zstd_ops = {
	.abi_major = PERFSINK_ABI_MAJOR,
	.abi_minor = PERFSINK_ABI_MINOR,
	.struct_size = sizeof(struct perfsink_sink_ops),
	.flags = PERFSINK_SINK_WRITES_FILES,
	.name = "zstd",
	.description = "perf.data compressed with zstd (perf record -z format)",
	.keys = zstd_keys,
	.open = zstd_open,
	.start = zstd_start,
	.write = zstd_write,
	.barrier = zstd_barrier,
	.rotate = zstd_rotate,
	.close = zstd_close,
	.stats = zstd_stats,
};

PERFSINK_DEFINE_SINK(zstd_ops)
