/*
 * The record observer: what `perfsink record` shows and writes about a run
 * as it goes and at its end: the live status line on a terminal
 * (status.h), the stats file and the JSON summary (report_files.h), the
 * closing summary (summary.h).  The engine calls watch_progress about once
 * a second and watch_report once at the end, on its own thread.
 */
#ifndef PS_WATCH_H
#define PS_WATCH_H
#include <stdbool.h>
#include <stdint.h>
#include "cli/status.h"
#include "engine/engine.h"

struct record_opts;

struct watch {
	const struct record_opts *o;
	bool status;               /* draw the status line (a terminal, not -q, status = true) */
	bool drawn;                /* a status line is on screen */
	struct status_ctx line;    /* --duration and the previous progress, for the line */
	double next_stats_secs;    /* when the stats file is due */
	int stats_err;             /* errno of the last failed stats write, 0 if none */
};

/* w for options o; decides whether the status line is shown. */
void watch_init(struct watch *w, const struct record_opts *o);
/* The observer that engine_record takes, calling the two below with w. */
void watch_observer(struct watch *w, struct record_observer *obs);

record_progress_fn watch_progress;
record_report_fn watch_report;

#endif
