/*
 * The command after `--`: forked at once but held before exec until the
 * counters are ready (its events use enable_on_exec).
 */
#ifndef PS_WORKLOAD_H
#define PS_WORKLOAD_H
#include <sys/types.h>

struct workload {
	pid_t pid;
	int go_fd;   /* write end: a byte releases the child */
	int err_fd;  /* read end: errno of a failed exec, EOF on success */
};

/* Fork argv; the child waits.  0 or a negative errno. */
int workload_prepare(struct workload *w, char *const argv[]);
/* Release the child; returns 0, or the negative errno of a failed exec. */
int workload_start(struct workload *w);
/* Kill and reap a child that never started (setup failed). */
void workload_abort(struct workload *w);
/* Exit status as a shell reports it: code, or 128 + signal. */
int workload_exit_code(int wstatus);

#endif
