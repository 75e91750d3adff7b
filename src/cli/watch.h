/*
 * What `perfsink record` shows and writes about a run besides the closing
 * summary: the live status line on a terminal (status.c), the Prometheus
 * stats file rewritten every few seconds (stats_file.c) and the summary as
 * JSON (summary_json.c).  The engine calls watch_progress about once a
 * second and watch_report once at the end, on its own thread.
 */
#ifndef PS_WATCH_H
#define PS_WATCH_H
#include <stdbool.h>
#include <stdint.h>
#include "engine/engine.h"

struct record_opts;

struct watch {
	const struct record_opts *o;
	bool status;               /* draw the status line (a terminal, not -q, status = true) */
	bool drawn;                /* a status line is on screen */
	double last_secs;          /* of the previous progress */
	uint64_t last_samples, last_bytes;
	double next_stats_secs;    /* when the stats file is due */
	int stats_err;             /* errno of the last failed stats write, 0 if none */
};

/* w for options o; decides whether the status line is shown. */
void watch_init(struct watch *w, const struct record_opts *o);
/* The observer that engine_record takes, calling the two below with w. */
void watch_observer(struct watch *w, struct record_observer *obs);

record_progress_fn watch_progress;
record_report_fn watch_report;

/*
 * status.c: the line for p (sinks' states), into out; rates since w's
 * last.  Shorter than width (a terminal's columns) when it can be without
 * cutting a piece: the rates go, then the sinks say it briefly, then the
 * totals go, then the last sinks give way to "+N more".
 */
void status_format(const struct watch *w, const struct record_report *p, unsigned width, char *out,
		   size_t n);
/* stats_file.c: write r (a progress or the final report) to path atomically. 0 or -errno. */
int stats_file_write(const char *path, const struct record_report *r, bool final, char *why,
		     size_t n);
/* summary_json.c: write the final report to path atomically. 0 or -errno. */
int summary_json_write(const char *path, const struct record_report *r, char *why, size_t n);
/* What the summary's headline counts as written: samples minus the worst failed sink's loss. */
uint64_t summary_samples_written(const struct record_report *r);
/* status.c: the one name of a sink's state the status line, JSON and metrics use. */
const char *sink_state_name(const struct record_sink_report *s);

#endif
