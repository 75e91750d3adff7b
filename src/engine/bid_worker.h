/*
 * The build-id cache filled while recording: the engine hands every DSO
 * its records map, as it first sees it, to a worker thread that adds it to
 * perf's cache (probe/buildid_cache.h), so the drain loop never waits for
 * a file copy and the end of the run does no pass of its own.
 *
 * THREADS.  bid_worker_start, _push, _settle and _finish are called from the engine
 * thread; the worker runs buildid_cache_add on its own thread.
 * OWNERSHIP.  The worker copies every name it is given and owns the cache's
 * directory fd from bid_worker_start on and a mapped file's fd from
 * bid_worker_push on.  After
 * bid_worker_finish the caller must forget w: a worker still busy at the
 * deadline is left to end on its own (it frees itself), and a copy it has
 * not finished leaves nothing behind when the process exits.
 */
#ifndef PS_BID_WORKER_H
#define PS_BID_WORKER_H
#include <stdint.h>

struct bid_worker;
struct dso_seen;

/* What the cache got from this run. */
struct bid_worker_report {
	unsigned seen;      /* DSOs handed over */
	unsigned added;     /* new in the cache */
	unsigned present;   /* cached already */
	unsigned no_id;     /* no build-id to file them under (as perf: skipped) */
	unsigned changed;   /* another build-id, or another file, than the one mapped: not cached */
	unsigned failed;    /* could not be linked or copied (or read: its process gone) */
	unsigned not_done;  /* still queued or in progress at the deadline */
};

/*
 * Start the thread that fills the cache open as dirfd (buildid_cache_open;
 * the worker owns it, also on failure) at dir (copied, for messages).
 * 0 or a negative errno.
 */
int bid_worker_start(struct bid_worker **out, int dirfd, const char *dir);
/* The cache's path as given to bid_worker_start.  Until bid_worker_finish. */
const char *bid_worker_dir(const struct bid_worker *w);
/*
 * Queue a DSO ("/path", "[kernel.kallsyms]", "[vdso]") as the DSO set
 * first saw it.  A mapped file (seen->ref; seen->fd, which the worker
 * owns from here, was opened through the mapping) is cached from that fd,
 * under its name as the process saw it, and only with the build-id it was
 * mapped with; past QUEUED_FDS_MAX open files the fd is closed and the
 * file opened again at its turn, by seen->ref's exact identity, never by
 * its name alone.  Never waits on I/O.
 */
void bid_worker_push(struct bid_worker *w, const struct dso_seen *seen);
/*
 * Wait until the files queued so far are in the cache (the kernel's
 * kallsyms copy aside), or CLOCK_MONOTONIC reaches deadline_ns: sinks that
 * read the cache as the recording ends (symbol shipping, archives) find
 * them there.  More may be pushed after.
 */
void bid_worker_settle(struct bid_worker *w, int64_t deadline_ns);
/*
 * No more DSOs: wait until the queue is done or CLOCK_MONOTONIC reaches
 * deadline_ns, whichever is first; fill r; the worker then ends.
 */
void bid_worker_finish(struct bid_worker *w, int64_t deadline_ns, struct bid_worker_report *r);

#endif
