#include <stdio.h>
#include <string.h>
#include "base/log.h"

static int verbosity = 1;

void log_set_verbosity(int v) { verbosity = v; }
int log_verbosity(void) { return verbosity; }

static const char *const level_tag[] = { "error: ", "warning: ", "", "debug: " };

/* Errors always show; -q silences warnings and info. */
static int shown(enum log_level lvl)
{
	if (lvl != LOG_ERR && (int)lvl > verbosity + 1)
		return 0;
	return !(lvl == LOG_WARN && verbosity < 0);
}

void log_vmsg(enum log_level lvl, const char *prefix, const char *fmt, va_list ap)
{
	if (!shown(lvl))
		return;
	char line[2048];
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	if (n > 0 && line[n < (int)sizeof(line) ? n - 1 : (int)sizeof(line) - 2] == '\n')
		line[n < (int)sizeof(line) ? n - 1 : (int)sizeof(line) - 2] = '\0';
	/* One fprintf per line so lines from several threads do not interleave. */
	fprintf(stderr, "perfsink: %s%s%s%s\n", prefix ? prefix : "", prefix ? ": " : "",
		level_tag[lvl], line);
}

void log_msg(enum log_level lvl, const char *prefix, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_vmsg(lvl, prefix, fmt, ap);
	va_end(ap);
}

void log_summary(enum log_level lvl, const char *fmt, ...)
{
	va_list ap;

	if (!shown(lvl))
		return;
	char line[2048];
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", line);
}
