/*
 * CLOCKID and CLOCK_DATA (perf record -k): the clock the events use and a
 * pair of reference times, so perf script -F tod can turn sample times
 * into wall-clock times.  Plain data and pure writers in perf 6.1's
 * encoding; the feature table writes them when the stream carries a
 * struct ps_clock (perfsink_stream_priv.clock), the engine fills it.
 */
#ifndef PS_FEAT_CLOCK_H
#define PS_FEAT_CLOCK_H
#include <stdint.h>
#include "base/bytes.h"

struct ps_clock {
	int32_t clockid;          /* the attr's clockid (CLOCK_MONOTONIC, ...) */
	uint64_t clockid_res_ns;  /* clock_getres() of it, in ns */
	uint64_t tod_ns;          /* CLOCK_REALTIME ... */
	uint64_t clockid_ns;      /* ... and clockid, read back to back */
};

/* CLOCKID payload: u64 resolution in ns.  Errors: b->err. */
void feat_clockid_write(struct bytes *b, const struct ps_clock *c);
/* CLOCK_DATA payload: u32 version 1, u32 clockid, u64 tod_ns, u64 clockid_ns. */
void feat_clock_data_write(struct bytes *b, const struct ps_clock *c);

#endif
