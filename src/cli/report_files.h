/*
 * The files `perfsink record` writes about a run, each atomically (write a
 * temporary beside it, rename): the Prometheus stats file (stats_file.c),
 * rewritten every few seconds, and the summary as JSON (summary_json.c).
 */
#ifndef PS_REPORT_FILES_H
#define PS_REPORT_FILES_H
#include <stdbool.h>
#include <stddef.h>
#include "engine/engine.h"

/* Write r (a progress or the final report) to path. 0 or -errno, why says it. */
int stats_file_write(const char *path, const struct record_report *r, bool final, char *why,
		     size_t n);
/* Write the final report to path. 0 or -errno, why says it. */
int summary_json_write(const char *path, const struct record_report *r, char *why, size_t n);

#endif
