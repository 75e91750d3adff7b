/*
 * The one logging path.  Lines go to stderr as "perfsink: [prefix: ]text";
 * when stderr is systemd's journal stream (JOURNAL_STREAM names it), each
 * line starts with its syslog priority, <3> error, <4> warning, <6> info,
 * <7> debug, so journald files it at that priority.
 */
#ifndef PS_LOG_H
#define PS_LOG_H
#include <stdarg.h>

enum log_level { LOG_ERR = 0, LOG_WARN, LOG_INFO, LOG_DEBUG };

/* 0 = errors and warnings, 1 = info (default), 2+ = debug; -q sets -1. */
void log_set_verbosity(int v);
int log_verbosity(void);
void log_msg(enum log_level lvl, const char *prefix, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void log_vmsg(enum log_level lvl, const char *prefix, const char *fmt, va_list ap);
/*
 * A line of perfsink record's closing summary, shown at the same
 * verbosity as log_msg but printed as it is: the line carries its own
 * "[ perfsink record: ... ]" (as perf's "[ perf record: ... ]"), so a
 * second "perfsink: " prefix would be noise.
 */
void log_summary(enum log_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The live status line on a terminal: drawn at the bottom of stderr with no
 * newline, replaced by the next call, cleared by "" or NULL.  Lines logged
 * meanwhile (any thread) clear it, print, and draw it again.  Only for a
 * terminal: the caller decides (isatty, -q, --no-status).
 */
void log_status(const char *line);

#define pr_err(...)   log_msg(LOG_ERR, NULL, __VA_ARGS__)
#define pr_warn(...)  log_msg(LOG_WARN, NULL, __VA_ARGS__)
#define pr_info(...)  log_msg(LOG_INFO, NULL, __VA_ARGS__)
#define pr_debug(...) log_msg(LOG_DEBUG, NULL, __VA_ARGS__)

#endif
