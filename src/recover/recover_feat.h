/*
 * The feature sections of a perf.data file, checked as perf 6.1 reads
 * them (tools/perf/util/header.c: the process_* function of each feature;
 * trace-event-read.c for TRACING_DATA), for recover's "complete": perf
 * reads a feature through the file descriptor, past the end of its
 * section if a length inside says so, into fixed buffers in places (a
 * BUILD_ID name into PATH_MAX bytes on the stack: "stack smashing
 * detected"), and stops processing the features after one that fails:
 * the COMPRESSED parameters among them, without which it cannot read the
 * data.  So every feature perf 6.1 processes (bits 1..31) must lie in the
 * file after the index and hold exactly what perf reads, with its counts,
 * strings (ended by a NUL) and versions as perf's reader needs them; the
 * features the data need must be there (COMPRESSED with a buffer large
 * enough for the largest record, TRACING_DATA with the format of every
 * tracepoint).  AUXTRACE and DIR_FORMAT (perf's directory layout) are
 * never "complete" for recover.  Pure; thread-safe.
 */
#ifndef PS_RECOVER_FEAT_H
#define PS_RECOVER_FEAT_H
#include <stddef.h>
#include <stdint.h>
#include "recover/recover_check.h"

struct rc_feat_in {
	const uint8_t *file;
	uint64_t size;
	uint64_t idx;          /* the feature index: data offset + data size */
	const uint64_t *bits;  /* the header's feature bitmap, 4 words */
	const struct rc_events *ev;
	uint64_t max_decomp;   /* the largest COMPRESSED record, decompressed; 0: none */
};

/* 0, or -EINVAL with the feature perf would fail on, and why, in why. */
int rc_features(const struct rc_feat_in *in, char *why, size_t n);

/*
 * recover_tracing.c: TRACING_DATA's blob (len bytes) as trace_report
 * walks it, holding the format of every tracepoint event of ev.
 */
bool rc_tracing_ok(const uint8_t *p, uint64_t len, const struct rc_events *ev);

#endif
