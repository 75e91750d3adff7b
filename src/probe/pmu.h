/*
 * What this machine's kernel offers beyond software events, for the
 * reasons perfsink gives when it refuses a perf record option.  Each
 * returns true when present and fills what (a short phrase naming what was
 * found or looked for).  Reads sysfs and /proc only; any thread.
 */
#ifndef PS_PROBE_PMU_H
#define PS_PROBE_PMU_H
#include <stdbool.h>
#include <stddef.h>

/* A core PMU (PERF_TYPE_RAW in /sys/bus/event_source/devices). */
bool pmu_core_present(char *what, size_t len);
/* A PMU with an AUX area: intel_pt, intel_bts, cs_etm or arm_spe*. */
bool pmu_aux_present(char *what, size_t len);
/* The perf_event cgroup controller (cgroup v2, or v1 perf_event). */
bool cgroup_perf_event_present(char *what, size_t len);

#endif
