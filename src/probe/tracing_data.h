/*
 * Tracepoints through tracefs (/sys/kernel/tracing, else
 * /sys/kernel/debug/tracing) and perf's TRACING_DATA blob, which perf
 * needs to decode tracepoint samples.
 */
#ifndef PS_TRACING_DATA_H
#define PS_TRACING_DATA_H
#include <stdint.h>
#include "base/bytes.h"

/* Tracepoint id of "sys:name", or a negative errno (-ENOENT: no such event). */
int64_t tracefs_event_id(const char *sys, const char *name);
/* The tracepoint whose id is id ("sys", "name", malloc'd), found by reading
 * every events/SYS/NAME/id of tracefs.  0, -ENOENT (no such id, or no
 * tracefs) or -ENOMEM. */
int tracefs_event_by_id(uint64_t id, char **sys, char **name);
/* Root of tracefs, or NULL when it is not mounted and cannot be mounted
 * (mounting needs CAP_SYS_ADMIN, as for perf). */
const char *tracefs_root(void);
/* perf's trace data ("\x17\x08Dtracing" 0.6) for these events into out. */
int tracing_data_build(const char *const *sys, const char *const *name, unsigned n,
		       struct bytes *out);

#endif
