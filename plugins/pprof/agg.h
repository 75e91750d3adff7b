/*
 * One window's aggregate: the records of the buffers handed to it, walked
 * once (perfsink_kit_rec_next): MMAP/MMAP2/FORK/COMM/EXIT keep the
 * processes' maps (the shared pp_procs of <perfsink/pprof_symbols.h>,
 * build-ids from buildid.h), each SAMPLE becomes one pprof sample of its
 * stack (leaf first; pp_frames: the call chain, its user part unwound
 * with libdwfl when the sample carries a DWARF stack), values
 * samples/count and, for cpu-clock and task-clock, cpu/nanoseconds (the
 * period), else EVENT/count.  Addresses sit in their mappings with the
 * files' build-ids; symbolize = local also names each new location of the
 * window (pp_name_location: function, file, line; kernel from kallsyms;
 * "[unknown]" when nothing names it), the files' symbols kept across
 * windows, at most symbol_cache_max bytes of them past a window's end
 * (the least recently used dropped then, read again when sampled again;
 * never within a window), and the DWARF unwinders of at most unwind_max
 * processes (the same way).  A process that exited is forgotten at the
 * end of its window.
 * A window over max_memory drops further samples, counted.  The
 * aggregation thread's only.
 */
#ifndef PPROF_AGG_H
#define PPROF_AGG_H
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <perfsink/pprof_model.h>
#include <perfsink/pprof_symbols.h>
#include "buildid.h"

struct agg_attr {
	struct perf_event_attr attr;
	uint64_t *ids;
	uint32_t nids;
};

struct agg {
	struct pp_profile prof;
	int live;                  /* prof is initialised for this window */
	uint32_t window;           /* 1, 2, ...: which window pp_map.mapping_id is of (tag) */
	struct pp_procs procs;     /* across windows */
	struct bid_cache bids;
	struct pp_symbols *sy;     /* names and unwinding's files, across windows */
	int local;                 /* symbolize = local */
	struct agg_attr *attrs;
	unsigned nattrs;
	char *event;               /* the first event's name */
	int clock;                 /* it is cpu-clock or task-clock: values in ns */
	uint64_t max_memory;
	uint64_t symbol_cache_max; /* the files' symbols kept past a window (agg_init: no bound) */
	uint32_t unwind_max;       /* processes' unwinders kept past a window (agg_init: no bound) */
	uint64_t win_samples;      /* this window: samples aggregated, dropped */
	uint64_t win_dropped;
	uint64_t samples, dropped, bad; /* the run: aggregated, dropped, undecodable */
	uint64_t dwarf, unwound;   /* the run: samples with a DWARF stack, unwound past the leaf */
	struct pp_frame *f;        /* one sample's frames, their pcs and locations */
	uint64_t *pcs, *locs;
};

/* local: name locations (symbolize = local); cache_dir: perf's build-id
 * cache (~/.debug) the symbolizer looks in first.  0 or -ENOMEM. */
int agg_init(struct agg *a, uint64_t max_memory, int local, const char *cache_dir);
void agg_free(struct agg *a);
/*
 * The events, from the stream's pipe-mode prologue (host->pipe_header):
 * its HEADER_ATTR records; event is the first event's name.  0, -EINVAL
 * (no HEADER_ATTR), -ENOMEM.
 */
int agg_attrs(struct agg *a, const uint8_t *hdr, size_t len, const char *event);
/* Add the records of one buffer. */
void agg_buffer(struct agg *a, const uint8_t *data, size_t len);
/*
 * Close the window [from_ns, until_ns) (CLOCK_REALTIME): *out (malloc'd)
 * gets the gzipped profile and *n its size, or NULL/0 when the window
 * holds no sample; the next window starts empty.  0, -ENOMEM, -EIO.
 */
int agg_window_end(struct agg *a, int64_t from_ns, int64_t until_ns, uint8_t **out, size_t *n);

#endif
