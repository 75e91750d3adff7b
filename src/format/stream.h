/*
 * The engine's side of struct perfsink_stream: what the perf.data format
 * helpers need to write headers and features.  Owned by the engine thread;
 * the helpers only read it.
 */
#ifndef PS_STREAM_H
#define PS_STREAM_H
#include <stdint.h>
#include <perfsink/sink.h>
#include "base/bytes.h"

struct ps_events;
struct ps_machine;
struct ps_bpf_info;
struct ps_clock;

struct perfsink_stream_priv {
	const struct ps_events *events; /* what perf.data says of the events */
	int argc;                 /* perfsink's own command line, for CMDLINE */
	char *const *argv;
	const struct bytes *tracing_data; /* TRACING_DATA blob; len 0 without tracepoints */
	const struct bytes *build_ids;    /* BUILD_ID payload (dso_set); NULL or len 0: none */
	const struct ps_machine *machine; /* HOSTNAME..CPU_TOPOLOGY, NUMA.. facts; NULL: neutral values */
	const struct ps_bpf_info *bpf;    /* BPF_PROG_INFO, BPF_BTF; NULL: no programs */
	const struct ps_clock *clock;     /* CLOCKID, CLOCK_DATA (-k); NULL: not written */
	const struct perfsink_region *pool_regions; /* the pooled buffers (host->pool_regions) */
	unsigned nr_pool_regions;
	/* Updated by the engine as data passes, per segment. */
	uint64_t samples;
	uint64_t first_sample_time, last_sample_time;
};

#endif
