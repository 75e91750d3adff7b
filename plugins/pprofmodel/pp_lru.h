/*
 * Least-recently-used order over a table whose entries may hold a cache
 * (a DSO's symbols, a process's unwinder), for the trims that bound them
 * (pp_symcache.c, pp_unwind.c).  Internal to libpprofmodel.  Pure.
 */
#ifndef PS_PPROF_LRU_H
#define PS_PPROF_LRU_H
#include <stddef.h>
#include <stdint.h>

/* The indices of base[0..n) (entries of size bytes) whose pointer at
 * held_off is not NULL, the oldest uint64_t stamp at used_off first: a
 * malloc'd array of *count.  NULL when none is held or out of memory. */
uint32_t *pp_lru_order(const void *base, uint32_t n, size_t size, size_t held_off, size_t used_off,
		       uint32_t *count);

#endif
