/*
 * Sample hits whose file was not mapped yet.  The drainer walks one ring
 * after another, so a sample read from CPU 1's ring can come before the
 * MMAP of its mapping (or the FORK that gave its process its parent's
 * maps) that CPU 0's ring holds: read later in the same pass, or in the
 * next one when CPU 0 wrote it after its ring was read.  Such a hit
 * (pid, ip, time) waits here for the records that map its ip, and is
 * settled when its window ends or the BUILD_IDs are written.
 *
 * Which mapping is the hit's: the newest one of its process, mapped at or
 * before the sample's time and not before an exec of that process that
 * came before the sample (the exec replaced its maps).  Records carry
 * their time (sample_id); a record without one (time 0, the maps
 * synthesized at the start) is older than any sample.
 *
 * Bounded: at most DSO_PENDING_MAX hits, one per (pid, ip) (a hit seen
 * again keeps the newer time and a fresh window); past that a hit is
 * counted (dso_pending_stats) and dropped.  Private to probe (dso_set.c
 * owns one); engine thread only.
 */
#ifndef PS_DSO_PENDING_H
#define PS_DSO_PENDING_H
#include <stdint.h>

#define DSO_PENDING_MAX 4096
/* Passes a hit waits, the one it was read in included: a record written
 * before the sample is in the ring's next read at the latest. */
#define DSO_PENDING_PASSES 2

struct dso_entry;
struct dso_pending;

/* Marks d as sampled (dso_set's). */
typedef void dso_pending_mark_fn(struct dso_entry *d);
/* The DSO arg says pid has at ip now, or NULL. */
typedef struct dso_entry *dso_pending_find_fn(void *arg, uint64_t ip);

struct dso_pending_stats {
	uint64_t kept;        /* hits that waited (one per pid, ip) */
	uint64_t resolved;    /* of those, found in a mapping that came later */
	uint64_t unresolved;  /* of those, in no mapping by the end of their window */
	uint64_t dropped;     /* hits not kept: the bound was reached */
};

/* NULL when out of memory. */
struct dso_pending *dso_pending_new(void);
void dso_pending_free(struct dso_pending *p);
/* Keep the hit; 0, or -ENOSPC when the bound is reached (counted). */
int dso_pending_add(struct dso_pending *p, int32_t pid, uint64_t ip, uint64_t time);
/*
 * pid has new maps since time t (an MMAP of [start, end), a FORK's copy
 * of its parent's): find says which DSO each of pid's waiting hits falls
 * in now; a hit sampled at or after t takes it when it is the newest such.
 */
void dso_pending_offer(struct dso_pending *p, int32_t pid, uint64_t t, dso_pending_find_fn *find,
		       void *arg);
/* Whether pid has hits waiting (cheap: to skip building an offer). */
int dso_pending_has(const struct dso_pending *p, int32_t pid);
/* pid exec'd at t: what it had mapped before is not its later hits'. */
void dso_pending_exec(struct dso_pending *p, int32_t pid, uint64_t t);
/*
 * A drain pass ended: hits whose window is over are marked (mark) when a
 * mapping was found, counted unresolved otherwise, and forgotten.
 */
void dso_pending_pass_end(struct dso_pending *p, dso_pending_mark_fn *mark);
/* Mark the DSOs found so far for every hit still waiting (before BUILD_IDs are written). */
void dso_pending_settle(struct dso_pending *p, dso_pending_mark_fn *mark);
void dso_pending_stats(const struct dso_pending *p, struct dso_pending_stats *out);

#endif
