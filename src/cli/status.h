/*
 * The live status line (status.c) and the one name of each sink state the
 * status line, the JSON summary and the stats file use.  Pure: it formats,
 * the caller draws.
 */
#ifndef PS_STATUS_H
#define PS_STATUS_H
#include <stddef.h>
#include <stdint.h>
#include "engine/engine.h"

/* What the line measures against: --duration, and the previous progress for its rates. */
struct status_ctx {
	uint64_t duration_ms;   /* 0: no --duration, the line shows "12s" not "12s/60s" */
	double last_secs;       /* of the previous progress */
	uint64_t last_samples, last_bytes;
};

/*
 * The line for p (sinks' states), into out; rates since c's last.  Shorter
 * than width (a terminal's columns) when it can be without cutting a
 * piece: the rates go, then the sinks say it briefly, then the totals go,
 * then the last sinks give way to "+N more".
 */
void status_format(const struct status_ctx *c, const struct record_report *p, unsigned width,
		   char *out, size_t n);
/* The one name of a sink's state the status line, JSON and metrics use. */
const char *sink_state_name(const struct record_sink_report *s);

#endif
