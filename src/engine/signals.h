/*
 * The signals of a recording: SIGINT, SIGTERM and SIGHUP stop it (SIGHUP not
 * under nohup), SIGCHLD says the workload may have exited, SIGUSR2 asks for a
 * cut.  The handler only writes the signal number into a pipe that the
 * session polls, so everything else happens on the engine thread.
 *
 * One recording per process: signals_setup and signals_restore bracket it.
 * signals.c keeps what the handler must reach as file-scope state (the pipe,
 * the number of stop signals seen) and whether SIGHUP was taken over.
 */
#ifndef PS_SIGNALS_H
#define PS_SIGNALS_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * Set by the handler at the second stop signal: waits for a buffer give up
 * (pool_get), so a stuck sink cannot hold the exit.  The one mutable global
 * outside signals.c.  Atomic (lock-free, so a handler may store it): read on
 * the engine thread and, through host->stop_requested, on sinks' threads.
 */
extern atomic_int signals_stop_requested;

/* Install the handlers and make the pipe; 0 or a negative errno. */
int signals_setup(void);
/* Default handlers back, the pipe closed; safe without a setup. */
void signals_restore(void);
/* The read end of the pipe, for poll (POLLIN: signals to take); -1 without a setup. */
int signals_fd(void);
/*
 * Move the signals that arrived since the last call into sigs (at most n,
 * oldest first); returns how many.  Never blocks.
 */
size_t signals_take(unsigned char *sigs, size_t n);
/* SIGINT, SIGTERM or SIGHUP. */
bool signals_is_stop(int sig);

#endif
