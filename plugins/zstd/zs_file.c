/* zs_file: see zs_file.h. */
#define _GNU_SOURCE /* fallocate */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zs_file.h"
#include "pwrite_all.h"

#define ZS_RESERVE_MIN (64u * 1024)

int zs_file_open(struct zs_file *f, const char *path)
{
	memset(f, 0, sizeof(*f));
	f->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (f->fd >= 0)
		f->created = 1;
	else if (errno == EEXIST)
		f->fd = open(path, O_WRONLY | O_CLOEXEC);
	if (f->fd < 0)
		return -errno;
	f->path = strdup(path);
	if (!f->path) {
		close(f->fd);
		f->fd = -1;
		return -ENOMEM;
	}
	return 0;
}

/* Make sure [off, off + len) is allocated; -ENOSPC (or EDQUOT...) if not. */
static int file_reserve(struct zs_file *f, uint64_t off, uint64_t len)
{
	if (!f->can_reserve || fallocate(f->fd, FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) == 0)
		return 0;
	if (errno == EOPNOTSUPP || errno == ENOSYS) {
		f->can_reserve = 0;
		return 0;
	}
	return -errno;
}

/* Aio thread: keep data.size on the completed prefix, a record boundary. */
static void file_on_commit(void *arg, uint64_t end)
{
	struct zs_file *f = arg;
	uint64_t size = end - f->data_offset;

	f->marks[f->nr_marks++ % ZS_FILE_MARKS] = end;
	(void)pwrite_all(f->fd, &size, sizeof(size), f->host->data_size_offset);
}

/* The feature section as it would be now: sizes the reserve. */
static uint64_t file_features_size(struct zs_file *f)
{
	struct perfsink_compression comp = { 1, 22, 0, 0 };
	struct perfsink_file_end end = { f->data_offset, 0, &comp };
	struct perfsink_bytes b;
	uint64_t n;

	if (f->host->file_features(f->stream, &end, &b) < 0)
		return ZS_RESERVE_MIN;
	n = b.len;
	f->host->bytes_free(&b);
	return n;
}

int zs_file_begin(struct zs_file *f, const struct perfsink_host *host,
		  const struct perfsink_stream *s, unsigned nr_cb, void *done_ctx)
{
	struct aiow_config cfg = { 0 };
	struct perfsink_bytes hdr;
	int r;

	f->host = host;
	f->stream = s;
	if (ftruncate(f->fd, 0) < 0)
		return -errno;
	(void)fchmod(f->fd, 0600); /* an existing file keeps its mode otherwise */
	r = host->file_header(s, NULL, &hdr);
	if (r < 0)
		return r;
	r = pwrite_all(f->fd, hdr.data, hdr.len, 0);
	f->data_offset = hdr.len;
	host->bytes_free(&hdr);
	if (r < 0)
		return r;
	f->reserve = 2 * file_features_size(f);
	if (f->reserve < ZS_RESERVE_MIN)
		f->reserve = ZS_RESERVE_MIN;
	f->can_reserve = 1;
	r = file_reserve(f, f->data_offset, f->reserve);
	if (r < 0)
		return r;
	cfg.fd = f->fd;
	cfg.nr_cb = nr_cb;
	cfg.offset = f->data_offset;
	cfg.on_commit = file_on_commit;
	cfg.commit_arg = f;
	cfg.done_ctx = done_ctx;
	r = aiow_create(&cfg, &f->w);
	f->begun = !r; /* else close() removes a file open() created */
	return r;
}

int zs_file_append(struct zs_file *f, const void *data, size_t len, aiow_done_fn done, void *arg)
{
	int r = aiow_error(f->w);

	if (!r)
		r = file_reserve(f, aiow_offset(f->w), len + f->reserve);
	if (!r)
		r = aiow_write(f->w, data, len, done, arg);
	return r;
}

int zs_file_drain(struct zs_file *f)
{
	return f->w ? aiow_drain(f->w) : 0;
}

/* Features at end, then the final header; cut back to end if they fail. */
static int file_write_tail(struct zs_file *f, const struct perfsink_file_end *fe, uint64_t end)
{
	struct perfsink_bytes feat, hdr;
	int r = f->host->file_features(f->stream, fe, &feat);

	if (r < 0)
		return r;
	r = pwrite_all(f->fd, feat.data, feat.len, end);
	/* Also frees what the reserve kept allocated past the end. */
	if (ftruncate(f->fd, (off_t)(end + (r < 0 ? 0 : feat.len))) < 0 && !r)
		r = -errno;
	f->host->bytes_free(&feat);
	if (r < 0)
		return r;
	r = f->host->file_header(f->stream, fe, &hdr);
	if (r < 0)
		return r;
	r = pwrite_all(f->fd, hdr.data, hdr.len, 0);
	f->host->bytes_free(&hdr);
	return r;
}

static int no_room(int err)
{
	return err == -ENOSPC || err == -EFBIG || err == -EDQUOT;
}

/*
 * The tail did not fit after end: drop whole writes from the end (each one
 * ends on a record and, for zstd, on a flushed group) until it does.
 * Returns the new end through *end.
 */
static int file_cut_back(struct zs_file *f, struct perfsink_file_end *fe, uint64_t *end)
{
	unsigned n = f->nr_marks < ZS_FILE_MARKS ? f->nr_marks : ZS_FILE_MARKS;
	int r = -ENOSPC;
	unsigned i;

	for (i = 0; i <= n && no_room(r); i++) {
		/* Marks from the newest back; the data offset as last resort. */
		uint64_t m = i < n ? f->marks[(f->nr_marks - 1 - i) % ZS_FILE_MARKS] : f->data_offset;

		if (m >= *end)
			continue;
		if (ftruncate(f->fd, (off_t)m) < 0)
			return -errno;
		*end = m;
		fe->data_size = m - f->data_offset;
		r = file_write_tail(f, fe, m);
	}
	return r;
}

int zs_file_finish(struct zs_file *f, const struct perfsink_compression *comp,
		   uint64_t *data_size, uint64_t *retries)
{
	struct perfsink_file_end fe;
	struct aiow_stats st;
	uint64_t end;
	int werr, r;

	*data_size = 0;
	if (!f->begun) /* begin failed: nothing to keep */
		return 0;
	werr = aiow_drain(f->w);
	end = aiow_committed(f->w);
	aiow_stats(f->w, &st);
	*retries = st.retries;
	aiow_destroy(f->w);
	f->w = NULL;
	/* Junk of failed writes past the prefix would only take space. */
	if (werr && ftruncate(f->fd, (off_t)end) < 0)
		return -errno;
	fe.data_offset = f->data_offset;
	fe.data_size = end - f->data_offset;
	fe.comp = comp;
	r = file_write_tail(f, &fe, end);
	if (no_room(r))
		r = file_cut_back(f, &fe, &end);
	*data_size = fe.data_size;
	return r;
}

int zs_file_close(struct zs_file *f)
{
	int r = 0;

	if (f->fd >= 0 && close(f->fd) < 0)
		r = -errno;
	if (f->created && !f->begun)
		unlink(f->path);
	f->fd = -1;
	free(f->path);
	f->path = NULL;
	return r;
}
