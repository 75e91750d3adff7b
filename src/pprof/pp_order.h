/*
 * Records in time order, as perf report's ordered events give them: each
 * ring's records come in order, but a round (up to FINISHED_ROUND) holds
 * several rings, so an MMAP can come after a sample that needs it.  Records
 * are queued; at each FINISHED_ROUND the ones no later than the previous
 * round's last time are handed on, sorted by time (ties in stream order),
 * and at the end of the input all of them.  Time comes from the sample's
 * TIME or the sample_id trailer (sample_id_all); a record without one
 * counts as time 0.  Memory: about two rounds of records (all of them when
 * the input has no FINISHED_ROUND, up to 64 MiB, past which the queue is
 * flushed as it is).  Single-threaded.
 */
#ifndef PS_PPROF_ORDER_H
#define PS_PPROF_ORDER_H
#include <stddef.h>
#include <stdint.h>
#include "base/bytes.h"
#include "pprof/pp_input.h"

struct pp_queued {
	uint64_t time, seq;
	size_t off;            /* in the arena */
};

struct pp_order {
	pp_record_fn fn;       /* where records go, in order */
	void *ctx;
	struct bytes arena;    /* the queued records, back to back */
	struct pp_queued *q;
	size_t n, cap;
	uint64_t seq;
	uint64_t round_max;    /* the latest time of this round */
	uint64_t limit;        /* the previous round's latest: flushed up to it */
	uint64_t flushed_early;  /* times the cap forced a flush */
};

void pp_order_init(struct pp_order *o, pp_record_fn fn, void *ctx);
void pp_order_free(struct pp_order *o);
/* A pp_record_fn: queue rec (ctx: the pp_order), flushing at FINISHED_ROUND. */
int pp_order_record(void *ctx, const struct pp_input *in, const uint8_t *rec, uint16_t size);
/* Hand on everything queued (the end of an input).  0 or fn's error. */
int pp_order_flush(struct pp_order *o, const struct pp_input *in);
/* The time of rec by in's sample layout, or 0 (exposed for the unit test). */
uint64_t pp_order_time(const struct pp_input *in, const uint8_t *rec, uint16_t size);

#endif
