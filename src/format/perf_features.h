/* Payloads of perf.data feature sections (HEADER_* bits, perf 6.1 numbering). */
#ifndef PS_PERF_FEATURES_H
#define PS_PERF_FEATURES_H
#include <stdbool.h>
#include <perfsink/sink.h>
#include "base/bytes.h"

enum {
	FEAT_TRACING_DATA = 1, FEAT_BUILD_ID = 2, FEAT_HOSTNAME = 3, FEAT_OSRELEASE = 4,
	FEAT_VERSION = 5, FEAT_ARCH = 6, FEAT_NRCPUS = 7, FEAT_CPUDESC = 8, FEAT_CPUID = 9,
	FEAT_TOTAL_MEM = 10, FEAT_CMDLINE = 11, FEAT_EVENT_DESC = 12, FEAT_CPU_TOPOLOGY = 13,
	FEAT_NUMA_TOPOLOGY = 14, FEAT_SAMPLE_TIME = 21, FEAT_CLOCKID = 23,
	FEAT_COMPRESSED = 27, FEAT_CLOCK_DATA = 29,
	FEAT_LAST = 32, /* HEADER_LAST_FEATURE in 6.1: end marker in pipe mode */
};

/*
 * Whether feature f is written for this stream in file mode / in pipe mode
 * (pipe: the features perf 6.1 sends as HEADER_FEATURE; never TRACING_DATA,
 * which has its own record).  A pure policy of s and comp, so the header
 * bitmap and the feature index, built in separate calls, always agree.
 * New features are one line in the table in perf_features.c.
 */
bool feature_wanted(int f, const struct perfsink_stream *s,
		    const struct perfsink_compression *comp, bool pipe);
/*
 * Append the payload of feature f (perf 6.1 encoding).  0, -EINVAL when f
 * is not wanted for s, or -ENOMEM; what the system did not report (no
 * /proc/cpuinfo, no sysfs topology; see format/machine.h) is written as a
 * neutral value instead of failing.  Thread-safe: reads s only (machine facts: s->priv->machine).
 */
int feature_write(int f, struct bytes *b, const struct perfsink_stream *s,
		  const struct perfsink_compression *comp);

#endif
