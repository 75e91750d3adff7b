/*
 * zstd sink: perf.data compressed like `perf record -z`, readable by stock
 * perf 6.1.
 *
 * File: host->file_header(stream, NULL) at 0; SYNTH buffers raw; RING data
 * as PERF_RECORD_COMPRESSED (type 81) records, each buffer's FINISHED_ROUND
 * (tail_round) raw after the records holding its data; at the end the
 * COMPRESSED feature {zstd, level, ratio, mmap_len} and the final header.
 * Record framing and the mmap_len bound: zs_frame.h.
 *
 * Flow: write() takes a reference and queues the buffer; a worker feeds it
 * to zstd at once and releases it.  A batch (one aio write, and with
 * several threads one zstd frame) closes at min_batch bytes, like perf
 * --mmap-flush, 500 ms after it began (what a kill -9 can lose), or at
 * barrier().  The writer appends batches in order:
 * zs_pipe.h.  Space for the feature section is kept allocated so a full
 * disk still leaves a readable file: zs_file.h.
 *
 * Segments: without rotation the output is `path`.  When the stream says
 * PERFSINK_STREAM_ROTATING, every output, the first one too, is
 * "<path>.<YYYYmmddHHMMSS>.<NNNNNN>" (local time the segment began, segment
 * number), named by plugins/common/segments.h as aio_file does, and
 * stream->max_files prunes the oldest.  Each segment is a complete
 * perf.data file with its own zstd stream.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <perfsink/sink.h>
#include "zs_batch.h"
#include "zs_file.h"
#include "zs_frame.h"
#include "zs_pipe.h"
#include "segments.h"

enum { KEY_PATH, KEY_LEVEL, KEY_THREADS, KEY_MIN_BATCH, KEY_MAX_PENDING, KEY_CBLOCKS };

static const struct perfsink_key zstd_keys[] = {
	[KEY_PATH] = { "path", PERFSINK_KEY_PATH, "perf.data",
		       "output file (perf.data, zstd-compressed like perf record -z); -o sets it",
		       0, 0, NULL },
	[KEY_LEVEL] = { "level", PERFSINK_KEY_INT, "1",
			"zstd compression level (1 fastest, 22 smallest)", 1, 22, NULL },
	[KEY_THREADS] = { "threads", PERFSINK_KEY_INT, "2",
			  "compression threads; 1 keeps one zstd stream per file",
			  1, 64, NULL },
	[KEY_MIN_BATCH] = { "min_batch", PERFSINK_KEY_SIZE, "128K",
			    "ring bytes gathered before a compress call (like --mmap-flush)",
			    0, 1LL << 30, NULL },
	[KEY_MAX_PENDING] = { "max_pending", PERFSINK_KEY_SIZE, "64M",
			      "input bytes queued for compression and writing before write() waits",
			      1LL << 20, 0, NULL },
	[KEY_CBLOCKS] = { "cblocks", PERFSINK_KEY_INT, "4",
			  "AIO writes in flight", 1, 64, NULL },
	{ NULL, 0, NULL, NULL, 0, 0, NULL },
};

struct zsink {
	const struct perfsink_instance *inst;
	const struct perfsink_host *host;
	char *base_path;
	int level;
	unsigned threads, cblocks;
	uint64_t min_batch, max_pending;

	struct zs_file file;
	int file_ok;              /* file is open */
	const struct perfsink_stream *stream;
	struct zs_pipe *pipe;
	int err;

	struct zs_pipe_stats at_begin; /* pipe totals when this file began */
	struct perfsink_sink_stats st;
};

#define LOG(z, lvl, ...) (z)->host->log((z)->inst, (lvl), __VA_ARGS__)

static int zsink_open_file(struct zsink *z, const char *path)
{
	int r = zs_file_open(&z->file, path);

	if (r < 0) {
		LOG(z, PERFSINK_LOG_ERROR, "cannot create '%s': %s", path, strerror(-r));
		return r;
	}
	z->file_ok = 1;
	return 0;
}

static int zstd_open(const struct perfsink_instance *inst, void **ctx)
{
	struct zsink *z = calloc(1, sizeof(*z));
	int r;

	if (!z)
		return -ENOMEM;
	z->inst = inst;
	z->host = inst->host;
	z->level = (int)inst->values[KEY_LEVEL].num;
	z->threads = (unsigned)inst->values[KEY_THREADS].num;
	z->min_batch = (uint64_t)inst->values[KEY_MIN_BATCH].num;
	z->max_pending = (uint64_t)inst->values[KEY_MAX_PENDING].num;
	z->cblocks = (unsigned)inst->values[KEY_CBLOCKS].num;
	z->base_path = strdup(inst->values[KEY_PATH].str);
	/* Open now: a bad path fails before any event is opened. */
	r = z->base_path ? zsink_open_file(z, z->base_path) : -ENOMEM;
	if (r < 0) {
		free(z->base_path);
		free(z);
		return r;
	}
	*ctx = z;
	return 0;
}

static int zsink_begin(struct zsink *z, const struct perfsink_stream *s)
{
	int r = zs_file_begin(&z->file, z->host, s, z->cblocks, z->pipe);

	if (r < 0) {
		LOG(z, PERFSINK_LOG_ERROR, "cannot write '%s': %s", z->file.path, strerror(-r));
		return r;
	}
	z->stream = s;
	zs_pipe_stats(z->pipe, &z->at_begin);
	zs_pipe_set_file(z->pipe, &z->file);
	return 0;
}

/*
 * Begin the output of stream s.  open() created (or opened) `path`; a
 * rotating stream names its outputs after the segment instead, and the
 * unused `path` is closed (and removed when open() created it).
 */
static int zsink_new_output(struct zsink *z, const struct perfsink_stream *s)
{
	char *p = segment_path(z->base_path, s);
	int r;

	if (!p)
		return -ENOMEM;
	if (z->file_ok && strcmp(p, z->file.path)) {
		zs_file_close(&z->file);
		z->file_ok = 0;
	}
	r = z->file_ok ? 0 : zsink_open_file(z, p);
	free(p);
	if (r == 0)
		r = zsink_begin(z, s);
	if (r == 0 && s->max_files) {
		int n = segments_prune(z->base_path, s->max_files);

		if (n < 0)
			LOG(z, PERFSINK_LOG_WARN, "cannot remove old segments of '%s': %s",
			    z->base_path, strerror(-n));
	}
	return r;
}

static int zstd_start(void *ctx, const struct perfsink_stream *s)
{
	struct zsink *z = ctx;
	struct zs_pipe_config pc = { z->threads, z->level, z->min_batch, z->max_pending, z->inst };
	int r;

	r = zs_pipe_create(&pc, &z->pipe);
	if (r < 0) {
		LOG(z, PERFSINK_LOG_ERROR, "cannot start the compression threads: %s", strerror(-r));
		return z->err = r;
	}
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
	z->st.bytes_in += buf->len;
	z->st.buffers++;
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

/* Make the current file final and log what it holds. */
static int zsink_finish(struct zsink *z)
{
	struct zs_pipe_stats ps;
	struct perfsink_compression comp = { 1, 0, 0, ZS_GROUP_MAX };
	uint64_t in, out, kept = 0, retries = 0;
	int r;

	zstd_barrier(z);
	zs_pipe_stats(z->pipe, &ps);
	in = ps.comp_in - z->at_begin.comp_in;
	out = ps.comp_out - z->at_begin.comp_out;
	comp.level = (uint32_t)z->level;
	comp.ratio = ratio_of(in, out);
	r = zs_file_finish(&z->file, &comp, &kept, &retries);
	z->st.retries += retries;
	z->st.files++;
	if (r < 0)
		LOG(z, PERFSINK_LOG_ERROR, "cannot finish '%s': %s; perf cannot read it",
		    z->file.path, strerror(-r));
	else if (z->err && !kept) /* data.size 0: perf refuses the file */
		LOG(z, PERFSINK_LOG_WARN, "'%s' holds no records: the error came before the first write completed; perf cannot read it",
		    z->file.path);
	else if (z->err)
		LOG(z, PERFSINK_LOG_WARN, "'%s' keeps the %llu bytes of records written before the error; perf report reads it",
		    z->file.path, (unsigned long long)kept);
	LOG(z, PERFSINK_LOG_INFO, "'%s': %.2f MB of ring data compressed to %.2f MB (ratio %.1f, level %d, %u thread%s)",
	    z->file.path, in / 1048576.0, out / 1048576.0, out ? (double)in / (double)out : 0.0,
	    z->level, z->threads, z->threads > 1 ? "s" : "");
	return r;
}

static int zstd_rotate(void *ctx, const struct perfsink_stream *next)
{
	struct zsink *z = ctx;
	int r;

	if (z->err)
		return z->err;
	r = zsink_finish(z);
	zs_file_close(&z->file);
	z->file_ok = 0;
	z->stream = NULL;
	if (r < 0 || z->err)
		return z->err = z->err ? z->err : r;
	return z->err = zsink_new_output(z, next);
}

static int zstd_close(void *ctx, const struct perfsink_summary *sum)
{
	struct zsink *z = ctx;
	int r = 0;

	(void)sum;
	if (z->pipe && z->file_ok && z->stream)
		r = zsink_finish(z);
	zs_pipe_destroy(z->pipe);
	if (z->file_ok) {
		int c = zs_file_close(&z->file);

		if (!r)
			r = c;
	}
	if (!r)
		r = z->err;
	free(z->base_path);
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
		struct aiow_stats as;

		aiow_stats(z->file.w, &as);
		out->retries += as.retries;
	}
	out->bytes_out = ps.bytes_out;
	out->dropped_bytes = ps.dropped_bytes;
	out->dropped_records = ps.dropped_records;
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
