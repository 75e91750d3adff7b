/*
 * Building perf records the engine synthesizes.  Every non-sample record
 * gets the sample_id trailer the attrs promise (sample_id_all).
 */
#ifndef PS_RECORD_H
#define PS_RECORD_H
#include <stdint.h>
#include "base/bytes.h"

struct ps_events;

/* perf's user record types (tools/perf/util/event.h, 6.1). */
enum {
	PS_RECORD_HEADER_ATTR = 64,
	PS_RECORD_HEADER_TRACING_DATA = 66,
	PS_RECORD_FINISHED_ROUND = 68,
	PS_RECORD_ID_INDEX = 69,
	PS_RECORD_EVENT_UPDATE = 78,
	PS_RECORD_HEADER_FEATURE = 80,
	PS_RECORD_COMPRESSED = 81,
	PS_RECORD_FINISHED_INIT = 82,
};

struct ps_sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;   /* kernel id of the event the record belongs to */
	uint32_t cpu;
};

/* Start a record: returns its offset in b (pass to record_end). */
size_t record_begin(struct bytes *b, uint32_t type, uint16_t misc);
/* Append the trailer (if sample_id_all), pad to 8, fix header.size. */
void record_end(struct bytes *b, size_t start, const struct ps_events *evs,
		const struct ps_sample_id *sid);
/* Append a NUL-terminated string padded to 8 bytes. */
void record_string(struct bytes *b, const char *s);

#endif
