/* zs_pipe: see zs_pipe.h. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "zs_pipe.h"

/*
 * A batch also closes this long after the gatherer took it, however little it
 * holds, so what a kill -9 can take with it (the gathering batch, in
 * memory) is at most about this much of the recording.
 */
#define ZS_BATCH_MAX_MS 500

struct zs_pipe {
	struct zs_pipe_config cfg;
	const struct perfsink_host *host;
	pthread_t gatherer;         /* copies the buffers into batches */
	int gathering;              /* it was started */
	/* Appends DONE batches in order; its error is the pipe's, sticky. */
	struct perfsink_kit_worker *writer;

	pthread_mutex_t mu;
	pthread_cond_t work_cv;     /* a buffer or batch was queued, or stop */
	pthread_cond_t done_cv;     /* a batch finished, left, or was written */
	struct zs_batch *head, *tail; /* not yet written (their jobs are queued) */
	struct zs_batch *next_claim;  /* oldest batch the gatherer did not take */
	unsigned writing;           /* batches given to the file, not done */
	int appending;              /* the writer is inside zs_file_append */
	uint64_t pending_in;        /* input bytes pushed, not yet done */
	struct zs_file *file;
	int stop;
	struct zs_pipe_stats st;
};

#define PLOG(p, lvl, ...) (p)->host->log((p)->cfg.inst, (lvl), __VA_ARGS__)

/* The sticky error (the writer's), 0 if none.  Any thread, p->mu held or not. */
static int pipe_err(struct zs_pipe *p)
{
	return perfsink_kit_worker_error(p->writer);
}

/* Record the first error and say it once.  Called with p->mu held. */
static void pipe_fail(struct zs_pipe *p, int err)
{
	if (!err || !perfsink_kit_worker_fail(p->writer, err))
		return;
	PLOG(p, PERFSINK_LOG_ERROR, "writing '%s' failed: %s; records after the last complete write are dropped",
	     p->file ? p->file->path : "?", strerror(-err));
	pthread_cond_broadcast(&p->done_cv);
}

/* A batch leaves the pipe without reaching the file.  p->mu held. */
static void pipe_count_drop(struct zs_pipe *p, struct zs_batch *b)
{
	p->pending_in -= b->in_bytes;
	p->st.dropped_bytes += b->in_bytes;
	p->st.dropped_records += b->records;
}

/*
 * Gatherer, without the lock: copy one buffer and release it; the stage's
 * raw and compressed bytes of it make the ratio.
 */
static void gather_feed(struct zs_pipe *p, struct zs_batch *b, struct perfsink_buf *buf,
			int failed)
{
	int z = buf->kind == PERFSINK_BUF_COMPRESSED && !failed && !b->err;

	if (failed || b->err)
		b->records += perfsink_kit_buf_records(buf);
	else
		b->err = zs_batch_feed(b, buf);
	if (z) {
		pthread_mutex_lock(&p->mu);
		p->st.comp_in += buf->raw_len;
		p->st.comp_out += buf->len;
		pthread_mutex_unlock(&p->mu);
	}
	p->host->buf_put(buf);
}

/* Gatherer: take b's buffers as they come until it is closed.  p->mu held. */
static void gather_batch(struct zs_pipe *p, struct zs_batch *b)
{
	struct timespec deadline;

	perfsink_kit_deadline(CLOCK_MONOTONIC, ZS_BATCH_MAX_MS, &deadline);
	for (;;) {
		if (b->taken < b->nr) {
			struct perfsink_buf *buf = b->bufs[b->taken];
			int failed = pipe_err(p);

			b->bufs[b->taken++] = NULL;
			pthread_mutex_unlock(&p->mu);
			gather_feed(p, b, buf, failed);
			pthread_mutex_lock(&p->mu);
		} else if (b->closed) {
			break;
		} else if (pthread_cond_timedwait(&p->work_cv, &p->mu, &deadline) == ETIMEDOUT) {
			b->closed = 1; /* the next push opens a new batch */
		}
	}
	b->state = ZB_DONE;
	pthread_cond_broadcast(&p->done_cv);
}

static void *gather_main(void *arg)
{
	struct zs_pipe *p = arg;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct zs_batch *b;

		while (!p->stop && !p->next_claim)
			pthread_cond_wait(&p->work_cv, &p->mu);
		if (!p->next_claim)
			break;
		b = p->next_claim;
		p->next_claim = b->next;
		b->claimed = 1;
		b->state = ZB_BUSY;
		gather_batch(p, b);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Aio thread: the batch's bytes are on file (err 0) or lost. */
static void pipe_written(void *ctx, void *arg, int err)
{
	struct zs_pipe *p = ctx;
	struct zs_batch *b = arg;

	pthread_mutex_lock(&p->mu);
	p->writing--;
	if (err) {
		/* Its loss is counted by the file (zs_file_finish), with what follows it. */
		pipe_fail(p, err);
		p->pending_in -= b->in_bytes;
	} else {
		p->pending_in -= b->in_bytes;
		p->st.bytes_out += b->out.len;
	}
	pthread_cond_broadcast(&p->done_cv);
	pthread_mutex_unlock(&p->mu);
	zs_batch_free(b);
}

/* Writer: hand b to the file.  Called with p->mu held; drops it inside. */
static void writer_append(struct zs_pipe *p, struct zs_batch *b)
{
	struct zs_file *f = p->file;
	int r;

	p->writing++;
	p->appending = 1;
	pthread_mutex_unlock(&p->mu);
	r = zs_file_append(f, b->out.data, b->out.len, b->in_bytes, b->records, pipe_written, b);
	pthread_mutex_lock(&p->mu);
	p->appending = 0;
	if (r) {
		p->writing--;
		pipe_fail(p, r);
		pipe_count_drop(p, b);
		zs_batch_free(b);
	}
}

/*
 * The writer's job for b, queued when b was opened: so batches are written
 * in that order.  Waits until the gatherer is done with b.
 */
static int writer_batch(struct perfsink_kit_job *job, int err)
{
	struct zs_batch *b = (struct zs_batch *)job;
	struct zs_pipe *p = job->ctx;

	(void)err; /* read again below: the aio thread may have set it since */
	pthread_mutex_lock(&p->mu);
	while (b->state != ZB_DONE)
		pthread_cond_wait(&p->done_cv, &p->mu);
	p->head = b->next;
	if (!p->head)
		p->tail = NULL;
	pipe_fail(p, b->err);
	if (pipe_err(p)) {
		pipe_count_drop(p, b);
		zs_batch_free(b);
	} else {
		writer_append(p, b);
	}
	pthread_cond_broadcast(&p->done_cv);
	pthread_mutex_unlock(&p->mu);
	return 0;
}

int zs_pipe_create(const struct zs_pipe_config *cfg, struct zs_pipe **out)
{
	struct zs_pipe *p = calloc(1, sizeof(*p));
	pthread_condattr_t mono;
	int r;

	if (!p)
		return -ENOMEM;
	p->cfg = *cfg;
	p->host = cfg->inst->host;
	pthread_mutex_init(&p->mu, NULL);
	pthread_condattr_init(&mono);
	pthread_condattr_setclock(&mono, CLOCK_MONOTONIC);
	pthread_cond_init(&p->work_cv, &mono); /* gather_batch's deadline */
	pthread_condattr_destroy(&mono);
	pthread_cond_init(&p->done_cv, NULL);
	/* The writer first: the gatherer reads its error. */
	r = perfsink_kit_worker_new(&(struct perfsink_kit_worker_conf){ .host = p->host }, &p->writer);
	if (!r && !(r = -pthread_create(&p->gatherer, NULL, gather_main, p)))
		p->gathering = 1;
	if (r) {
		zs_pipe_destroy(p);
		return r;
	}
	*out = p;
	return 0;
}

void zs_pipe_set_file(struct zs_pipe *p, struct zs_file *f)
{
	pthread_mutex_lock(&p->mu);
	p->file = f;
	pthread_mutex_unlock(&p->mu);
}

/* The batch buffers go to: the tail while it gathers, else a new one. */
static struct zs_batch *pipe_open_batch(struct zs_pipe *p)
{
	struct zs_batch *b = p->tail;

	if (b && !b->closed)
		return b;
	b = zs_batch_new();
	if (!b)
		return NULL;
	b->write.run = writer_batch;
	b->write.ctx = p;
	/* Refused only with the sticky error, which push() checked under p->mu. */
	if (perfsink_kit_worker_push(p->writer, &b->write) < 0) {
		zs_batch_free(b);
		return NULL;
	}
	if (p->tail)
		p->tail->next = b;
	else
		p->head = b;
	p->tail = b;
	if (!p->next_claim)
		p->next_claim = b;
	return b;
}

int zs_pipe_push(struct zs_pipe *p, struct perfsink_buf *buf)
{
	struct zs_batch *b;
	int err;

	pthread_mutex_lock(&p->mu);
	while (!pipe_err(p) && p->pending_in && p->pending_in + perfsink_buf_raw_len(buf) > p->cfg.max_pending) {
		/* What waits must be able to finish: close the gathering batch. */
		if (p->tail && !p->tail->closed) {
			p->tail->closed = 1;
			pthread_cond_broadcast(&p->work_cv);
		}
		pthread_cond_wait(&p->done_cv, &p->mu);
	}
	err = pipe_err(p);
	b = err ? NULL : pipe_open_batch(p);
	if (!err && (!b || zs_batch_add(b, buf) < 0))
		err = -ENOMEM;
	if (!err) {
		p->host->buf_get(buf);
		p->pending_in += perfsink_buf_raw_len(buf);
		if (b->in_bytes >= p->cfg.min_batch)
			b->closed = 1;
		pthread_cond_broadcast(&p->work_cv);
	}
	pthread_mutex_unlock(&p->mu);
	return err;
}

int zs_pipe_wait_idle(struct zs_pipe *p)
{
	pthread_mutex_lock(&p->mu);
	if (p->tail && !p->tail->closed) {
		p->tail->closed = 1;
		pthread_cond_broadcast(&p->work_cv);
	}
	pthread_mutex_unlock(&p->mu);
	perfsink_kit_worker_barrier(p->writer); /* every batch handed to the file */
	pthread_mutex_lock(&p->mu);
	while (p->writing || p->appending)
		pthread_cond_wait(&p->done_cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
	return pipe_err(p);
}

int zs_pipe_error(struct zs_pipe *p)
{
	return pipe_err(p);
}

void zs_pipe_stats(struct zs_pipe *p, struct zs_pipe_stats *out)
{
	pthread_mutex_lock(&p->mu);
	*out = p->st;
	pthread_mutex_unlock(&p->mu);
}

void zs_pipe_destroy(struct zs_pipe *p)
{
	if (!p)
		return;
	if (p->writer && p->gathering)
		zs_pipe_wait_idle(p);
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_broadcast(&p->work_cv);
	pthread_cond_broadcast(&p->done_cv);
	pthread_mutex_unlock(&p->mu);
	if (p->gathering)
		pthread_join(p->gatherer, NULL);
	perfsink_kit_worker_free(p->writer);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->work_cv);
	pthread_cond_destroy(&p->done_cv);
	free(p);
}
