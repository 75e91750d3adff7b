/* A sample's call chain; see sample_chain.h. */
#include "format/sample_chain.h"

static bool is_dummy(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_DUMMY;
}

void sample_layout_init(struct sample_layout *l, const struct ps_event_desc *ev, unsigned nr)
{
	const struct perf_event_attr *first = NULL;
	bool mixed = false;

	*l = (struct sample_layout){ .ev = ev, .nr = nr };
	for (unsigned i = 0; i < nr; i++) {
		const struct perf_event_attr *a = &ev[i].attr;

		if (is_dummy(a))
			continue;
		l->chains |= (a->sample_type & PERF_SAMPLE_CALLCHAIN) != 0;
		if (!first)
			first = a;
		else if (a->sample_type != first->sample_type || a->read_format != first->read_format)
			mixed = true;
	}
	l->one = mixed ? NULL : first;
}

const struct perf_event_attr *sample_layout_attr(struct sample_layout *l, const uint8_t *r,
						 uint16_t size)
{
	uint64_t id;

	if (l->one)
		return l->one;
	if (size < 16 || !l->nr || !(l->ev[0].attr.sample_type & PERF_SAMPLE_IDENTIFIER))
		return NULL;
	memcpy(&id, r + 8, sizeof(id));
	if (l->last && id == l->last_id)
		return l->last;
	for (unsigned i = 0; i < l->nr; i++)
		for (unsigned j = 0; j < l->ev[i].nr_ids; j++)
			if (l->ev[i].ids[j] == id) {
				l->last_id = id;
				return l->last = &l->ev[i].attr;
			}
	return NULL;
}

size_t sample_read_size(uint64_t rf, const uint8_t *p, const uint8_t *end)
{
	size_t per = 8 * (1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST));
	size_t t = 8 * (!!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING));
	uint64_t nr;

	if (!(rf & PERF_FORMAT_GROUP))
		return per + t;
	if (p >= end || end - p < 8)
		return SIZE_MAX;
	memcpy(&nr, p, sizeof(nr));
	return nr > 4096 ? SIZE_MAX : 8 + t + nr * per;
}

size_t sample_chain_off(const struct perf_event_attr *a, const uint8_t *r, uint16_t size)
{
	/* The u64 fields a sample has before READ and CALLCHAIN (perf_event.h). */
	static const uint64_t before = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
		PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
		PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	uint64_t st = a->sample_type;
	size_t off;

	if (!(st & PERF_SAMPLE_CALLCHAIN))
		return 0;
	off = 8 + 8 * (size_t)__builtin_popcountll(st & before);
	if (st & PERF_SAMPLE_READ) {
		size_t n = off < size ? sample_read_size(a->read_format, r + off, r + size) : SIZE_MAX;

		if (n > (size_t)size - off)
			return 0;
		off += n;
	}
	return off + 8 <= size ? off : 0;
}
