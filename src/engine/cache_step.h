/*
 * The build-id cache step of a recording: perf record adds the binaries it
 * recorded to perf's build-id cache by default (-N and -B do not); here
 * the drainer's DSO set hands each DSO, as its MMAP first goes by, to the
 * cache worker (bid_worker.h), and the session waits for that worker at
 * most CACHE_WAIT_MS after the recording stopped.  Engine thread only.
 */
#ifndef PS_CACHE_STEP_H
#define PS_CACHE_STEP_H
#include <stdint.h>

struct record_opts;
struct dso_set;
struct bid_worker;

#define CACHE_WAIT_MS 100

/* Start the worker and hook it to dsos; NULL with -N, -B or when it cannot start (warned). */
struct bid_worker *cache_step_begin(const struct record_opts *o, struct dso_set *dsos);
/*
 * Before the sinks get the BUILD_IDs at the end: wait until w (NULL:
 * nothing to do) has cached the files queued so far, or deadline_ns
 * (CLOCK_MONOTONIC).  A sink's symbol shipping or archive reads a file of
 * another mount namespace (a container) from the cache only.
 */
void cache_step_settle(struct bid_worker *w, int64_t deadline_ns);
/*
 * Unhook w (NULL: nothing to do) from dsos, wait until it is done or
 * deadline_ns (CLOCK_MONOTONIC), and say what it did not add in time.
 * deadline_ns 0: a failed run, no waiting and nothing said.  w is gone after.
 */
void cache_step_end(struct bid_worker *w, struct dso_set *dsos, int64_t deadline_ns);

#endif
