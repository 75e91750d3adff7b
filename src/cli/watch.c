/* The record observer: status line, stats file, summary, JSON; see watch.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "base/log.h"
#include "cli/report_files.h"
#include "cli/status.h"
#include "cli/summary.h"
#include "cli/watch.h"
#include "config/opts.h"

/* Seconds between two rewrites of the stats file. */
#define STATS_EVERY_S 2.0
/* The status line's width on a terminal that does not say its own. */
#define STATUS_COLUMNS 80

void watch_init(struct watch *w, const struct record_opts *o)
{
	memset(w, 0, sizeof(*w));
	w->o = o;
	w->line.duration_ms = o->duration_ms;
	w->status = o->status && log_verbosity() >= 0 && isatty(STDERR_FILENO);
}

void watch_observer(struct watch *w, struct record_observer *obs)
{
	*obs = (struct record_observer){ .report = watch_report, .progress = watch_progress,
					 .progress_ms = 1000, .arg = w };
}

static void stats_write(struct watch *w, const struct record_report *r, bool final)
{
	double now = r->secs + r->drain_secs; /* the recording time stops; the drain goes on */
	char why[512];
	int e;

	if (!w->o->stats_file || (!final && now < w->next_stats_secs))
		return;
	w->next_stats_secs = now + STATS_EVERY_S;
	e = stats_file_write(w->o->stats_file, r, final, why, sizeof(why));
	/* Once per kind of failure: a full disk must not flood the terminal. */
	if (e < 0 && -e != w->stats_err)
		pr_warn("--stats-file: %s", why);
	w->stats_err = e < 0 ? -e : 0;
}

void watch_progress(const struct record_report *p, void *arg)
{
	struct watch *w = arg;
	char line[512];

	stats_write(w, p, false);
	if (w->status) {
		struct winsize ws;
		unsigned cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1
			? ws.ws_col : STATUS_COLUMNS;

		status_format(&w->line, p, cols, line, sizeof(line));
		/* A line that wraps could not be cleared: one that still does not fit is cut. */
		if (strlen(line) >= cols)
			line[cols - 1] = '\0';
		log_status(line);
		w->drawn = true;
	}
	w->line.last_secs = p->secs;
	w->line.last_samples = p->samples;
	w->line.last_bytes = p->ring_bytes;
}

void watch_report(const struct record_report *r, void *arg)
{
	struct watch *w = arg;
	char why[512];
	int e;

	if (w->drawn)
		log_status(NULL); /* cleared before the summary */
	w->drawn = false;
	stats_write(w, r, true);
	if (w->o->summary_json && (e = summary_json_write(w->o->summary_json, r, why, sizeof(why))) < 0)
		pr_err("--summary-json: %s", why);
	if (log_verbosity() >= 0)
		summary_print(r);
}
