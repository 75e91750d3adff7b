/*
 * Run a recorder and measure it from outside:
 *
 *   psb_spawn RESULT_FILE -- COMMAND [ARGS...]
 *
 * Forks and execs COMMAND, waits for it without reaping it first, so the
 * zombie's /proc/PID/io still holds the write counts of every thread, then
 * reaps it for its rusage.  RESULT_FILE gets key=value lines: pid, status
 * (exit code, or 128+signal), exit_ns (CLOCK_MONOTONIC when it ended),
 * user_ns, sys_ns, maxrss_kb, syscw, wchar, csw (context switches of all
 * its threads, voluntary and not: how often it slept or was preempted).
 *
 * Why a C launcher: ru_maxrss keeps the high-water mark of every image a
 * process had, and a child forked from the (large) Python driver would
 * report the driver's size before its exec.  Forked from this small
 * program, the recorder's peak RSS is its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long io_field(pid_t pid, const char *key)
{
	char path[64], line[128];
	snprintf(path, sizeof(path), "/proc/%d/io", (int)pid);
	FILE *f = fopen(path, "r");
	long long v = -1;
	size_t n = strlen(key);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':')
			v = atoll(line + n + 1);
	fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	if (argc < 4 || strcmp(argv[2], "--")) {
		fprintf(stderr, "usage: psb_spawn RESULT_FILE -- COMMAND [ARGS...]\n");
		return 2;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("psb_spawn: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[3], &argv[3]);
		fprintf(stderr, "psb_spawn: %s: %s\n", argv[3], strerror(errno));
		_exit(127);
	}
	siginfo_t si;
	while (waitid(P_PID, pid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
		;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	long long syscw = io_field(pid, "syscw"), wchar = io_field(pid, "wchar");
	int st = 0;
	struct rusage ru;
	if (wait4(pid, &st, 0, &ru) != pid) {
		perror("psb_spawn: wait4");
		return 2;
	}
	int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	FILE *f = fopen(argv[1], "w");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	fprintf(f, "pid=%d\nstatus=%d\nexit_ns=%lld\nuser_ns=%lld\nsys_ns=%lld\nmaxrss_kb=%ld\n"
		"syscw=%lld\nwchar=%lld\ncsw=%ld\n",
		(int)pid, code, (long long)ts.tv_sec * 1000000000 + ts.tv_nsec,
		(long long)ru.ru_utime.tv_sec * 1000000000 + ru.ru_utime.tv_usec * 1000LL,
		(long long)ru.ru_stime.tv_sec * 1000000000 + ru.ru_stime.tv_usec * 1000LL,
		ru.ru_maxrss, syscw, wchar, ru.ru_nvcsw + ru.ru_nivcsw);
	fclose(f);
	return code;
}
