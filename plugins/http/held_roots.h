/*
 * The roots of recorded processes in other mount namespaces, held from
 * when the sink first sees them: a container process that exits before
 * the stream's end has no /proc/PID/root left to read its JIT map or
 * jitdump file through.  For each such process an O_PATH fd on its root
 * and an fd on its mount namespace are kept (the namespace fd keeps the
 * namespace, so its mounts, alive: a root fd alone would find the host's
 * directory under a tmpfs the container mounted on /tmp once the
 * namespace died), with its pid in its own pid namespace (NSpid), which
 * the runtime put in the file's name.
 *
 * At most HELD_ROOTS_MAX are held; a process seen beyond that is counted
 * (unheld), not held: its files are read only if it is still alive.
 *
 * THREADS.  One thread at a time: the engine thread's write() fills it,
 * then it moves to the shipper's job, which reads through it and closes it.
 */
#ifndef HTTP_HELD_ROOTS_H
#define HTTP_HELD_ROOTS_H
#include <stddef.h>
#include <stdint.h>

#include "pid_set.h"

#define HELD_ROOTS_MAX 256

struct held_root {
	int32_t pid;   /* host pid */
	int32_t nspid; /* its pid in its own pid namespace, or pid */
	int root;      /* O_PATH fd of /proc/PID/root */
	int mntns;     /* fd of /proc/PID/ns/mnt */
};
struct held_roots {
	struct held_root *v; /* HELD_ROOTS_MAX slots once one is held */
	size_t n;
	struct pid_set unheld; /* pids in other mount namespaces not held */
};

/*
 * pid was seen for the first time, or exec'd (a COMM record): when it is
 * then in another mount namespace than ours, hold its root (again: a
 * container's init may have changed its root since).  A process that
 * cannot be looked at (gone already) is passed by.
 */
void held_roots_see(struct held_roots *h, int32_t pid);
/* The held root of host pid, or NULL. */
const struct held_root *held_roots_find(const struct held_roots *h, int32_t pid);
/* How many processes in other mount namespaces could not be held. */
size_t held_roots_unheld(const struct held_roots *h);
/* Move *from into *to (empty before); *from is left empty. */
void held_roots_move(struct held_roots *to, struct held_roots *from);
/* Close every fd and free; h is empty after. */
void held_roots_close(struct held_roots *h);

#endif
