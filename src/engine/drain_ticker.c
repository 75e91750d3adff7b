/* The status line while a sink drains; see drain_ticker.h. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "engine/drain_ticker.h"
#include "engine/now.h"

struct drain_ticker {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;            /* CLOCK_MONOTONIC */
	bool stop;                    /* under mu */
	const struct record_observer *obs;
	struct record_report r;       /* sinks points at the copy below */
	struct record_sink_report *sinks;
	int64_t stop_ns;
	struct sink_inst *si;         /* draining; its stats read only with ABI 1.7 */
	unsigned i;
};

static void tick(struct drain_ticker *t)
{
	const struct perfsink_sink_ops *ops = t->si->ops;

	if (ops->abi_minor >= 7 && ops->stats) {
		memset(&t->sinks[t->i].st, 0, sizeof(t->sinks[t->i].st));
		ops->stats(t->si->ctx, &t->sinks[t->i].st);
		t->sinks[t->i].written = t->sinks[t->i].st.bytes_out;
	}
	t->r.drain_secs = (double)(engine_now_ns(CLOCK_MONOTONIC) - t->stop_ns) / 1e9;
	t->obs->progress(&t->r, t->obs->arg);
}

static void *ticker_main(void *arg)
{
	struct drain_ticker *t = arg;
	unsigned every = t->obs->progress_ms ? t->obs->progress_ms : 1000;
	struct timespec at;

	clock_gettime(CLOCK_MONOTONIC, &at);
	pthread_mutex_lock(&t->mu);
	for (;;) {
		at.tv_sec += every / 1000;
		at.tv_nsec += (long)(every % 1000) * 1000000L;
		if (at.tv_nsec >= 1000000000L) {
			at.tv_sec++;
			at.tv_nsec -= 1000000000L;
		}
		while (!t->stop && pthread_cond_timedwait(&t->cv, &t->mu, &at) != ETIMEDOUT)
			;
		if (t->stop)
			break;
		pthread_mutex_unlock(&t->mu);
		tick(t);
		pthread_mutex_lock(&t->mu);
	}
	pthread_mutex_unlock(&t->mu);
	return NULL;
}

static void ticker_free(struct drain_ticker *t)
{
	pthread_cond_destroy(&t->cv);
	pthread_mutex_destroy(&t->mu);
	free(t->sinks);
	free(t);
}

struct drain_ticker *drain_ticker_start(const struct record_observer *obs,
					const struct record_report *frozen, int64_t stop_ns,
					struct sink_inst *si, unsigned i)
{
	struct drain_ticker *t;
	pthread_condattr_t ca;

	if (!obs || !obs->progress || i >= frozen->nr_sinks || !(t = calloc(1, sizeof(*t))))
		return NULL;
	t->sinks = calloc(frozen->nr_sinks, sizeof(*t->sinks));
	if (!t->sinks) {
		free(t);
		return NULL;
	}
	memcpy(t->sinks, frozen->sinks, frozen->nr_sinks * sizeof(*t->sinks));
	for (unsigned k = 0; k < frozen->nr_sinks; k++) {
		t->sinks[k].outputs = NULL;
		t->sinks[k].nr_outputs = 0;
	}
	t->r = *frozen;
	t->r.sinks = t->sinks;
	t->r.rings = NULL;
	t->obs = obs;
	t->stop_ns = stop_ns;
	t->si = si;
	t->i = i;
	pthread_mutex_init(&t->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&t->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&t->thread, NULL, ticker_main, t)) {
		ticker_free(t);
		return NULL;
	}
	return t;
}

void drain_ticker_stop(struct drain_ticker *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->mu);
	t->stop = true;
	pthread_cond_signal(&t->cv);
	pthread_mutex_unlock(&t->mu);
	pthread_join(t->thread, NULL);
	ticker_free(t);
}
