/* The build-id cache worker: see bid_worker.h. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "engine/bid_worker.h"
#include "probe/buildid_cache.h"

#define KALLSYMS_DELAY_MS 300

struct bid_item {
	struct bid_item *next;
	char name[];
};

struct bid_worker {
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;          /* work queued, input ended, or an item done */
	struct bid_item *head, *tail;
	/*
	 * The kernel's entry copies /proc/kallsyms (megabytes the kernel
	 * formats as they are read, 50 ms of CPU or more): it waits until no
	 * file, mostly a mere hard link, is queued and KALLSYMS_DELAY_MS have
	 * passed (or the input ended), so that in a short run the workload's
	 * files, which the kallsyms copy would hold up, are cached first.
	 */
	struct bid_item *kallsyms;
	struct timespec kallsyms_at; /* CLOCK_MONOTONIC: not before this */
	bool busy;                  /* the thread holds an item */
	bool ended;                 /* no more input */
	bool abandoned;             /* the engine stopped waiting: the thread frees w */
	struct bid_worker_report rep;
	char *dir;
};

static void worker_free(struct bid_worker *w)
{
	free(w->kallsyms);
	while (w->head) {
		struct bid_item *it = w->head;
		w->head = it->next;
		free(it);
	}
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	free(w->dir);
	free(w);
}

static void count(struct bid_worker_report *r, int res)
{
	if (res > 0)
		r->added++;
	else if (res == 0)
		r->present++;
	else if (res == -ENODATA || res == -ENOEXEC || res == -ENOENT || res == -EACCES ||
		 res == -EISDIR)
		r->no_id++;
	else
		r->failed++;
}

static void *worker_main(void *arg)
{
	struct bid_worker *w = arg;
	/* Inherited SCHED_FIFO (-r) is for the drain loop, not for file copies. */
	struct sched_param sp = { 0 };

	pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->head && !w->ended && !w->abandoned) {
			if (!w->kallsyms)
				pthread_cond_wait(&w->cv, &w->mu);
			else if (pthread_cond_clockwait(&w->cv, &w->mu, CLOCK_MONOTONIC,
							&w->kallsyms_at) == ETIMEDOUT)
				break;
		}
		if (w->abandoned || (!w->head && !w->kallsyms))
			break;
		struct bid_item *it = w->head;
		if (it) {
			w->head = it->next;
			if (!w->head)
				w->tail = NULL;
		} else {
			it = w->kallsyms;
			w->kallsyms = NULL;
		}
		w->busy = true;
		pthread_mutex_unlock(&w->mu);
		int res = buildid_cache_add(w->dir, it->name);
		free(it);
		pthread_mutex_lock(&w->mu);
		w->busy = false;
		count(&w->rep, res);
		pthread_cond_broadcast(&w->cv);
	}
	bool mine = w->abandoned;
	pthread_mutex_unlock(&w->mu);
	if (mine)
		worker_free(w);
	return NULL;
}

int bid_worker_start(struct bid_worker **out, const char *dir)
{
	struct bid_worker *w = calloc(1, sizeof(*w));
	int r;

	if (!w)
		return -ENOMEM;
	w->dir = strdup(dir);
	clock_gettime(CLOCK_MONOTONIC, &w->kallsyms_at);
	w->kallsyms_at.tv_nsec += KALLSYMS_DELAY_MS * 1000000L;
	w->kallsyms_at.tv_sec += w->kallsyms_at.tv_nsec / 1000000000L;
	w->kallsyms_at.tv_nsec %= 1000000000L;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	if (!w->dir) {
		worker_free(w);
		return -ENOMEM;
	}
	r = pthread_create(&w->tid, NULL, worker_main, w);
	if (r) {
		worker_free(w);
		return -r;
	}
	*out = w;
	return 0;
}

void bid_worker_push(struct bid_worker *w, const char *name)
{
	size_t n = strlen(name) + 1;
	struct bid_item *it = malloc(sizeof(*it) + n);

	pthread_mutex_lock(&w->mu);
	w->rep.seen++;
	if (!it) {
		w->rep.failed++;
	} else if (!strcmp(name, "[kernel.kallsyms]") && !w->kallsyms) {
		memcpy(it->name, name, n);
		w->kallsyms = it;
		pthread_cond_signal(&w->cv);
	} else {
		memcpy(it->name, name, n);
		it->next = NULL;
		if (w->tail)
			w->tail->next = it;
		else
			w->head = it;
		w->tail = it;
		pthread_cond_signal(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
}

void bid_worker_finish(struct bid_worker *w, int64_t deadline_ns, struct bid_worker_report *r)
{
	struct timespec ts = { (time_t)(deadline_ns / 1000000000), (long)(deadline_ns % 1000000000) };
	bool done;

	pthread_mutex_lock(&w->mu);
	w->ended = true;
	pthread_cond_broadcast(&w->cv);
	while ((w->head || w->kallsyms || w->busy) &&
	       pthread_cond_clockwait(&w->cv, &w->mu, CLOCK_MONOTONIC, &ts) != ETIMEDOUT)
		;
	done = !w->head && !w->kallsyms && !w->busy;
	*r = w->rep;
	if (!done) {
		for (struct bid_item *it = w->head; it; it = it->next)
			r->not_done++;
		r->not_done += w->busy + (w->kallsyms != NULL);
		w->abandoned = true;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	if (done) {
		pthread_join(w->tid, NULL);
		worker_free(w);
	} else {
		pthread_detach(w->tid);
	}
}
