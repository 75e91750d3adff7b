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

struct ends_mark {
	uint64_t end;       /* file offset where a buffer ends */
	uint64_t records;   /* records written to the file up to end */
};

struct ends {
	pthread_mutex_t lock;
	struct ends_mark *v; /* ring of pushed ends, increasing */
	size_t cap, head, n;
	uint64_t taken;     /* the largest end taken so far */
	uint64_t taken_records; /* its records */
};

void ends_init(struct ends *e);
/* Forget every end (a new file); keeps the memory. */
void ends_reset(struct ends *e);
/*
 * end must not be below the last one pushed; records counts the records of
 * the file up to end (it says what a cut at end loses).  0 or -ENOMEM.
 */
int ends_push(struct ends *e, uint64_t end, uint64_t records);
/* The largest end pushed that is <= upto (0 if none); drops those.  upto
 * never decreases between resets. */
uint64_t ends_take(struct ends *e, uint64_t upto);
/* The records up to the largest end taken so far. */
uint64_t ends_taken_records(struct ends *e);
void ends_free(struct ends *e);

#endif
