/* plugin_guard: see plugin_guard.h. */
#include <config.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <perfsink/sink.h>

#include "loader/plugin_guard.h"

static const struct {
	int sig;
	const char *name;
} fatal[] = {
	{ SIGSEGV, "SIGSEGV" }, { SIGBUS, "SIGBUS" }, { SIGILL, "SIGILL" }, { SIGFPE, "SIGFPE" },
	{ SIGABRT, "SIGABRT" }, { SIGTRAP, "SIGTRAP" }, { SIGSYS, "SIGSYS" },
};
#define NR_FATAL (sizeof(fatal) / sizeof(fatal[0]))
#define WHERE "in a constructor or " PERFSINK_ENTRY_SYMBOL "()"

/* The guard's state: written before the handlers go in, read by them. */
static char crash_line[PATH_MAX + 128], exit_line[PATH_MAX + 128];
static size_t crash_len, exit_len;
static volatile sig_atomic_t guard_on;
static struct sigaction guard_old[NR_FATAL];

/* stderr from a signal or exit handler: write(2) only. */
static void say(const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(STDERR_FILENO, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static __attribute__((noreturn)) void probe_child(int mark, const char *fd_path)
{
	perfsink_entry_fn entry;
	void *dl;

	guard_on = 0; /* the parent speaks for the child */
	for (size_t i = 0; i < NR_FATAL; i++)
		signal(fatal[i].sig, SIG_DFL); /* a crash ends the child by its signal */
	dl = dlopen(fd_path, RTLD_NOW | RTLD_LOCAL);
	if (dl && (*(void **)&entry = dlsym(dl, PERFSINK_ENTRY_SYMBOL)))
		(void)entry();
	if (write(mark, "y", 1) != 1) {
		/* the parent sees no mark and says so */
	}
	_exit(0);
}

int plugin_guard_probe(const char *fd_path, const char *shown, char *err, size_t errlen)
{
	int p[2], status = 0;
	char mark;
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return 0;
	fflush(NULL); /* a child's exit() must not write our buffered output again */
	pid = fork();
	if (pid == 0)
		probe_child(p[1], fd_path);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return 0;
	}
	do
		n = read(p[0], &mark, 1);
	while (n < 0 && errno == EINTR);
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (n == 1)
		return 0;
	if (WIFSIGNALED(status)) {
		const char *sig = sigabbrev_np(WTERMSIG(status));
		snprintf(err, errlen, "%s: the plugin crashed while loading (SIG%s " WHERE "); not "
			 "loaded", shown, sig ? sig : "?");
	} else
		snprintf(err, errlen, "%s: the plugin ended the process while loading (exit status %d "
			 WHERE "); not loaded", shown, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return -EINVAL;
}

static void guard_signal(int sig)
{
	int e = errno;

	for (size_t i = 0; i < NR_FATAL; i++) {
		if (fatal[i].sig != sig)
			continue;
		say(crash_line, crash_len);
		say(fatal[i].name, strlen(fatal[i].name));
		say(" " WHERE ")\n", sizeof(" " WHERE ")\n") - 1);
		/* Then as it would have been: the default kills, a sanitizer reports. */
		sigaction(sig, &guard_old[i], NULL);
		raise(sig);
	}
	errno = e;
}

static void guard_exit(void)
{
	if (!guard_on)
		return;
	say(exit_line, exit_len);
	_exit(2); /* nothing was recorded: bad input, not the plugin's status */
}

/* The length snprintf wrote into cap bytes, given what it returned. */
static size_t written(int n, size_t cap)
{
	return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

void plugin_guard_begin(const char *shown)
{
	static int exit_hooked;
	struct sigaction sa;

	crash_len = written(snprintf(crash_line, sizeof(crash_line), "perfsink: error: %s: the "
				     "plugin crashed while loading (", shown), sizeof(crash_line));
	exit_len = written(snprintf(exit_line, sizeof(exit_line), "perfsink: error: %s: the plugin "
				    "called exit() while loading " WHERE "; perfsink ends with status 2\n",
				    shown), sizeof(exit_line));
	if (!exit_hooked)
		exit_hooked = atexit(guard_exit) == 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = guard_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NR_FATAL; i++)
		sigaction(fatal[i].sig, &sa, &guard_old[i]);
	guard_on = 1;
}

void plugin_guard_end(void)
{
	guard_on = 0;
	for (size_t i = 0; i < NR_FATAL; i++)
		sigaction(fatal[i].sig, &guard_old[i], NULL);
}
