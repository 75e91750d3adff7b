/* Records in time order; see pp_order.h. */
#include "pprof/pp_order.h"
#include "format/record.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#define QUEUE_CAP (64u << 20)

static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

void pp_order_init(struct pp_order *o, pp_record_fn fn, void *ctx)
{
	memset(o, 0, sizeof(*o));
	o->fn = fn;
	o->ctx = ctx;
	bytes_init(&o->arena);
}

void pp_order_free(struct pp_order *o)
{
	bytes_free(&o->arena);
	free(o->q);
	memset(o, 0, sizeof(*o));
}

uint64_t pp_order_time(const struct pp_input *in, const uint8_t *r, uint16_t size)
{
	uint32_t type;
	memcpy(&type, r, 4);
	if (!in->nr_ev)
		return 0;
	const struct perf_event_attr *a = &in->ev[0].attr;
	uint64_t st = a->sample_type;
	if (!(st & PERF_SAMPLE_TIME))
		return 0;
	if (type == PERF_RECORD_SAMPLE) {
		size_t o = 8 + 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID));
		return o + 8 <= size ? rd64(r + o) : 0;
	}
	if (!a->sample_id_all || type >= PERFSINK_RECORD_HEADER_ATTR)
		return 0;
	/* The trailer ends with ID, STREAM_ID, CPU, IDENTIFIER after TIME. */
	size_t after = 8 * (1 + !!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID) +
			    !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_IDENTIFIER));
	return size >= 8 + after ? rd64(r + size - after) : 0;
}

static int cmp(const void *a, const void *b)
{
	const struct pp_queued *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Hand on the queued records with time <= limit, in order; keep the rest. */
static int flush_upto(struct pp_order *o, const struct pp_input *in, uint64_t limit)
{
	qsort(o->q, o->n, sizeof(*o->q), cmp);
	size_t k = 0;
	int rc = 0;
	while (!rc && k < o->n && o->q[k].time <= limit) {
		const uint8_t *r = o->arena.p + o->q[k].off;
		uint16_t size;
		memcpy(&size, r + 6, 2);
		rc = o->fn(o->ctx, in, r, size);
		k++;
	}
	/* Compact: the records left, re-packed in the arena. */
	struct bytes rest;
	bytes_init(&rest);
	for (size_t i = k; i < o->n; i++) {
		const uint8_t *r = o->arena.p + o->q[i].off;
		uint16_t size;
		memcpy(&size, r + 6, 2);
		o->q[i - k] = o->q[i];
		o->q[i - k].off = rest.len;
		bytes_add(&rest, r, size);
	}
	o->n -= k;
	bytes_free(&o->arena);
	o->arena = rest;
	return rc ? rc : rest.err;
}

int pp_order_flush(struct pp_order *o, const struct pp_input *in)
{
	return flush_upto(o, in, UINT64_MAX);
}

int pp_order_record(void *ctx, const struct pp_input *in, const uint8_t *r, uint16_t size)
{
	struct pp_order *o = ctx;
	uint32_t type;
	memcpy(&type, r, 4);
	if (type == PERFSINK_RECORD_FINISHED_ROUND) {
		int rc = flush_upto(o, in, o->limit);
		o->limit = o->round_max;
		return rc;
	}
	uint64_t t = pp_order_time(in, r, size);
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 4096;
		struct pp_queued *q = realloc(o->q, cap * sizeof(*q));
		if (!q)
			return -ENOMEM;
		o->q = q;
		o->cap = cap;
	}
	o->q[o->n++] = (struct pp_queued){ t, o->seq++, o->arena.len };
	bytes_add(&o->arena, r, size);
	if (t > o->round_max)
		o->round_max = t;
	if (o->arena.err)
		return -ENOMEM;
	if (o->arena.len > QUEUE_CAP) {
		o->flushed_early++;
		return pp_order_flush(o, in);
	}
	return 0;
}
