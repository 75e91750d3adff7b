#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/*
 * Under systemd, stderr may be a stream to journald, which reads a "<N>"
 * syslog priority at the start of each line (sd-daemon(3)).  systemd names
 * that stream in JOURNAL_STREAM=DEV:INODE (systemd.exec(5)); a child whose
 * stderr was redirected elsewhere inherits the variable, so the stream is
 * compared, not just the variable's presence.
 */
static const char *const journal_prio[] = { "<3>", "<4>", "<6>", "<7>" };
static pthread_once_t journal_once = PTHREAD_ONCE_INIT;
static int to_journal;

static void journal_detect(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	to_journal = e && sscanf(e, "%llu:%llu", &dev, &ino) == 2 &&
		     fstat(fileno(stderr), &st) == 0 &&
		     (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

/* The priority prefix of a line at lvl, or "" when stderr is not the journal. */
static const char *prio(enum log_level lvl)
{
	pthread_once(&journal_once, journal_detect);
	return to_journal ? journal_prio[lvl] : "";
}

/*
 * Write text (no trailing newline) after head, one line per line of text,
 * each with the journal priority so that none falls back to journald's
 * default.  Called with lock held.
 */
static void put_lines(enum log_level lvl, const char *head, const char *text)
{
	const char *p = prio(lvl);

	for (;;) {
		size_t n = strcspn(text, "\n");

		fprintf(stderr, "%s%s%.*s\n", p, head, (int)n, text);
		if (!text[n])
			break;
		text += n + 1;
		head = "";
	}
}

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
	char head[256];
	snprintf(head, sizeof(head), "perfsink: %s%s%s", prefix ? prefix : "", prefix ? ": " : "",
		 level_tag[lvl]);
	pthread_mutex_lock(&lock);
	if (status[0])
		fputs("\r\033[K", stderr);
	put_lines(lvl, head, line);
	fputs(status, stderr);
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
	if (status[0])
		fputs("\r\033[K", stderr);
	put_lines(lvl, "", line);
	fputs(status, stderr);
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
