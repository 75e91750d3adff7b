/*
 * The file offsets where buffers end, kept until the writes before them
 * are on file.  data.size must end on a record boundary; with O_DIRECT the
 * writer completes whole blocks, which end inside records, so the size
 * perf is shown is the last buffer end at or below the completed prefix.
 *
 * THREADS: ends_push from the sink's caller, ends_take from the completion
 * thread; a mutex makes them safe together.
 */
#ifndef PS_ENDS_H
#define PS_ENDS_H
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

struct ends {
	pthread_mutex_t lock;
	uint64_t *v;        /* ring of pushed ends, increasing */
	size_t cap, head, n;
	uint64_t taken;     /* the largest end taken so far */
};

void ends_init(struct ends *e);
/* Forget every end (a new file); keeps the memory. */
void ends_reset(struct ends *e);
/* end must not be below the last one pushed.  0 or -ENOMEM. */
int ends_push(struct ends *e, uint64_t end);
/* The largest end pushed that is <= upto (0 if none); drops those.  upto
 * never decreases between resets. */
uint64_t ends_take(struct ends *e, uint64_t upto);
void ends_free(struct ends *e);

#endif
