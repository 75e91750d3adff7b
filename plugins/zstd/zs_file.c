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

#define ZS_RESERVE_MIN (64u * 1024)

void zs_file_init(struct zs_file *f)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	perfsink_kit_output_init(&f->out);
	pthread_mutex_init(&f->marks_mu, NULL);
}

/* A new output: forget the previous file's appends. */
static void file_reset_marks(struct zs_file *f)
{
	pthread_mutex_lock(&f->marks_mu);
	f->nr_marks = 0;
	f->in_bytes = f->records = 0;
	pthread_mutex_unlock(&f->marks_mu);
}

static int rotating(const struct perfsink_stream *s)
{
	return s->flags & PERFSINK_STREAM_ROTATING;
}

int zs_file_create(struct zs_file *f, const char *path, const struct perfsink_stream *s,
		   char *why, size_t n)
{
	int r;

	file_reset_marks(f);
	f->begun = 0;
	f->renamed = 0;
	f->reserve = 0;
	f->w = NULL;
	r = rotating(s) ? perfsink_kit_output_create_new(&f->out, path, why, n)
			: perfsink_kit_output_create(&f->out, path, why, n);
	if (r < 0)
		return r;
	f->path = strdup(path);
	if (!f->path) {
		perfsink_kit_output_close(&f->out);
		snprintf(why, n, "cannot create '%s': %s", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	f->fd = f->out.fd;
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

/* data.size on disk: end, a record boundary of what the file holds. */
static int file_set_size(struct zs_file *f, uint64_t end)
{
	uint64_t size = end - f->data_offset;

	return perfsink_kit_pwrite_all(f->fd, &size, sizeof(size), f->host->data_size_offset);
}

/* Aio thread: keep data.size on the completed prefix, a record boundary. */
static void file_on_commit(void *arg, uint64_t end)
{
	struct zs_file *f = arg;
	uint64_t size = end - f->data_offset;

	(void)perfsink_kit_pwrite_all(f->fd, &size, sizeof(size), f->host->data_size_offset);
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
		  const struct perfsink_stream *s, unsigned nr_cb, void *done_ctx,
		  char *why, size_t n)
{
	struct perfsink_kit_aiow_config cfg = { 0 };
	struct perfsink_bytes hdr;
	int r;

	f->host = host;
	f->stream = s;
	if (why && n)
		why[0] = '\0';
	r = host->file_header(s, NULL, &hdr);
	if (r < 0)
		return r;
	r = perfsink_kit_pwrite_all(f->fd, hdr.data, hdr.len, 0);
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
	/* Only now that header and reserve are on disk may it replace anything. */
	r = rotating(s) ? perfsink_kit_output_place_new(&f->out, why, n)
			: perfsink_kit_output_place(&f->out, why, n);
	if (r < 0)
		return r;
	if (r > 0) { /* a segment's name was taken: ours is NAME.N */
		char *p = strdup(f->out.path);
		if (!p)
			return -ENOMEM;
		free(f->path);
		f->path = p;
		f->renamed = 1;
	}
	cfg.fd = f->fd;
	cfg.nr_cb = nr_cb;
	cfg.offset = f->data_offset;
	cfg.on_commit = file_on_commit;
	cfg.commit_arg = f;
	cfg.done_ctx = done_ctx;
	r = perfsink_kit_aiow_create(&cfg, &f->w);
	f->begun = !r; /* else close() removes it and puts back what it replaced */
	return r;
}

int zs_file_append(struct zs_file *f, const void *data, size_t len, uint64_t in_bytes,
		   uint64_t records, perfsink_kit_aiow_done_fn done, void *arg)
{
	uint64_t end = perfsink_kit_aiow_offset(f->w) + len;
	int r = perfsink_kit_aiow_error(f->w);

	if (!r)
		r = file_reserve(f, perfsink_kit_aiow_offset(f->w), len + f->reserve);
	if (!r)
		r = perfsink_kit_aiow_write(f->w, data, len, done, arg);
	if (!r) {
		pthread_mutex_lock(&f->marks_mu);
		f->in_bytes += in_bytes;
		f->records += records;
		f->marks[f->nr_marks++ % ZS_FILE_MARKS] =
			(struct zs_mark){ end, f->in_bytes, f->records };
		pthread_mutex_unlock(&f->marks_mu);
	}
	return r;
}

int zs_file_drain(struct zs_file *f)
{
	return f->w ? perfsink_kit_aiow_drain(f->w) : 0;
}

/* Features at end, then the final header; cut back to end if they fail. */
static int file_write_tail(struct zs_file *f, const struct perfsink_file_end *fe, uint64_t end)
{
	struct perfsink_bytes feat, hdr;
	int r = f->host->file_features(f->stream, fe, &feat);

	if (r < 0)
		return r;
	r = perfsink_kit_pwrite_all(f->fd, feat.data, feat.len, end);
	/* Also frees what the reserve kept allocated past the end. */
	if (ftruncate(f->fd, (off_t)(end + (r < 0 ? 0 : feat.len))) < 0 && !r)
		r = -errno;
	f->host->bytes_free(&feat);
	if (r < 0)
		return r;
	r = f->host->file_header(f->stream, fe, &hdr);
	if (r < 0)
		return r;
	r = perfsink_kit_pwrite_all(f->fd, hdr.data, hdr.len, 0);
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
		uint64_t m = i < n ? f->marks[(f->nr_marks - 1 - i) % ZS_FILE_MARKS].end : f->data_offset;

		if (m >= *end)
			continue;
		/* data.size first: it must never point past the end of the file. */
		if (file_set_size(f, m) < 0 || ftruncate(f->fd, (off_t)m) < 0)
			return -errno;
		*end = m;
		fe->data_size = m - f->data_offset;
		r = file_write_tail(f, fe, m);
	}
	return r;
}

/* What the appends past end held: lost when the file is cut at end. */
static void file_count_lost(struct zs_file *f, uint64_t end, struct zs_file_result *res)
{
	unsigned n = f->nr_marks < ZS_FILE_MARKS ? f->nr_marks : ZS_FILE_MARKS;
	struct zs_mark kept = { f->data_offset, 0, 0 };
	unsigned i;

	pthread_mutex_lock(&f->marks_mu);
	/* The newest append that ends at or before end (none: nothing kept). */
	for (i = 0; i < n; i++) {
		const struct zs_mark *m = &f->marks[(f->nr_marks - 1 - i) % ZS_FILE_MARKS];

		if (m->end <= end) {
			kept = *m;
			break;
		}
	}
	res->kept_in = kept.in_bytes;
	res->lost_in = f->in_bytes - kept.in_bytes;
	res->lost_records = f->records - kept.records;
	pthread_mutex_unlock(&f->marks_mu);
}

void zs_file_lost(struct zs_file *f, uint64_t *in_bytes, uint64_t *records)
{
	struct zs_file_result res = { 0 };

	if (f->w && perfsink_kit_aiow_error(f->w))
		file_count_lost(f, perfsink_kit_aiow_committed(f->w), &res);
	*in_bytes = res.lost_in;
	*records = res.lost_records;
}

int zs_file_finish(struct zs_file *f, const struct perfsink_compression *comp,
		   struct zs_file_result *res)
{
	struct perfsink_file_end fe;
	struct perfsink_kit_aiow_stats st;
	uint64_t end;
	int werr, r;

	memset(res, 0, sizeof(*res));
	if (!f->begun) /* begin failed: nothing to keep */
		return 0;
	werr = perfsink_kit_aiow_drain(f->w);
	end = perfsink_kit_aiow_committed(f->w);
	perfsink_kit_aiow_stats(f->w, &st);
	res->retries = st.retries;
	perfsink_kit_aiow_destroy(f->w);
	f->w = NULL;
	/* Junk of failed writes past the prefix would only take space. */
	if (werr && (file_set_size(f, end) < 0 || ftruncate(f->fd, (off_t)end) < 0))
		r = -errno;
	else {
		fe.data_offset = f->data_offset;
		fe.data_size = end - f->data_offset;
		fe.comp = comp;
		r = file_write_tail(f, &fe, end);
		if (no_room(r))
			r = file_cut_back(f, &fe, &end);
	}
	res->data_size = end - f->data_offset;
	file_count_lost(f, end, res);
	return r;
}

int zs_file_discard(struct zs_file *f)
{
	int r;

	if (f->w) {
		perfsink_kit_aiow_destroy(f->w);
		f->w = NULL;
	}
	r = perfsink_kit_output_discard(&f->out);
	f->fd = -1;
	f->begun = 0;
	free(f->path);
	f->path = NULL;
	return r;
}

int zs_file_close(struct zs_file *f)
{
	int r;

	if (!f->begun)
		return zs_file_discard(f);
	r = perfsink_kit_output_close(&f->out);
	f->fd = -1;
	f->begun = 0;
	free(f->path);
	f->path = NULL;
	return r;
}
