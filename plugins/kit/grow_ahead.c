/* One fallocate at a time on a helper thread (grow_ahead.h). */
#include <errno.h>
#include <fcntl.h>
#include "grow_ahead.h"

static void grow(struct grow_ahead *g)
{
	g->err = fallocate(g->fd, 0, (off_t)g->from, (off_t)(g->to - g->from)) < 0 ? -errno : 0;
	atomic_store(&g->done, true);
}

static void *grow_thread(void *arg)
{
	grow(arg);
	return NULL;
}

void grow_ahead_start(struct grow_ahead *g, int fd, uint64_t from, uint64_t to)
{
	if (g->running)
		return;
	g->fd = fd;
	g->from = from;
	g->to = to;
	g->err = 0;
	atomic_store(&g->done, false);
	g->running = true;
	g->threaded = pthread_create(&g->th, NULL, grow_thread, g) == 0;
	if (!g->threaded)
		grow(g);
}

bool grow_ahead_busy(struct grow_ahead *g)
{
	return g->running && !atomic_load(&g->done);
}

bool grow_ahead_reap(struct grow_ahead *g, bool wait, uint64_t *to, int *err)
{
	if (!g->running || (!wait && !atomic_load(&g->done)))
		return false;
	if (g->threaded)
		pthread_join(g->th, NULL);
	g->running = false;
	*to = g->to;
	*err = g->err;
	return true;
}
