/*
 * The write queue as kit.h publishes it (perfsink_kit_wq_*, kit 1.7): the
 * same core as the POSIX AIO writer's (write_queue.c), behind an opaque
 * handle so its layout stays out of the ABI.
 */
#include <errno.h>
#include <stdlib.h>
#include <perfsink/kit.h>
#include "write_queue.h"

struct perfsink_kit_wq {
	struct write_queue q;
};

int perfsink_kit_wq_create(const struct perfsink_kit_wq_config *cfg, struct perfsink_kit_wq **out)
{
	struct perfsink_kit_wq *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	int r = wq_init(&w->q, cfg);
	if (r < 0) {
		free(w);
		return r;
	}
	*out = w;
	return 0;
}

void perfsink_kit_wq_destroy(struct perfsink_kit_wq *w)
{
	if (!w)
		return;
	wq_fini(&w->q);
	free(w);
}

int perfsink_kit_wq_write(struct perfsink_kit_wq *w, const void *data, size_t len,
			  perfsink_kit_aiow_done_fn done, void *arg)
{
	return wq_write(&w->q, data, len, done, arg);
}

int perfsink_kit_wq_drain(struct perfsink_kit_wq *w) { return wq_drain(&w->q); }
uint64_t perfsink_kit_wq_offset(struct perfsink_kit_wq *w) { return wq_offset(&w->q); }
uint64_t perfsink_kit_wq_committed(struct perfsink_kit_wq *w) { return wq_committed(&w->q); }
int perfsink_kit_wq_error(struct perfsink_kit_wq *w) { return wq_error(&w->q); }

void perfsink_kit_wq_stats(struct perfsink_kit_wq *w, struct perfsink_kit_aiow_stats *out)
{
	wq_stats(&w->q, out);
}

void perfsink_kit_wq_lock(struct perfsink_kit_wq *w) { pthread_mutex_lock(&w->q.lock); }
void perfsink_kit_wq_unlock(struct perfsink_kit_wq *w) { pthread_mutex_unlock(&w->q.lock); }

struct perfsink_kit_aiow_stats *perfsink_kit_wq_counters(struct perfsink_kit_wq *w)
{
	return &w->q.st;
}

void perfsink_kit_wq_finish(struct perfsink_kit_wq *w, struct perfsink_kit_wq_slot *s, int err)
{
	wq_finish(&w->q.slots[s->index], err);
}

void perfsink_kit_wq_release(struct perfsink_kit_wq *w) { wq_release(&w->q); }

void perfsink_kit_wq_detach(struct perfsink_kit_wq *w, struct perfsink_kit_wq_slot *s,
			    perfsink_kit_aiow_done_fn *fn, void **arg)
{
	struct wq_slot *slot = &w->q.slots[s->index];
	*fn = slot->fn;
	*arg = slot->arg;
	slot->fn = NULL;
}
