/* zstage: see zstage.h. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <perfsink/kit.h>
#include "engine/zstage.h"

#define ZSTAGE_MAX_THREADS 16

enum zitem_state { ZI_QUEUED = 0, ZI_BUSY, ZI_DONE };

struct zitem {
	struct zitem *next;
	struct psbuf *buf;    /* raw while queued or busy, the output once done */
	enum zitem_state state;
};

struct zworker {
	struct zstage *z;
	pthread_t th;
	struct perfsink_kit_zframe frame;
	struct perfsink_kit_buf out;
};

struct zstage {
	pthread_mutex_t mu;
	pthread_cond_t work_cv, done_cv;
	struct zitem *head, *tail, *next_claim;
	bool stop;
	uint32_t chunk;
	unsigned nr_workers;
	struct zworker workers[ZSTAGE_MAX_THREADS];
	struct zstage_stats st;
};

/* The records task_data keeps: those a sink tracks processes and files by. */
static bool is_task_record(uint32_t type)
{
	return type == PERF_RECORD_COMM || type == PERF_RECORD_FORK || type == PERF_RECORD_MMAP ||
	       type == PERF_RECORD_MMAP2;
}

/* Append data's task records to out (the kit's record walk); 0 or -ENOMEM. */
static int task_append(struct perfsink_kit_buf *out, const uint8_t *data, size_t len)
{
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec r;

	perfsink_kit_rec_iter_init(&it, data, len);
	while (perfsink_kit_rec_next(&it, &r))
		if (is_task_record(r.type) && perfsink_kit_buf_append(out, r.p, r.size) < 0)
			return -ENOMEM;
	return 0;
}

/*
 * The output of raw: its records compressed (or raw on failure), then its
 * task records, made in the worker's buffer and copied once.
 */
static struct psbuf *compress_one(struct zworker *w, const struct psbuf *raw, bool *kept_raw)
{
	const struct perfsink_buf *in = &raw->pub;
	size_t tail = in->tail_round <= in->len ? in->tail_round : 0;
	size_t len;
	struct psbuf *b;

	perfsink_kit_buf_reset(&w->out);
	*kept_raw = perfsink_kit_zframe_records(&w->frame, &w->out, in->data, in->len, tail,
						w->z->chunk) < 0;
	if (*kept_raw) {
		perfsink_kit_buf_reset(&w->out);
		if (perfsink_kit_buf_append(&w->out, in->data, in->len) < 0)
			return NULL;
	}
	len = w->out.len;
	if (in->task_records && task_append(&w->out, in->data, in->len) < 0)
		return NULL;
	if (!(b = heapbuf_new(w->out.len)))
		return NULL;
	memcpy(b->mem, w->out.data, w->out.len);
	b->pub = *in;
	b->pub.data = b->mem;
	b->pub.len = len;
	b->pub.kind = PERFSINK_BUF_COMPRESSED;
	b->pub.raw_len = in->len;
	b->pub.task_data = w->out.len > len ? b->mem + len : NULL;
	b->pub.task_len = (uint32_t)(w->out.len - len);
	b->samples = raw->samples;
	return b;
}

/* The oldest queued item, claimed.  z->mu held. */
static struct zitem *claim(struct zstage *z)
{
	while (z->next_claim && z->next_claim->state != ZI_QUEUED)
		z->next_claim = z->next_claim->next;
	struct zitem *it = z->next_claim;
	if (it) {
		it->state = ZI_BUSY;
		z->next_claim = it->next;
	}
	return it;
}

static void *worker_main(void *arg)
{
	struct zworker *w = arg;
	struct zstage *z = w->z;

	pthread_mutex_lock(&z->mu);
	for (;;) {
		struct zitem *it = claim(z);
		if (!it) {
			if (z->stop)
				break;
			pthread_cond_wait(&z->work_cv, &z->mu);
			continue;
		}
		pthread_mutex_unlock(&z->mu);
		bool kept_raw = false;
		struct psbuf *raw = it->buf, *out = compress_one(w, raw, &kept_raw);
		if (out)
			psbuf_put(&raw->pub);
		else
			out = raw; /* no memory for a copy: the raw buffer itself goes on */
		pthread_mutex_lock(&z->mu);
		it->buf = out;
		it->state = ZI_DONE;
		z->st.comp_in += raw == out ? 0 : out->pub.raw_len;
		z->st.comp_out += raw == out ? 0 : out->pub.len;
		z->st.raw_kept += kept_raw || raw == out;
		pthread_cond_broadcast(&z->done_cv);
	}
	pthread_mutex_unlock(&z->mu);
	return NULL;
}

static void stop_workers(struct zstage *z)
{
	pthread_mutex_lock(&z->mu);
	z->stop = true;
	pthread_cond_broadcast(&z->work_cv);
	pthread_mutex_unlock(&z->mu);
	for (unsigned i = 0; i < z->nr_workers; i++) {
		pthread_join(z->workers[i].th, NULL);
		perfsink_kit_zframe_fini(&z->workers[i].frame);
		perfsink_kit_buf_free(&z->workers[i].out);
	}
	z->nr_workers = 0;
}

int zstage_create(uint32_t level, uint32_t chunk, unsigned threads, struct zstage **out)
{
	struct zstage *z = calloc(1, sizeof(*z));
	int r = 0;

	if (!z)
		return -ENOMEM;
	pthread_mutex_init(&z->mu, NULL);
	pthread_cond_init(&z->work_cv, NULL);
	pthread_cond_init(&z->done_cv, NULL);
	z->chunk = chunk ? chunk : PERFSINK_Z_CHUNK;
	threads = threads < 1 ? 1 : threads > ZSTAGE_MAX_THREADS ? ZSTAGE_MAX_THREADS : threads;
	for (unsigned i = 0; i < threads && !r; i++) {
		struct zworker *w = &z->workers[i];
		w->z = z;
		r = perfsink_kit_zframe_init(&w->frame, (int)level);
		if (r == 0 && (r = -pthread_create(&w->th, NULL, worker_main, w)) == 0)
			z->nr_workers++;
		else
			perfsink_kit_zframe_fini(&w->frame);
	}
	if (r < 0) {
		zstage_destroy(z);
		return r;
	}
	*out = z;
	return 0;
}

int zstage_push(struct zstage *z, struct psbuf *b)
{
	struct zitem *it = calloc(1, sizeof(*it));

	if (!it)
		return -ENOMEM;
	psbuf_get(&b->pub);
	it->buf = b;
	/* Only ring data is compressed: synthesized records stay as they are. */
	it->state = b->pub.kind == PERFSINK_BUF_RING ? ZI_QUEUED : ZI_DONE;
	pthread_mutex_lock(&z->mu);
	if (z->tail)
		z->tail->next = it;
	else
		z->head = it;
	z->tail = it;
	if (!z->next_claim)
		z->next_claim = it;
	z->st.bytes_in += b->pub.len;
	z->st.buffers++;
	if (it->state == ZI_QUEUED)
		pthread_cond_signal(&z->work_cv);
	pthread_mutex_unlock(&z->mu);
	return 0;
}

struct psbuf *zstage_pop(struct zstage *z, bool wait)
{
	struct psbuf *b = NULL;

	pthread_mutex_lock(&z->mu);
	while (wait && z->head && z->head->state != ZI_DONE)
		pthread_cond_wait(&z->done_cv, &z->mu);
	struct zitem *it = z->head;
	if (it && it->state == ZI_DONE) {
		z->head = it->next;
		if (!z->head)
			z->tail = NULL;
		if (z->next_claim == it)
			z->next_claim = it->next;
		b = it->buf;
		free(it);
	}
	pthread_mutex_unlock(&z->mu);
	return b;
}

void zstage_stats(struct zstage *z, struct zstage_stats *out)
{
	pthread_mutex_lock(&z->mu);
	*out = z->st;
	pthread_mutex_unlock(&z->mu);
}

void zstage_destroy(struct zstage *z)
{
	struct psbuf *b;

	if (!z)
		return;
	while ((b = zstage_pop(z, true)))
		psbuf_put(&b->pub);
	stop_workers(z);
	pthread_cond_destroy(&z->work_cv);
	pthread_cond_destroy(&z->done_cv);
	pthread_mutex_destroy(&z->mu);
	free(z);
}
