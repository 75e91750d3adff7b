/*
 * The perf.data file sink (kit.h, perfsink_kit_fsink_*): what aio_file and
 * uring_file share, all but how bytes reach the file (the writer ops).
 * Every buffer becomes one write at an explicitly computed offset; its
 * reference is dropped when the write has completed.  data.size in the
 * header follows the completed prefix, at a buffer end (perfsink_kit_ends),
 * at most 100 ms behind, so a crash or a full disk still leaves a file
 * perf report reads.
 *
 * With direct, where the file system takes them (perfsink_kit_dio_usable),
 * the data section is written with O_DIRECT: no copy into the page cache.
 * How buffers become block writes: perfsink_kit_dio_split.  The header, the
 * features and the last partial block go through a second, buffered
 * descriptor; until that block is full, the records in it are only in
 * memory (at most 4 KiB).  A buffer that is not placed for O_DIRECT (a host
 * before sink ABI 1.2, or an output that is not rotated with the stream)
 * turns the rest of that file to buffered writes.
 *
 * Rotation: every segment is written to "<path>.<YYYYmmddHHMMSS>.<NNNNNN>"
 * (perfsink_kit_segment_path); stream->max_files prunes the oldest.
 *
 * Every output is created by perfsink_kit_output (no symlink followed, an
 * existing file kept as .old); a run that ends before any ring data reached
 * this sink removes its output and puts the .old back.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include <perfsink/sink.h>
#include <perfsink/kit.h>
#include "grow_ahead.h"

struct perfsink_kit_fsink {
	const struct perfsink_instance *inst;
	const struct perfsink_host *host;
	const struct perfsink_stream *stream;
	const char *base_path; /* the path value, until close() */
	char *path;       /* current output */
	struct perfsink_kit_output out; /* the current output's file and directory */
	int fd;           /* out.fd, buffered: header, features, last partial block */
	int begun;        /* the current output is in place with its header */
	int ring_seen;    /* ring data was written during the run */
	int dfd;          /* O_DIRECT descriptor of the same file, or -1 */
	const struct perfsink_kit_writer_ops *wops;
	void *wctx;
	int said_mode;    /* the O_DIRECT/buffered line was logged */
	int fsync;
	int direct;       /* config: try O_DIRECT */
	unsigned path_key; /* index of the path key, for messages */
	uint64_t data_offset;
	uint64_t pos;     /* file offset where the records written so far end */
	uint64_t records; /* records written to this file so far */
	uint64_t first_ring_end; /* where this file's first ring buffer ends; 0: none yet */
	int no_samples;   /* finish_file: the error left no ring data: remove the file */
	uint64_t alloc_end; /* O_DIRECT: the file is allocated up to here (prealloc); 0: not grown */
	int prealloc_off; /* no more fallocate: append from then on */
	int grown;        /* fallocate was called for this file: cut it to the data at close */
	uint64_t prealloc_steps;
	struct grow_ahead grow; /* the fallocate in flight (prealloc) */
	uint64_t grow_lead; /* the next step starts when less than this is allocated ahead */
	uint8_t *blk;     /* O_DIRECT: the pending partial block (perfsink_kit_dio_split) */
	size_t blk_len;
	struct perfsink_kit_ends *ends; /* buffer ends; data.size is one of them */
	struct perfsink_kit_seglist *segs; /* this run's segments, for max_files */
	unsigned names_taken; /* segments written under another name (.1, ...) */
	int64_t size_written_ns; /* completion thread: last data.size update */
	uint64_t size_end;       /* completion thread: last buffer end on file */
	void *w;          /* the current file's writer (wops) */
	int err;
	struct perfsink_sink_stats st;
};

#define LOG(f, lvl, ...) (f)->host->log((f)->inst, (lvl), __VA_ARGS__)

/* A segment's name is new by construction: never replace what is there. */
static int rotating(const struct perfsink_stream *s)
{
	return s->flags & PERFSINK_STREAM_ROTATING;
}

/* The new output's temporary file, and its O_DIRECT twin when wanted. */
static int open_output(struct perfsink_kit_fsink *f, const struct perfsink_stream *s,
		       const char *path)
{
	char why[512];
	int r = rotating(s) ? perfsink_kit_output_create_new(&f->out, path, why, sizeof(why))
			    : perfsink_kit_output_create(&f->out, path, why, sizeof(why));
	if (r < 0) {
		LOG(f, PERFSINK_LOG_ERROR, "%s", why);
		return r;
	}
	f->fd = f->out.fd;
	f->dfd = -1;
	if (f->direct && perfsink_kit_dio_usable(f->fd)) {
		f->dfd = perfsink_kit_output_reopen(&f->out, O_WRONLY | O_DIRECT);
		if (f->dfd < 0)
			f->dfd = -1;
	}
	if (!f->said_mode) /* once: every output of a run is in the same directory */
		LOG(f, PERFSINK_LOG_DEBUG, "'%s': %s", path, f->dfd >= 0 ? "O_DIRECT writes"
		    : !f->direct ? "buffered writes (direct = false)"
		    : "buffered writes (the file system does not take O_DIRECT)");
	f->said_mode = 1;
	return 0;
}

/* The output is created at start(); fail here already if it cannot be. */
static int check_writable(struct perfsink_kit_fsink *f, const char *path)
{
	char why[512];
	int r = perfsink_kit_output_check(path, why, sizeof(why));
	if (r < 0) {
		const char *at = perfsink_value_origin(f->inst, f->path_key);

		LOG(f, PERFSINK_LOG_ERROR, "%s%ssink '%s', key 'path': %s", at ? at : "",
		    at ? ": " : "", f->inst->name, why);
	}
	return r;
}

int perfsink_kit_fsink_open(const struct perfsink_instance *inst,
			    const struct perfsink_kit_fsink_config *cfg, struct perfsink_kit_fsink **out)
{
	struct perfsink_kit_fsink *f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->inst = inst;
	f->host = inst->host;
	f->fd = -1;
	perfsink_kit_output_init(&f->out);
	f->dfd = -1;
	f->base_path = cfg->path;
	f->path_key = cfg->path_key;
	f->fsync = cfg->fsync;
	f->direct = cfg->direct;
	f->wops = cfg->wops;
	f->wctx = cfg->wctx;
	int r = perfsink_kit_ends_create(&f->ends);
	if (r == 0)
		r = check_writable(f, f->base_path);
	if (r < 0) {
		perfsink_kit_ends_destroy(f->ends);
		free(f);
		return r;
	}
	*out = f;
	return 0;
}

/*
 * Completion thread: keep data.size at the completed prefix, at most every
 * SIZE_UPDATE_NS.  The 8-byte write takes the inode lock that the next
 * data write holds for about a millisecond, and waiting for it (the kernel
 * spins) cost 12 % of perfsink's CPU with two files at 300 MB/s each.  A
 * crash leaves perf the data of all but the last 100 ms (the rest is in
 * the file, past data.size); close() writes the final size.
 */
#define SIZE_UPDATE_NS (100 * 1000000LL)

static void on_commit(void *arg, uint64_t end)
{
	struct perfsink_kit_fsink *f = arg;
	uint64_t safe = perfsink_kit_ends_take(f->ends, end);
	if (safe <= f->size_end)
		return;
	f->size_end = safe;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	int64_t now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	if (f->size_written_ns && now - f->size_written_ns < SIZE_UPDATE_NS)
		return;
	f->size_written_ns = now;
	uint64_t size = safe - f->data_offset;
	(void)perfsink_kit_pwrite_all(f->fd, &size, sizeof(size), f->host->data_size_offset);
}

/* Completion thread: the write is over (errors are sticky in the writer). */
static void on_done(void *ctx, void *arg, int err)
{
	struct perfsink_kit_fsink *f = ctx;
	f->host->buf_put(arg);
}

/* Completion thread: a pending block written with O_DIRECT. */
static void on_block_done(void *ctx, void *arg, int err)
{
	free(arg);
}

static void prealloc_reaped(struct perfsink_kit_fsink *f, uint64_t to, int err);

static void close_direct(struct perfsink_kit_fsink *f)
{
	uint64_t to;
	int err;
	/* Before the file is cut or closed: the fallocate uses dfd and grows the file. */
	if (grow_ahead_reap(&f->grow, true, &to, &err))
		prealloc_reaped(f, to, err);
	if (f->dfd >= 0)
		close(f->dfd);
	f->dfd = -1;
	free(f->blk);
	f->blk = NULL;
	f->blk_len = 0;
}

/* The writer for the rest of the file, from offset through fd (the O_DIRECT one or the buffered one). */
static int start_writer(struct perfsink_kit_fsink *f, int fd, uint64_t offset)
{
	int r = f->wops->create(f->wctx, fd, fd == f->dfd, offset, on_commit, f, f, &f->w);
	if (r < 0)
		LOG(f, PERFSINK_LOG_ERROR, "cannot start the writer: %s", strerror(-r));
	return r;
}

/*
 * Put the new output in place.  A segment whose name is taken (a link
 * planted at the predictable name) goes on under the next free name.
 */
static int place(struct perfsink_kit_fsink *f, const struct perfsink_stream *s)
{
	char why[512];
	int r = rotating(s) ? perfsink_kit_output_place_new(&f->out, why, sizeof(why))
			    : perfsink_kit_output_place(&f->out, why, sizeof(why));
	if (r < 0) {
		LOG(f, PERFSINK_LOG_ERROR, "%s", why);
		return r;
	}
	if (r > 0) {
		f->names_taken++;
		LOG(f, PERFSINK_LOG_WARN, "'%s' is taken by another file: this segment is '%s'",
		    f->path, f->out.path);
		free(f->path);
		if (!(f->path = strdup(f->out.path)))
			return -ENOMEM;
	}
	if (f->segs && (r = perfsink_kit_seglist_add(f->segs, &f->out)) < 0)
		LOG(f, PERFSINK_LOG_ERROR, "cannot keep the list of segments: %s", strerror(-r));
	return r < 0 ? r : 0;
}

/* Write the provisional header hdr (taken) to the new output, start the writer. */
static int begin_file(struct perfsink_kit_fsink *f, const struct perfsink_stream *s, struct perfsink_bytes *hdr_in)
{
	struct perfsink_bytes hdr = *hdr_in;
	int r = perfsink_kit_pwrite_all(f->fd, hdr.data, hdr.len, 0);
	f->data_offset = f->pos = hdr.len;
	f->records = 0;
	f->first_ring_end = 0;
	f->no_samples = 0;
	f->size_written_ns = 0;
	f->size_end = 0;
	f->alloc_end = 0;
	f->grown = 0;
	f->prealloc_off = 0;
	f->prealloc_steps = 0;
	f->grow_lead = 0;
	perfsink_kit_ends_reset(f->ends);
	f->host->bytes_free(&hdr);
	if (r < 0) {
		LOG(f, PERFSINK_LOG_ERROR, "write '%s': %s", f->path, strerror(-r));
		return r;
	}
	if ((r = place(f, s)) < 0)
		return r;
	if (f->data_offset % PERFSINK_KIT_DIO_BLOCK)
		close_direct(f); /* a host before sink ABI 1.2 */
	f->stream = s;
	if (f->wops->begin && (r = f->wops->begin(f->wctx, s)) < 0)
		return r;
	return start_writer(f, f->dfd >= 0 ? f->dfd : f->fd, f->data_offset);
}

/* Create the output of stream s and write its provisional header. */
static int new_output(struct perfsink_kit_fsink *f, const struct perfsink_stream *s)
{
	char *p = perfsink_kit_segment_path(f->base_path, s);
	if (!p)
		return -ENOMEM;
	free(f->path);
	f->path = p;
	/* The header first: a failure must not truncate an existing file. */
	struct perfsink_bytes hdr;
	int r = f->host->file_header(s, NULL, &hdr);
	if (r < 0) {
		LOG(f, PERFSINK_LOG_ERROR, "cannot build the file header: %s", strerror(-r));
		return r;
	}
	r = open_output(f, s, p);
	if (r == 0)
		r = begin_file(f, s, &hdr);
	else
		f->host->bytes_free(&hdr);
	f->begun = r == 0;
	if (r == 0)
		perfsink_output(f->inst, PERFSINK_OUTPUT_BEGUN, f->path, 0);
	if (r == 0 && s->max_files && f->segs) {
		int n = perfsink_kit_seglist_prune(f->segs, f->inst, s->max_files);
		if (n < 0)
			LOG(f, PERFSINK_LOG_WARN, "cannot remove old segments of '%s': %s",
			    f->base_path, strerror(-n));
	}
	return r;
}

/* What a killed run left beside the output: its temporary files. */
static void sweep(struct perfsink_kit_fsink *f)
{
	char note[512];
	int n = perfsink_kit_output_sweep(f->base_path, "PERFILE2", note, sizeof(note));
	if (n > 0)
		LOG(f, PERFSINK_LOG_WARN, "removed %d temporary file%s of an earlier run that was "
		    "killed before it finished: %s", n, n == 1 ? "" : "s", note);
}

int perfsink_kit_fsink_start(void *ctx, const struct perfsink_stream *s)
{
	struct perfsink_kit_fsink *f = ctx;
	sweep(f);
	if (rotating(s) && s->max_files && (f->err = perfsink_kit_seglist_create(&f->segs)) < 0)
		return f->err;
	return f->err = new_output(f, s);
}

/* A write of bytes of buf (its reference is dropped when it completes). */
static int write_from_buf(struct perfsink_kit_fsink *f, struct perfsink_buf *buf, const uint8_t *p, size_t len)
{
	f->host->buf_get(buf);
	int r = f->wops->write(f->w, p, len, on_done, buf);
	if (r < 0)
		f->host->buf_put(buf);
	return r;
}

/*
 * Turn the rest of the file to buffered writes: wait for the direct ones,
 * write the pending block, and go on after it through the buffered fd.
 */
static int to_buffered(struct perfsink_kit_fsink *f)
{
	int r = f->wops->drain(f->w);
	if (r < 0)
		return r;
	uint64_t at = f->wops->offset(f->w);
	if (f->blk_len && (r = perfsink_kit_pwrite_all(f->fd, f->blk, f->blk_len, at)) < 0)
		return r;
	struct perfsink_kit_aiow_stats as;
	f->wops->stats(f->w, &as);
	f->st.bytes_out += as.bytes + f->blk_len;
	f->st.retries += as.retries;
	f->wops->destroy(f->w);
	f->w = NULL;
	at += f->blk_len;
	close_direct(f);
	LOG(f, PERFSINK_LOG_DEBUG, "'%s': buffered writes from offset %llu (a buffer not placed for O_DIRECT)",
	    f->path, (unsigned long long)at);
	return start_writer(f, f->fd, at);
}

/*
 * An O_DIRECT write that grows the file takes ext4's (and xfs's) inode
 * lock exclusively and journals the new size: io_uring cannot issue it
 * without blocking and hands every one to a worker thread (a handoff, a
 * wakeup and a sleep per buffer: 60 % of uring_file's context switches on
 * a tracepoint storm).  Inside the file's size the same write overwrites
 * allocated blocks and is issued at once.  So the file is grown ahead of
 * the data with fallocate and cut back to the data at close (finish_file);
 * after a crash it ends in zeros, which perf report does not read and
 * `perfsink recover` cuts.  fallocate waits for the direct writes in
 * flight, hence steps of many buffers: PREALLOC_STEP, or an eighth of the
 * free space when that is less, so a nearly full disk is not taken at
 * once; below PREALLOC_MIN, or where fallocate fails (a file system
 * without it), the writes append as before.  Each step runs on a helper
 * thread (grow_ahead.h) and starts while half a step is still allocated
 * ahead: beside a busy disk, waiting for it here stalled the engine for
 * up to 90 ms.
 */
#define PREALLOC_STEP (64ULL << 20)
#define PREALLOC_MIN (1ULL << 20)

/* A step ended: the file is allocated up to to, or fallocate failed (err) and the writes append from then on. */
static void prealloc_reaped(struct perfsink_kit_fsink *f, uint64_t to, int err)
{
	if (err) {
		LOG(f, PERFSINK_LOG_DEBUG, "'%s': fallocate up to offset %llu: %s; appending from there",
		    f->path, (unsigned long long)to, strerror(-err));
		f->prealloc_off = 1;
		return;
	}
	f->alloc_end = to;
	f->prealloc_steps++;
}

static void prealloc(struct perfsink_kit_fsink *f, uint64_t end)
{
	uint64_t to;
	int err;
	if (f->prealloc_off || grow_ahead_busy(&f->grow))
		return;
	if (grow_ahead_reap(&f->grow, false, &to, &err))
		prealloc_reaped(f, to, err);
	if (f->prealloc_off || (f->alloc_end > end && f->alloc_end - end >= f->grow_lead))
		return;
	struct statvfs sv;
	uint64_t step = PREALLOC_STEP;
	if (fstatvfs(f->dfd, &sv) == 0 && (uint64_t)sv.f_bavail * sv.f_frsize / 8 < step)
		step = (uint64_t)sv.f_bavail * sv.f_frsize / 8;
	if (step < PREALLOC_MIN) {
		LOG(f, PERFSINK_LOG_DEBUG, "'%s': %llu bytes free: appending from offset %llu on",
		    f->path, (unsigned long long)sv.f_bavail * sv.f_frsize, (unsigned long long)f->pos);
		f->prealloc_off = 1;
		return;
	}
	uint64_t from = f->alloc_end > f->pos ? f->alloc_end : f->pos;
	if (end + step <= from)
		return; /* less free space than at the last step: what is allocated lasts longer */
	f->grown = 1; /* a failed fallocate may still have grown it part of the way */
	f->grow_lead = step / 2;
	grow_ahead_start(&f->grow, f->dfd, from, end + step);
}

/* O_DIRECT: complete the pending block, write the middle, keep the tail. */
static int write_direct(struct perfsink_kit_fsink *f, struct perfsink_buf *buf)
{
	struct perfsink_kit_dio_split s = perfsink_kit_dio_split(buf->data, buf->len, f->blk_len);
	if (!s.aligned) {
		int r = to_buffered(f);
		return r < 0 ? r : write_from_buf(f, buf, buf->data, buf->len);
	}
	prealloc(f, f->pos + buf->len);
	/* A head means bytes are pending, so the block exists. */
	if (s.head) {
		memcpy(f->blk + f->blk_len, buf->data, s.head);
		f->blk_len += s.head;
	}
	if (s.block_full) {
		int r = f->wops->write(f->w, f->blk, PERFSINK_KIT_DIO_BLOCK, on_block_done, f->blk);
		if (r < 0)
			return r; /* the block stays ours: freed by close_direct */
		f->blk = NULL;
		f->blk_len = 0;
	}
	if (s.mid) {
		int r = write_from_buf(f, buf, buf->data + s.head, s.mid);
		if (r < 0)
			return r;
	}
	if (s.tail) {
		if (!f->blk && posix_memalign((void **)&f->blk, PERFSINK_KIT_DIO_BLOCK, PERFSINK_KIT_DIO_BLOCK))
			return -ENOMEM;
		memcpy(f->blk, buf->data + s.head + s.mid, s.tail);
		f->blk_len = s.tail;
	}
	return 0;
}

int perfsink_kit_fsink_write(void *ctx, struct perfsink_buf *buf)
{
	struct perfsink_kit_fsink *f = ctx;
	if (f->err)
		return f->err;
	int r = f->dfd >= 0 ? write_direct(f, buf) : write_from_buf(f, buf, buf->data, buf->len);
	uint64_t records = f->records + perfsink_kit_buf_records(buf);
	if (r == 0)
		r = perfsink_kit_ends_push(f->ends, f->pos + buf->len, records);
	if (r < 0) {
		f->err = r;
		LOG(f, PERFSINK_LOG_ERROR, "write '%s' at offset %llu: %s", f->path,
		    (unsigned long long)(f->w ? f->wops->committed(f->w) : f->pos), strerror(-r));
		return r;
	}
	f->pos += buf->len;
	f->records = records;
	if (buf->kind == PERFSINK_BUF_RING) {
		f->ring_seen = 1;
		if (!f->first_ring_end)
			f->first_ring_end = f->pos;
	}
	f->st.bytes_in += buf->len;
	f->st.buffers++;
	return 0;
}

int perfsink_kit_fsink_barrier(void *ctx)
{
	struct perfsink_kit_fsink *f = ctx;
	if (!f->w)
		return f->err;
	int r = f->wops->drain(f->w);
	if (r < 0 && !f->err) {
		f->err = r;
		LOG(f, PERFSINK_LOG_ERROR, "write '%s' at offset %llu: %s", f->path,
		    (unsigned long long)f->wops->committed(f->w), strerror(-r));
	}
	return f->err;
}

/*
 * After an error: the end data.size keeps, the last buffer end at or below
 * committed (perfsink_kit_ends, perfsink/kit.h), and the bytes and records written past it (lost).
 */
static uint64_t kept_end(struct perfsink_kit_fsink *f, uint64_t committed, uint64_t *lost_bytes,
			 uint64_t *lost_records)
{
	uint64_t end = perfsink_kit_ends_take(f->ends, committed);
	if (end < f->data_offset)
		end = f->data_offset;
	uint64_t kept = end > f->data_offset ? perfsink_kit_ends_taken_records(f->ends) : 0;
	*lost_bytes = f->pos > end ? f->pos - end : 0;
	*lost_records = f->records > kept ? f->records - kept : 0;
	return end;
}

/*
 * Make the file final: data.size = the completed prefix, features after it,
 * header rewritten.  After a write error the junk past the prefix is cut
 * off first, and if the features do not fit they are cut off again: perf
 * reads a file whose announced features are missing.
 */
static int finish_file(struct perfsink_kit_fsink *f)
{
	int r = 0;
	uint64_t end = f->data_offset;
	if (f->w) {
		perfsink_kit_fsink_barrier(f);
		end = f->wops->committed(f->w);
		struct perfsink_kit_aiow_stats as;
		f->wops->stats(f->w, &as);
		f->st.bytes_out += as.bytes;
		f->st.retries += as.retries;
		f->wops->destroy(f->w);
		f->w = NULL;
	}
	if (f->dfd >= 0 && !f->err && f->blk_len) {
		/* The last partial block: buffered, it cannot be written whole. */
		int w = perfsink_kit_pwrite_all(f->fd, f->blk, f->blk_len, end);
		if (w < 0) {
			f->err = w;
			LOG(f, PERFSINK_LOG_ERROR, "write '%s' at offset %llu: %s", f->path,
			    (unsigned long long)end, strerror(-w));
		} else {
			end += f->blk_len;
			f->st.bytes_out += f->blk_len;
		}
	}
	close_direct(f);
	/* After an error, data.size must end where a buffer ended. */
	uint64_t lost_bytes = 0, lost_records = 0;
	if (f->err) {
		end = kept_end(f, end, &lost_bytes, &lost_records);
		f->st.dropped_bytes += lost_bytes;
		f->st.dropped_records += lost_records;
	}
	if (!f->stream)
		return f->err;
	if (f->err && !(f->first_ring_end && end >= f->first_ring_end)) {
		/* Task records only: perf says "no samples" and fails; the caller removes it. */
		LOG(f, PERFSINK_LOG_WARN, "'%s' kept no samples before the error (%llu bytes, %llu records lost); "
		    "removing it", f->path, (unsigned long long)lost_bytes, (unsigned long long)lost_records);
		f->no_samples = 1;
		return f->err;
	}
	/* After an error, or where the file was grown ahead of the data (prealloc). */
	if ((f->err || f->grown) && ftruncate(f->fd, (off_t)end) < 0)
		r = -errno;
	if (f->prealloc_steps)
		LOG(f, PERFSINK_LOG_DEBUG, "'%s': grown ahead of the data %llu times (fallocate), cut to %llu bytes of data",
		    f->path, (unsigned long long)f->prealloc_steps, (unsigned long long)(end - f->data_offset));
	struct perfsink_file_end fe = { f->data_offset, end - f->data_offset, NULL };
	struct perfsink_bytes feat, hdr;
	if (f->host->file_features(f->stream, &fe, &feat) == 0) {
		if (perfsink_kit_pwrite_all(f->fd, feat.data, feat.len, end) < 0) {
			if (ftruncate(f->fd, (off_t)end) < 0)
				r = -errno;
		}
		f->host->bytes_free(&feat);
	}
	if (f->host->file_header(f->stream, &fe, &hdr) == 0) {
		int w = perfsink_kit_pwrite_all(f->fd, hdr.data, hdr.len, 0);
		if (w < 0) {
			LOG(f, PERFSINK_LOG_ERROR, "rewrite header of '%s': %s", f->path, strerror(-w));
			r = w;
		}
		f->host->bytes_free(&hdr);
	}
	if (f->fsync && fdatasync(f->fd) < 0) {
		LOG(f, PERFSINK_LOG_ERROR, "fdatasync '%s': %s", f->path, strerror(errno));
		r = -errno;
	}
	if (f->err)
		LOG(f, PERFSINK_LOG_WARN, "'%s' holds the %llu bytes of records written before the error, "
		    "%llu bytes (%llu records) after it are lost%s",
		    f->path, (unsigned long long)(end - f->data_offset),
		    (unsigned long long)lost_bytes, (unsigned long long)lost_records,
		    r < 0 ? "" : "; perf report reads it");
	f->st.files++;
	return f->err ? f->err : r;
}

/* The current output is closed (c: close's result) or removed: tell the host. */
static void output_ended(struct perfsink_kit_fsink *f, int c)
{
	if (f->no_samples)
		perfsink_output(f->inst, PERFSINK_OUTPUT_REMOVED, f->path, 0);
	else if (c == 0)
		perfsink_kit_output_report_done(f->inst, f->path);
}

int perfsink_kit_fsink_rotate(void *ctx, const struct perfsink_stream *next)
{
	struct perfsink_kit_fsink *f = ctx;
	int r = finish_file(f);
	int c = f->no_samples ? perfsink_kit_output_discard(&f->out) : perfsink_kit_output_close(&f->out);
	output_ended(f, c);
	f->fd = -1;
	f->begun = 0;
	f->stream = NULL;
	if (r < 0 || c < 0)
		return f->err = r < 0 ? r : c;
	return f->err = new_output(f, next);
}

/*
 * Nothing of this run is worth keeping in the current output: remove it
 * and put the file it replaced back.
 */
static void discard_output(struct perfsink_kit_fsink *f)
{
	if (f->w) {
		f->wops->destroy(f->w);
		f->w = NULL;
	}
	close_direct(f);
	f->fd = -1;
	int r = perfsink_kit_output_discard(&f->out);
	if (r == 0 && f->begun)
		perfsink_output(f->inst, PERFSINK_OUTPUT_REMOVED, f->path, 0);
	if (r < 0)
		LOG(f, PERFSINK_LOG_WARN, "cannot remove '%s' after the failed start: %s", f->path,
		    strerror(-r));
	else if (f->err && f->begun)
		LOG(f, PERFSINK_LOG_WARN, "'%s' kept no samples before the error; removed it", f->path);
}

int perfsink_kit_fsink_close(void *ctx, const struct perfsink_summary *sum)
{
	struct perfsink_kit_fsink *f = ctx;
	int r;
	/* Aborted before recording (sink.h), or this output never began. */
	int unused = (sum && sum->stop_reason < 0 && !f->ring_seen) || !f->begun;
	if (unused && f->out.dirfd >= 0) {
		discard_output(f);
		r = f->err;
	} else {
		r = finish_file(f);
		int c = f->no_samples ? perfsink_kit_output_discard(&f->out) : perfsink_kit_output_close(&f->out);
		output_ended(f, c);
		if (c < 0 && r == 0)
			r = c;
	}
	if (f->names_taken)
		LOG(f, PERFSINK_LOG_WARN, "%u segment name%s taken by other files: written under "
		    "the next free name (NAME.1, ...)", f->names_taken, f->names_taken == 1 ? " was" : "s were");
	perfsink_kit_ends_destroy(f->ends);
	perfsink_kit_seglist_destroy(f->segs);
	if (f->wops->fini)
		f->wops->fini(f->wctx);
	free(f->path);
	free(f);
	return r;
}

void perfsink_kit_fsink_stats(void *ctx, struct perfsink_sink_stats *out)
{
	struct perfsink_kit_fsink *f = ctx;
	*out = f->st;
	if (f->w) {
		struct perfsink_kit_aiow_stats as;
		f->wops->stats(f->w, &as);
		out->bytes_out += as.bytes;
		out->retries += as.retries;
	}
	if (f->w && f->err) { /* what the failed file will not keep (finish_file counts it then) */
		uint64_t lost_bytes, lost_records;
		kept_end(f, f->wops->committed(f->w), &lost_bytes, &lost_records);
		out->dropped_bytes += lost_bytes;
		out->dropped_records += lost_records;
	}
	/* Written by close() (it cannot go out whole before): in == written. */
	if (f->dfd >= 0 && !f->err)
		out->bytes_out += f->blk_len;
}
