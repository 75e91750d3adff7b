/*
 * Building perf records the engine synthesizes.  Every non-sample record
 * gets the sample_id trailer the attrs promise (sample_id_all).
 *
 * Record types: perf's user ones are sink.h's PERFSINK_RECORD_*, the
 * kernel's PERF_RECORD_* of <linux/perf_event.h>; records are walked with
 * the kit's perfsink_kit_rec_next (<perfsink/kit.h>), as the sinks do.
 */
#ifndef PS_RECORD_H
#define PS_RECORD_H
#include <stdint.h>
#include <perfsink/sink.h> /* record types: enum perfsink_record_type */
#include "base/bytes.h"

struct ps_events;

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
/*
 * Where the sample_id trailer of a non-sample record (sample_id_all) holds
 * TIME: bytes back from the record's end; 0 when sample_type has no TIME.
 */
unsigned record_id_time_back(uint64_t sample_type);
/* Append a NUL-terminated string padded to 8 bytes. */
void record_string(struct bytes *b, const char *s);

#endif
