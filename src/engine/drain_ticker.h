/*
 * The status line while a sink drains.  At the end of a run the engine
 * thread waits in each network sink's drain() (up to its drain_timeout);
 * meanwhile a thread of this ticker goes on giving the observer progress,
 * about every progress_ms: the run's counters as they were at the stop,
 * and the draining instance's stats read again when its ABI allows it
 * (sink.h 1.7, THREADS), so the status line counts the drain down.
 */
#ifndef PS_DRAIN_TICKER_H
#define PS_DRAIN_TICKER_H
#include <stdint.h>
#include "engine/engine.h"
#include "engine/sinkset.h"

struct drain_ticker;

/*
 * From the engine thread, before instance i's drain(): ticks with a copy of
 * frozen (its sinks[] too, without their outputs, which drain() may
 * change), its drain_secs counted from stop_ns.  NULL when obs has no
 * progress or the thread cannot start: then nothing ticks.
 */
struct drain_ticker *drain_ticker_start(const struct record_observer *obs,
					const struct record_report *frozen, int64_t stop_ns,
					struct sink_inst *si, unsigned i);
/* From the engine thread after drain() returned: the thread ends; t is freed. */
void drain_ticker_stop(struct drain_ticker *t);

#endif
