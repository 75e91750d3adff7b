#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "base/log.h"

/*
 * The live status line (log_status): kept here so that every line logged
 * from any thread first clears it and then draws it again below, instead
 * of being appended to it.  `lock` orders whole lines of every thread.
 */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char status[512];

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
	pthread_mutex_lock(&lock);
	fprintf(stderr, "%sperfsink: %s%s%s%s\n%s", status[0] ? "\r\033[K" : "",
		prefix ? prefix : "", prefix ? ": " : "", level_tag[lvl], line, status);
	fflush(stderr);
	pthread_mutex_unlock(&lock);
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
	pthread_mutex_lock(&lock);
	fprintf(stderr, "%s%s\n%s", status[0] ? "\r\033[K" : "", line, status);
	fflush(stderr);
	pthread_mutex_unlock(&lock);
}

void log_status(const char *line)
{
	pthread_mutex_lock(&lock);
	if (status[0] || (line && line[0]))
		fputs("\r\033[K", stderr);
	snprintf(status, sizeof(status), "%s", line ? line : "");
	fputs(status, stderr);
	fflush(stderr);
	pthread_mutex_unlock(&lock);
}
