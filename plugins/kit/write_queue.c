/* The ordering core of the asynchronous append writers (write_queue.h). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include "write_queue.h"

static void free_slots(struct write_queue *q)
{
	free(q->slots);
	free(q->by_seq);
	free(q->rel);
}

int wq_init(struct write_queue *q, const struct perfsink_kit_wq_config *cfg)
{
	if (cfg->slots < 1 || !cfg->submit)
		return -EINVAL;
	*q = (struct write_queue){ .n = cfg->slots, .cfg = *cfg,
				   .offset = cfg->offset, .committed = cfg->offset };
	q->slots = calloc(q->n, sizeof(*q->slots));
	q->by_seq = calloc(q->n, sizeof(*q->by_seq));
	q->rel = calloc(q->n, sizeof(*q->rel));
	if (!q->slots || !q->by_seq || !q->rel) {
		free_slots(q);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < q->n; i++)
		q->slots[i].io.index = i;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->cv_free, NULL);
	pthread_cond_init(&q->cv_work, NULL);
	return 0;
}

void wq_fini(struct write_queue *q)
{
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->cv_free);
	pthread_cond_destroy(&q->cv_work);
	free_slots(q);
}

/* The lowest free slot (the AIO backend's aio_reqprio follows its index); NULL when failed. */
static struct wq_slot *wait_free_slot(struct write_queue *q)
{
	bool waited = false;
	for (;;) {
		if (q->err)
			return NULL;
		for (unsigned i = 0; i < q->n; i++)
			if (q->slots[i].state == WQ_FREE)
				return &q->slots[i];
		if (!waited)
			q->st.waits++;
		waited = true;
		pthread_cond_wait(&q->cv_free, &q->lock);
	}
}

/* Lock held; 0 or the submit error (also made sticky). */
static int submit_new(struct write_queue *q, struct wq_slot *s)
{
	int r;
	while ((r = q->cfg.submit(q->cfg.submit_ctx, &s->io)) == WQ_AGAIN) {
		/* The backend could not queue it (threads or memory): let completions run. */
		q->st.retries++;
		pthread_mutex_unlock(&q->lock);
		usleep(200);
		pthread_mutex_lock(&q->lock);
	}
	if (r < 0 && !q->err)
		q->err = r;
	return r;
}

int wq_write(struct write_queue *q, const void *data, size_t len,
	     perfsink_kit_aiow_done_fn done, void *arg)
{
	if (len == 0) {
		if (done)
			done(q->cfg.done_ctx, arg, 0);
		return 0;
	}
	pthread_mutex_lock(&q->lock);
	struct wq_slot *s = wait_free_slot(q);
	if (!s) {
		int err = q->err;
		pthread_mutex_unlock(&q->lock);
		return err;
	}
	/* Still WQ_FREE while submit runs: the completion thread leaves it alone. */
	*s = (struct wq_slot){ .io = { .data = data, .len = len, .off = q->offset,
				       .seq = q->next_seq, .index = s->io.index },
			       .fn = done, .arg = arg };
	int r = submit_new(q, s);
	if (r < 0) {
		pthread_mutex_unlock(&q->lock);
		return r;
	}
	s->state = WQ_BUSY;
	q->by_seq[s->io.seq % q->n] = s;
	q->offset += len;
	q->next_seq++;
	q->used++;
	pthread_cond_signal(&q->cv_work);
	pthread_mutex_unlock(&q->lock);
	return 0;
}

void wq_finish(struct wq_slot *s, int err)
{
	s->err = err;
	s->state = WQ_DONE;
}

/*
 * The seqs not yet released are the n or fewer from commit_seq on, so
 * seq % n tells them apart.
 */
struct wq_slot *wq_slot_of_seq(struct write_queue *q, uint64_t seq)
{
	struct wq_slot *s = q->by_seq[seq % q->n];
	return s && s->state != WQ_FREE && s->io.seq == seq ? s : NULL;
}

/* Finished slots in submission order into q->rel; how many. */
static unsigned release_in_order(struct write_queue *q, bool *moved)
{
	unsigned k = 0;
	struct wq_slot *s;
	while ((s = wq_slot_of_seq(q, q->commit_seq)) && s->state == WQ_DONE) {
		if (s->err && !q->err)
			q->err = s->err;
		if (!q->err) {
			q->committed = s->io.off + s->io.len;
			*moved = true;
		}
		q->rel[k++] = (struct wq_released){ s->fn, s->arg, s->err ? s->err : q->err };
		s->state = WQ_FREE;
		q->used--;
		q->commit_seq++;
	}
	if (k)
		pthread_cond_broadcast(&q->cv_free);
	return k;
}

void wq_release(struct write_queue *q)
{
	bool moved = false;
	unsigned nrel = release_in_order(q, &moved);
	uint64_t committed = q->committed;
	unsigned cb = nrel + (moved ? 1 : 0);
	q->in_callbacks += cb;
	pthread_mutex_unlock(&q->lock);
	for (unsigned i = 0; i < nrel; i++)
		if (q->rel[i].fn)
			q->rel[i].fn(q->cfg.done_ctx, q->rel[i].arg, q->rel[i].err);
	if (moved && q->cfg.on_commit)
		q->cfg.on_commit(q->cfg.commit_arg, committed);
	pthread_mutex_lock(&q->lock);
	/* Only now is nothing of these writes left: wq_drain waits for it. */
	q->in_callbacks -= cb;
	if (cb)
		pthread_cond_broadcast(&q->cv_free);
}

int wq_drain(struct write_queue *q)
{
	pthread_mutex_lock(&q->lock);
	while (q->used || q->in_callbacks)
		pthread_cond_wait(&q->cv_free, &q->lock);
	int err = q->err;
	pthread_mutex_unlock(&q->lock);
	return err;
}

static uint64_t read_locked(struct write_queue *q, const uint64_t *v)
{
	pthread_mutex_lock(&q->lock);
	uint64_t x = *v;
	pthread_mutex_unlock(&q->lock);
	return x;
}

uint64_t wq_offset(struct write_queue *q) { return read_locked(q, &q->offset); }
uint64_t wq_committed(struct write_queue *q) { return read_locked(q, &q->committed); }

int wq_error(struct write_queue *q)
{
	pthread_mutex_lock(&q->lock);
	int err = q->err;
	pthread_mutex_unlock(&q->lock);
	return err;
}

void wq_stats(struct write_queue *q, struct perfsink_kit_aiow_stats *out)
{
	pthread_mutex_lock(&q->lock);
	*out = q->st;
	pthread_mutex_unlock(&q->lock);
}
