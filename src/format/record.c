#include <string.h>
#include <linux/perf_event.h>
#include "format/events.h"
#include "format/record.h"

size_t record_begin(struct bytes *b, uint32_t type, uint16_t misc)
{
	size_t start = b->len;
	struct perf_event_header h = { .type = type, .misc = misc, .size = 0 };
	bytes_add(b, &h, sizeof(h));
	return start;
}

static void sample_id_trailer(struct bytes *b, uint64_t st, const struct ps_sample_id *sid)
{
	if (st & PERF_SAMPLE_TID) {
		bytes_u32(b, sid->pid);
		bytes_u32(b, sid->tid);
	}
	if (st & PERF_SAMPLE_TIME)
		bytes_u64(b, sid->time);
	if (st & PERF_SAMPLE_ID)
		bytes_u64(b, sid->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		bytes_u64(b, sid->id);
	if (st & PERF_SAMPLE_CPU) {
		bytes_u32(b, sid->cpu);
		bytes_u32(b, 0);
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		bytes_u64(b, sid->id);
}

void record_end(struct bytes *b, size_t start, const struct ps_events *evs,
		const struct ps_sample_id *sid)
{
	bytes_pad(b, 8);
	if (evs && evs->sample_id_all) {
		static const struct ps_sample_id none;
		sample_id_trailer(b, evs->sample_type, sid ? sid : &none);
	}
	if (b->err)
		return;
	uint16_t size = (uint16_t)(b->len - start);
	bytes_put_at(b, start + offsetof(struct perf_event_header, size), &size, sizeof(size));
}

unsigned record_id_time_back(uint64_t st)
{
	/* The trailer's fields after TIME (sample_id_trailer's order). */
	static const uint64_t after = PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
				      PERF_SAMPLE_IDENTIFIER;

	if (!(st & PERF_SAMPLE_TIME))
		return 0;
	return 8 * (1 + (unsigned)__builtin_popcountll(st & after));
}

void record_string(struct bytes *b, const char *s)
{
	bytes_add(b, s, strlen(s) + 1);
	bytes_pad(b, 8);
}
