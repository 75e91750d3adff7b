/*
 * perf record's tracking event: with -D (delayed enabling) or a CPU target
 * (-a, -C), perf 6.1 carries the side-band records (mmap, comm, task, ...)
 * on an extra "dummy:HG" software event instead of the first event, so
 * they flow while the sampling events are off.  perfsink does the same,
 * attr for attr.  Engine thread.
 */
#ifndef PS_EVLIST_TRACK_H
#define PS_EVLIST_TRACK_H
#include <stdbool.h>

struct ps_evlist;
struct record_opts;

/* Whether this recording needs the tracking event. */
bool evlist_track_wanted(const struct ps_evlist *evl, const struct record_opts *o);
/* Append the dummy event (attr set by evlist_track_finish).  0 or -ENOMEM. */
int evlist_track_add(struct ps_evlist *evl);
/*
 * After every attr is set up: move the side-band bits of the first event
 * to the dummy and give it perf's attr; with -D, the sampling events no
 * longer start at exec (the engine enables them after the delay).
 */
void evlist_track_finish(struct ps_evlist *evl, const struct record_opts *o);
/* PERF_EVENT_IOC_ENABLE on the sampling events only (tracking: false) or the tracking one. */
int evlist_enable_kind(struct ps_evlist *evl, bool tracking);
/* PERF_EVENT_IOC_DISABLE, the same way. */
int evlist_disable_kind(struct ps_evlist *evl, bool tracking);

#endif
