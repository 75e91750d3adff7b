/*
 * The accounting of the files' symbol cache (<perfsink/pprof_symbols.h>:
 * pp_symbols_trim): how much pp_symbols.c holds, the clock its uses are
 * stamped with, and the least-recently-used trim.  Internal to
 * libpprofmodel; the pp_symbols object embeds one.
 */
#ifndef PS_PPROF_SYMCACHE_H
#define PS_PPROF_SYMCACHE_H
#include <perfsink/pprof_symbols.h>

struct pp_symcache {
	uint64_t clock;             /* one tick per use: the LRU order */
	struct pp_symbols_stats st;
};

/* d's symbols are asked for now. */
static inline void pp_symcache_touch(struct pp_symcache *c, struct pp_dso *d)
{
	d->sym_used = ++c->clock;
}

/* d's state was just read, costing bytes. */
void pp_symcache_add(struct pp_symcache *c, struct pp_dso *d, size_t bytes);
/* Free the state of ps's least recently used files until at most max
 * bytes are held; how many were freed. */
unsigned pp_symcache_trim(struct pp_symcache *c, struct pp_procs *ps, size_t max);

#endif
