/*
 * Which DSOs a recording's samples fell in, for `fetch --symbols=lazy` on
 * a recording whose build-id list does not say (symbols_marked: made
 * before perfsink record marked call chain frames too): read from the
 * data section of the perf.data fetch wrote.  A first pass
 * takes every executable MMAP/MMAP2 record per process (kernel ones under
 * pid -1, a child's maps found through its FORK to the parent, the times
 * of its execs); a second resolves each sample's IP and call chain
 * entries, in the sample's cpumode and as format/sample_chain.h walks
 * them, to the map its process had there at the sample's time: the
 * newest mapped at or before it and not before an exec that preceded it,
 * else its parent's as they were at its FORK (unless it exec'd).  The
 * records' order does not matter: the drainer writes a sample before its
 * MMAP when another CPU's ring holds that.  A recording whose records
 * carry no time (no TIME or sample_id_all): every map of its process that
 * holds the IP (a superset when it mapped two files there in turn).
 * Any kernel IP needs the kernel's symbol table.
 *
 * Memory: the maps and the names, not the samples.  Single-threaded.
 */
#ifndef PS_FETCH_SAMPLED_H
#define PS_FETCH_SAMPLED_H
#include <stddef.h>
#include <stdint.h>

struct ps_event_desc;
struct sampled;

/*
 * Scan len bytes of records at off in fd, described by ev[0..nr_ev).
 * 0 with *out set, or -ENOTSUP when the samples cannot be resolved (no IP
 * or TID in them, attrs of different layouts without IDENTIFIER,
 * COMPRESSED records: why says which), -ENOMEM, -EIO.
 */
int sampled_scan(int fd, uint64_t off, uint64_t len, const struct ps_event_desc *ev, unsigned nr_ev,
		 struct sampled **out, char *why, size_t n);
/* Whether a sample fell in name (a BUILD_ID entry's file name) or build-id hex. */
int sampled_need(void *s, const char *name, const char *hex);
/* Samples seen, and IPs that fell in no map. */
void sampled_counts(const struct sampled *s, uint64_t *samples, uint64_t *unmapped);
void sampled_free(struct sampled *s);

#endif
