/*
 * Tracepoints matching perf's globs (sched:sched_*, *:sys_enter_?read) and
 * PMU types, read from tracefs and sysfs.
 */
#ifndef PS_TRACEFS_GLOB_H
#define PS_TRACEFS_GLOB_H
#include <stdint.h>

/*
 * Call fn for every tracepoint SYS:NAME whose system matches sys_glob and
 * name matches name_glob (fnmatch), in tracefs directory order (perf's
 * order).  Stops at fn's first non-zero return and returns it; else the
 * number of matches (0: none), or -ENOENT without tracefs.
 */
int tracefs_glob(const char *sys_glob, const char *name_glob,
		 int (*fn)(void *arg, const char *sys, const char *name), void *arg);
/* The perf_event_attr type of PMU name (/sys/bus/event_source/devices/NAME/type),
 * or -ENOENT when there is no such PMU. */
int64_t pmu_type(const char *name);

#endif
