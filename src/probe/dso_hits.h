/*
 * Which DSOs samples fell in: the address ranges each process mapped (its
 * MMAP/MMAP2 records), looked up with a sample's pid and ip.  perf record
 * learns the same by reading its whole output back at the end; here it is
 * done as the drainer walks the records, for each sample's ip and each
 * frame of its call chain, so it must stay cheap: one hash lookup and a
 * binary search per ip, none when the ip falls in one of the few ranges
 * (or gaps between them) lookups found lately (most do: a chain goes
 * through a few files again and again).  Private to probe (dso_set.c
 * owns one); engine thread only.
 */
#ifndef PS_DSO_HITS_H
#define PS_DSO_HITS_H
#include <stdint.h>

struct dso_entry;
struct dso_hits;

struct dso_hits *dso_hits_new(void);
void dso_hits_free(struct dso_hits *h);
/*
 * pid mapped [start, start + len) of d (pid -1: the kernel's modules) at
 * time (its record's; 0: none, or synthesized at the start).  An older
 * range it overlaps is dropped (the kernel replaced that mapping); when
 * one is newer (its MMAP came through another ring first), the new one
 * is the older mapping and is not kept.
 */
void dso_hits_map(struct dso_hits *h, int32_t pid, uint64_t start, uint64_t len,
		  struct dso_entry *d, uint64_t time);
/* The DSO pid had mapped at ip, or NULL. */
struct dso_entry *dso_hits_find(struct dso_hits *h, int32_t pid, uint64_t ip);
/*
 * A new process pid forked from ppid at time (its FORK's; 0: none): it has
 * its parent's maps as they were then, and keeps those of its own mapped
 * after it (read before the FORK, from another ring).
 */
void dso_hits_fork(struct dso_hits *h, int32_t pid, int32_t ppid, uint64_t time);
/* pid exec'd (its old maps are gone) or exited: forgotten after the next
 * drain pass ends, as other rings may still hold its last samples. */
void dso_hits_drop(struct dso_hits *h, int32_t pid, int exec);
/* A drain pass ended: what was dropped two passes ago is freed. */
void dso_hits_pass_end(struct dso_hits *h);

#endif
