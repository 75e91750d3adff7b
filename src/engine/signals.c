/* The signal handler and its pipe: see signals.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include "engine/signals.h"

/*
 * The only mutable globals of the engine, what a handler can reach: the
 * wakeup pipe (handler -> loop), the stop signals seen, and the flag of
 * signals.h.  hup_handled is set and read on the engine thread only.
 */
static int sig_pipe[2] = { -1, -1 };
static volatile sig_atomic_t nr_interrupts;
atomic_int signals_stop_requested;
static bool hup_handled; /* SIGHUP was not ignored (nohup) when we started */

bool signals_is_stop(int sig)
{
	return sig == SIGINT || sig == SIGTERM || sig == SIGHUP;
}

/*
 * The first SIGINT/SIGTERM/SIGHUP ends the recording gracefully (the loop
 * sees it through the pipe); SIGHUP so that a closed terminal or session
 * leaves finished files, as a service manager's SIGTERM does.  A second one
 * also stops waiting for sinks to return buffers, so a stuck sink cannot
 * hold the exit; the files are still finished.
 */
static void on_signal(int sig)
{
	int saved = errno;
	unsigned char c = (unsigned char)sig;
	if (signals_is_stop(sig) && ++nr_interrupts >= 2)
		atomic_store(&signals_stop_requested, 1);
	if (write(sig_pipe[1], &c, 1) < 0) {
		/* pipe full: a wakeup is pending anyway */
	}
	errno = saved;
}

int signals_setup(void)
{
	if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	struct sigaction old;
	/* Under nohup SIGHUP stays ignored: the user asked to outlive the terminal. */
	hup_handled = sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler != SIG_IGN;
	if (hup_handled)
		sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

void signals_restore(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (hup_handled)
		signal(SIGHUP, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
	if (sig_pipe[0] >= 0) {
		close(sig_pipe[0]);
		close(sig_pipe[1]);
	}
	sig_pipe[0] = sig_pipe[1] = -1;
}

int signals_fd(void)
{
	return sig_pipe[0];
}

size_t signals_take(unsigned char *sigs, size_t n)
{
	ssize_t got = sig_pipe[0] < 0 ? -1 : read(sig_pipe[0], sigs, n);
	return got > 0 ? (size_t)got : 0;
}
