/*
 * Which samples go into a profile: `--pid`, `--comm` and `--time`, one
 * implementation for perfsink pprof and perfsink flamegraph.  Pure: parse
 * the option values, then ask of each sample.  No allocation.
 */
#ifndef PS_PPROF_FILTER_H
#define PS_PPROF_FILTER_H
#include <stdint.h>

#define PP_FILTER_MAX 64       /* pids, and comms, one filter holds */

struct pp_filter {
	int32_t pid[PP_FILTER_MAX];
	unsigned npid;
	char comm[PP_FILTER_MAX][16];  /* as the kernel keeps it: 15 bytes */
	unsigned ncomm;
	int has_time;
	uint64_t t0, t1;               /* ns of the sample clock, inclusive; t1 0: no end */
};

/* Add "PID[,PID...]" (repeatable).  0, -EINVAL (not a pid), -E2BIG. */
int pp_filter_pids(struct pp_filter *f, const char *list);
/* Add "NAME[,NAME...]"; a name is cut to 15 bytes as comm is.  0, -EINVAL
 * (empty name), -E2BIG. */
int pp_filter_comms(struct pp_filter *f, const char *list);
/* "START,END": seconds of the sample clock as perf script prints them
 * (123.456789), either side may be empty.  0, -EINVAL. */
int pp_filter_time(struct pp_filter *f, const char *spec);
/* Whether a sample of pid, comm (may be NULL), time (0: not recorded)
 * passes: every given filter must hold; a sample with no time fails a
 * time filter. */
int pp_filter_match(const struct pp_filter *f, int32_t pid, const char *comm, uint64_t time);
/* Whether any filter is set. */
int pp_filter_any(const struct pp_filter *f);

#endif
