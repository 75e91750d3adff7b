/*
 * log: when stderr is the journal stream JOURNAL_STREAM names, every line
 * (each line of a message of several) starts with its syslog priority;
 * when the variable is absent, malformed or names another stream, lines
 * are as they always were.  Each case runs in a child: the stream is
 * looked at once per process.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "base/log.h"

enum stream { NONE, SAME, OTHER, GARBAGE };

/* What the child wrote to stderr, a temporary file, with JOURNAL_STREAM per s. */
static void logged(enum stream s, void (*emit)(void), char *out, size_t len)
{
	char path[] = "/tmp/test_log_journal.XXXXXX", other[] = "/tmp/test_log_journal.XXXXXX";
	int fd = mkstemp(path), ofd = mkstemp(other);
	assert_true(fd >= 0 && ofd >= 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct stat st;
		char v[64];

		fstat(s == OTHER ? ofd : fd, &st);
		snprintf(v, sizeof(v), "%llu:%llu", (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino);
		if (s == NONE)
			unsetenv("JOURNAL_STREAM");
		else
			setenv("JOURNAL_STREAM", s == GARBAGE ? "journal" : v, 1);
		dup2(fd, 2);
		log_set_verbosity(2);
		emit();
		_exit(0);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	ssize_t n = pread(fd, out, len - 1, 0);
	assert_true(n >= 0);
	out[n] = '\0';
	close(fd);
	close(ofd);
	unlink(path);
	unlink(other);
}

static void each_level(void)
{
	log_msg(LOG_ERR, NULL, "bad %d", 1);
	log_msg(LOG_WARN, "sink", "slow");
	log_msg(LOG_INFO, NULL, "fine\n");
	log_msg(LOG_DEBUG, NULL, "detail");
	log_summary(LOG_INFO, "[ perfsink record: done ]");
}

static void two_lines(void) { log_msg(LOG_WARN, "collector", "first\nsecond"); }

static void priorities(void **state)
{
	static const struct {
		enum stream s;
		void (*emit)(void);
		const char *want;
	} t[] = {
		{ SAME, each_level,
		  "<3>perfsink: error: bad 1\n<4>perfsink: sink: warning: slow\n<6>perfsink: fine\n"
		  "<7>perfsink: debug: detail\n<6>[ perfsink record: done ]\n" },
		{ SAME, two_lines, "<4>perfsink: collector: warning: first\n<4>second\n" },
		{ NONE, each_level,
		  "perfsink: error: bad 1\nperfsink: sink: warning: slow\nperfsink: fine\n"
		  "perfsink: debug: detail\n[ perfsink record: done ]\n" },
		{ NONE, two_lines, "perfsink: collector: warning: first\nsecond\n" },
		/* inherited by a child whose stderr went elsewhere */
		{ OTHER, each_level,
		  "perfsink: error: bad 1\nperfsink: sink: warning: slow\nperfsink: fine\n"
		  "perfsink: debug: detail\n[ perfsink record: done ]\n" },
		{ GARBAGE, two_lines, "perfsink: collector: warning: first\nsecond\n" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char out[1024];

		logged(t[i].s, t[i].emit, out, sizeof(out));
		assert_string_equal(out, t[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(priorities) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
