/*
 * pipe sink: the recording in perf's pipe format on a file descriptor,
 * standard output by default (`perfsink record -o - ... | perf script -i -`).
 *
 * The bytes are the stream the http sink sends: host->pipe_header(), then
 * every buffer as it is.  The kit's worker (one thread, in order) does the
 * blocking writes, so a slow reader holds buffers (the engine's
 * backpressure), never the engine thread.
 *
 * The sink takes the descriptor over at open(): it keeps a private
 * close-on-exec duplicate, so the workload does not inherit the stream
 * (the reader sees its end when perfsink is done), and with fd = 1 it
 * points standard output at standard error, so that neither the workload
 * (as perf record does for it in pipe mode) nor anything perfsink prints
 * can mix text into the stream.  A terminal is refused: the stream is
 * binary.
 *
 * When the reader goes away (`| head -1`), the write fails with EPIPE
 * (perfsink ignores SIGPIPE while recording); the sink says so once and
 * fails with -EPIPE, which ends the recording (sink.h: exit status 141).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfsink/kit.h>

/* Its one key, declared once (kit.h); open() reads it itself, no map. */
#define PIPE_KEYS(KEY, ONLY)                                                                    \
	ONLY(KEY_FD, "fd", PERFSINK_KEY_INT, "1", 0, 65535, NULL,                               \
	     "file descriptor to write the pipe-mode stream to (1: standard output; -o - selects it)")
enum { PERFSINK_KIT_KEYS_ENUM(PIPE_KEYS) };
static const struct perfsink_key pipe_keys[] = PERFSINK_KIT_KEYS_TABLE(PIPE_KEYS);

/* A queued write: the stream header (owned bytes) or a buffer (job.buf, a reference). */
struct pipe_item {
	struct perfsink_kit_job job;
	struct perfsink_bytes hdr;
};

struct pipe_sink {
	const struct perfsink_instance *inst;
	const struct perfsink_host *host;
	int fd;                     /* private duplicate, close-on-exec */
	struct perfsink_kit_worker *writer; /* does the blocking writes, in order */
	pthread_mutex_t mu;         /* st: the writer counts, stats() reads */
	struct perfsink_sink_stats st;
};

#define PLOG(p, lvl, ...) (p)->host->log((p)->inst, (lvl), __VA_ARGS__)

/* Every byte of p[0..len) to fd.  0 or a negative errno. */
static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void item_free(struct perfsink_kit_job *job)
{
	struct pipe_item *it = (struct pipe_item *)job;
	struct pipe_sink *p = job->ctx;

	if (!job->buf)
		p->host->bytes_free(&it->hdr);
	free(it);
}

/* Writer thread: write one item (after a failure, drop it unwritten) and account for it. */
static int write_item(struct perfsink_kit_job *job, int failed)
{
	struct pipe_item *it = (struct pipe_item *)job;
	struct pipe_sink *p = job->ctx;
	const uint8_t *data = job->buf ? job->buf->data : it->hdr.data;
	size_t len = job->buf ? job->buf->len : it->hdr.len;
	int r = failed ? failed : write_all(p->fd, data, len);

	if (r && perfsink_kit_worker_fail(p->writer, r)) {
		if (r == -EPIPE)
			PLOG(p, PERFSINK_LOG_ERROR, "the reader of the stream closed the pipe "
			     "(EPIPE); the recording ends here");
		else
			PLOG(p, PERFSINK_LOG_ERROR, "writing the stream to fd %d failed: %s",
			     p->fd, strerror(-r));
	}
	pthread_mutex_lock(&p->mu);
	if (r == 0) {
		p->st.bytes_out += len;
		if (job->buf)
			p->st.files = 1;
	} else {
		p->st.dropped_bytes += len;
		p->st.dropped_records += job->buf ? job->buf->records : 0;
	}
	pthread_mutex_unlock(&p->mu);
	return 0;
}

/* Queue it (buf: NULL for the header); 0 or the sticky error (it is freed). */
static int enqueue(struct pipe_sink *p, struct pipe_item *it, struct perfsink_buf *buf)
{
	it->job.run = write_item;
	it->job.done = item_free;
	it->job.buf = buf;
	it->job.ctx = p;
	return perfsink_kit_worker_push(p->writer, &it->job);
}

/* Take fd over: a private close-on-exec copy; fd 1 then points at stderr. */
static int take_fd(const struct perfsink_instance *inst, int fd, int *out)
{
	const char *at = perfsink_value_origin(inst, KEY_FD);
	int own;

	if (fcntl(fd, F_GETFD) < 0) {
		inst->host->log(inst, PERFSINK_LOG_ERROR, "%s%sfd %d is not open: %s", at ? at : "",
				at ? ": " : "", fd, strerror(errno));
		return -EBADF;
	}
	if (isatty(fd)) {
		inst->host->log(inst, PERFSINK_LOG_ERROR,
				"%s%sfd %d is a terminal; perf's pipe format is binary: redirect it "
				"to a file or a pipe (perfsink record -o - ... | perf script -i -)",
				at ? at : "", at ? ": " : "", fd);
		return -ENOTTY;
	}
	own = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (own < 0)
		return -errno;
	if (fd == STDOUT_FILENO) {
		fflush(stdout);
		if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
			int e = errno;

			close(own);
			return -e;
		}
	}
	*out = own;
	return 0;
}

static int pipe_open(const struct perfsink_instance *inst, void **ctx)
{
	struct pipe_sink *p = calloc(1, sizeof(*p));
	int r;

	if (!p)
		return -ENOMEM;
	p->inst = inst;
	p->host = inst->host;
	r = take_fd(inst, (int)inst->values[KEY_FD].num, &p->fd);
	if (r < 0) {
		free(p);
		return r;
	}
	r = perfsink_kit_worker_new(&(struct perfsink_kit_worker_conf){ .host = p->host },
				    &p->writer);
	if (r < 0) {
		PLOG(p, PERFSINK_LOG_ERROR, "cannot start the writer thread: %s", strerror(-r));
		close(p->fd);
		free(p);
		return r;
	}
	pthread_mutex_init(&p->mu, NULL);
	*ctx = p;
	return 0;
}

static int pipe_start(void *ctx, const struct perfsink_stream *stream)
{
	struct pipe_sink *p = ctx;
	struct pipe_item *it = calloc(1, sizeof(*it));
	int r;

	if (!it)
		return -ENOMEM;
	r = p->host->pipe_header(stream, NULL, &it->hdr);
	if (r < 0) {
		PLOG(p, PERFSINK_LOG_ERROR, "cannot build the stream header: %s", strerror(-r));
		free(it);
		return r;
	}
	return enqueue(p, it, NULL);
}

static int pipe_write(void *ctx, struct perfsink_buf *buf)
{
	struct pipe_sink *p = ctx;
	struct pipe_item *it = calloc(1, sizeof(*it));

	if (!it)
		return -ENOMEM;
	pthread_mutex_lock(&p->mu);
	p->st.bytes_in += buf->len;
	p->st.buffers++;
	pthread_mutex_unlock(&p->mu);
	return enqueue(p, it, buf);
}

static int pipe_barrier(void *ctx)
{
	struct pipe_sink *p = ctx;

	return perfsink_kit_worker_barrier(p->writer);
}

static int pipe_close(void *ctx, const struct perfsink_summary *sum)
{
	struct pipe_sink *p = ctx;
	int err;

	(void)sum;
	err = perfsink_kit_worker_stop(p->writer); /* writes what is queued first */
	perfsink_kit_worker_free(p->writer);
	if (close(p->fd) < 0 && !err && errno != EINTR)
		err = -errno;
	pthread_mutex_destroy(&p->mu);
	free(p);
	return err;
}

static void pipe_stats(void *ctx, struct perfsink_sink_stats *out)
{
	struct pipe_sink *p = ctx;

	pthread_mutex_lock(&p->mu);
	*out = p->st;
	pthread_mutex_unlock(&p->mu);
}

static const struct perfsink_sink_ops pipe_ops = {
	.abi_major = PERFSINK_ABI_MAJOR,
	.abi_minor = PERFSINK_ABI_MINOR,
	.struct_size = sizeof(struct perfsink_sink_ops),
	.flags = 0,
	.name = "pipe",
	.description = "perf pipe-mode stream to a file descriptor (stdout: -o -), for perf script/report/inject -i -",
	.keys = pipe_keys,
	.open = pipe_open,
	.start = pipe_start,
	.write = pipe_write,
	.barrier = pipe_barrier,
	.close = pipe_close,
	.stats = pipe_stats,
};

PERFSINK_DEFINE_SINK(pipe_ops)
