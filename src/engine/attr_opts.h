/*
 * perf record's sample flags (struct perf_flags, config/opts.h) applied to
 * one attr, as perf's evsel__config does: after the event's own sampling
 * set-up, before perf_event_open.  Pure; engine thread.
 */
#ifndef PS_ATTR_OPTS_H
#define PS_ATTR_OPTS_H
#include <linux/perf_event.h>
#include <stdbool.h>

struct record_opts;

/* first: the event that carries the side-band records (mmap, comm, ...). */
void attr_apply_perf_flags(struct perf_event_attr *a, const struct record_opts *o, bool first);

#endif
