/* The build-id cache worker: see bid_worker.h. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include "engine/bid_worker.h"
#include "probe/buildid.h"
#include "probe/buildid_cache.h"
#include "probe/dso_set.h"
#include "probe/map_file.h"

#define KALLSYMS_DELAY_MS 300
/*
 * Open mapped files held by the queue at most: past that, a file is
 * queued by how to open it again (its mapping, else its name, checked to
 * be the very file: map_file.h), opened when its turn comes (a burst of
 * processes starting must not run us out of descriptors).
 */
#define QUEUED_FDS_MAX 64

struct bid_item {
	struct bid_item *next;
	int fd;            /* the file its process mapped, or -1 */
	bool file;         /* a file (fd, or ref to open it again), not "[kernel.kallsyms]"/"[vdso]" */
	struct map_ref ref; /* to open it again: exact identity; ref.name is name */
	uint8_t id[BUILDID_MAX];
	size_t id_len;     /* the build-id it was mapped with; 0: unknown */
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
	unsigned queued_fds;        /* items of head..tail holding an fd */
	bool busy;                  /* the thread holds an item */
	bool busy_file;             /* ... and it is a file, not the kernel's entry */
	bool ended;                 /* no more input */
	bool abandoned;             /* the engine stopped waiting: the thread frees w */
	struct bid_worker_report rep;
	int dirfd;                  /* the cache, checked (buildid_cache_open) */
	char *dir;                  /* its path, for messages */
};

static void item_free(struct bid_item *it)
{
	if (it && it->fd >= 0)
		close(it->fd);
	free(it);
}

static void worker_free(struct bid_worker *w)
{
	item_free(w->kallsyms);
	while (w->head) {
		struct bid_item *it = w->head;
		w->head = it->next;
		item_free(it);
	}
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	if (w->dirfd >= 0)
		close(w->dirfd);
	free(w->dir);
	free(w);
}

static void count(struct bid_worker_report *r, int res)
{
	if (res > 0)
		r->added++;
	else if (res == 0)
		r->present++;
	else if (res == -ESTALE)
		r->changed++;
	else if (res == -ENODATA || res == -ENOEXEC || res == -ENOENT || res == -EACCES ||
		 res == -EISDIR)
		r->no_id++;
	else
		r->failed++;
}

/* One DSO into the cache: the file its process mapped, or the kernel's entry. */
static int add_item(int dirfd, struct bid_item *it)
{
	if (it->file && it->fd < 0) {
		it->ref.name = it->name;
		it->fd = map_file_open(&it->ref);
		if (it->fd < 0)
			return it->fd == -ESTALE ? -ESTALE : -ESRCH; /* changed, or gone with its process */
	}
	if (it->file)
		return buildid_cache_add_fd(dirfd, it->name, it->fd, it->id, it->id_len);
	return buildid_cache_add(dirfd, it->name);
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
		w->busy_file = it != NULL;
		if (it) {
			w->head = it->next;
			if (!w->head)
				w->tail = NULL;
		} else {
			it = w->kallsyms;
			w->kallsyms = NULL;
		}
		w->queued_fds -= it->fd >= 0;
		w->busy = true;
		pthread_mutex_unlock(&w->mu);
		int res = add_item(w->dirfd, it);
		item_free(it);
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

int bid_worker_start(struct bid_worker **out, int dirfd, const char *dir)
{
	struct bid_worker *w = calloc(1, sizeof(*w));
	int r;

	if (!w) {
		close(dirfd);
		return -ENOMEM;
	}
	w->dirfd = dirfd;
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

void bid_worker_push(struct bid_worker *w, const struct dso_seen *seen)
{
	bool file = seen->ref != NULL || seen->fd >= 0;
	size_t n = strlen(seen->name) + 1;
	struct bid_item *it = malloc(sizeof(*it) + n);

	pthread_mutex_lock(&w->mu);
	w->rep.seen++;
	if (!it) {
		w->rep.failed++;
		if (seen->fd >= 0)
			close(seen->fd);
		pthread_mutex_unlock(&w->mu);
		return;
	}
	memcpy(it->name, seen->name, n);
	it->fd = seen->fd;
	it->file = file;
	it->id_len = file ? seen->id_len : 0;
	memcpy(it->id, seen->id, it->id_len);
	if (file) {
		it->ref = seen->ref ? *seen->ref : (struct map_ref){ .exact = false };
		it->ref.name = it->name;
		/* Without a ref (a kernel module) the fd is all there is: kept. */
		if (seen->ref && it->fd >= 0 && w->queued_fds >= QUEUED_FDS_MAX) {
			close(it->fd);
			it->fd = -1;
		}
		w->queued_fds += it->fd >= 0;
	}
	if (!strcmp(it->name, "[kernel.kallsyms]") && !w->kallsyms) {
		w->kallsyms = it;
	} else {
		it->next = NULL;
		if (w->tail)
			w->tail->next = it;
		else
			w->head = it;
		w->tail = it;
	}
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

const char *bid_worker_dir(const struct bid_worker *w)
{
	return w->dir;
}

static struct timespec timespec_of(int64_t ns)
{
	return (struct timespec){ (time_t)(ns / 1000000000), (long)(ns % 1000000000) };
}

void bid_worker_settle(struct bid_worker *w, int64_t deadline_ns)
{
	struct timespec ts = timespec_of(deadline_ns);

	pthread_mutex_lock(&w->mu);
	while ((w->head || (w->busy && w->busy_file)) &&
	       pthread_cond_clockwait(&w->cv, &w->mu, CLOCK_MONOTONIC, &ts) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&w->mu);
}

void bid_worker_finish(struct bid_worker *w, int64_t deadline_ns, struct bid_worker_report *r)
{
	struct timespec ts = timespec_of(deadline_ns);
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
