/*
 * Growing a file ahead of its O_DIRECT writes, off the caller's thread
 * (the file sink's prealloc, file_sink.c).  fallocate waits for the direct
 * writes in flight and journals the new extent: 90 ms and more beside a
 * busy disk, while a ring at a tracepoint storm's rate fills in a few
 * milliseconds.  So each fallocate runs on a thread of its own, one at a
 * time; the caller learns how it ended at its next call, and waits for it
 * only before it cuts or closes the file.  Kit-internal.
 *
 * THREADS.  All functions from one thread (the sink's); the fallocate
 * runs on the helper thread.  fd stays open until grow_ahead_reap(wait)
 * returned.
 */
#ifndef PS_KIT_GROW_AHEAD_H
#define PS_KIT_GROW_AHEAD_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct grow_ahead {
	pthread_t th;
	bool running;      /* started and not reaped */
	bool threaded;     /* on a thread of its own, to be joined */
	atomic_bool done;  /* its fallocate returned */
	int fd;
	uint64_t from, to;
	int err;           /* its result: 0 or -errno */
};

/*
 * Start fallocate(fd, from, to - from) unless one is running; where no
 * thread can be started it runs here, before this returns.
 */
void grow_ahead_start(struct grow_ahead *g, int fd, uint64_t from, uint64_t to);
/* A fallocate is running and has not returned. */
bool grow_ahead_busy(struct grow_ahead *g);
/*
 * Collect a finished fallocate (wait: wait for a running one first):
 * true with *to and *err filled, false when there was none to collect.
 */
bool grow_ahead_reap(struct grow_ahead *g, bool wait, uint64_t *to, int *err);

#endif
