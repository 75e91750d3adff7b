/* The files' symbol cache: its bytes and its LRU trim; see pp_symcache.h. */
#include "pp_symcache.h"

#include "pp_lru.h"

#include <stddef.h>
#include <stdlib.h>

void pp_symcache_add(struct pp_symcache *c, struct pp_dso *d, size_t bytes)
{
	d->sym_bytes = bytes;
	c->st.bytes += bytes;
	c->st.files++;
	c->st.reads++;
}

/* Forget d's state: the next use reads the file again. */
static void evict(struct pp_symcache *c, struct pp_procs *ps, struct pp_dso *d)
{
	ps->free_sym(d->sym);
	c->st.bytes -= d->sym_bytes;
	c->st.files--;
	c->st.evictions++;
	d->sym = NULL;
	d->sym_tried = 0;
	d->sym_bytes = 0;
}

unsigned pp_symcache_trim(struct pp_symcache *c, struct pp_procs *ps, size_t max)
{
	uint32_t n;
	if (c->st.bytes <= max || !ps->free_sym)
		return 0;
	uint32_t *idx = pp_lru_order(ps->dso, ps->dso_keys.n, sizeof(*ps->dso), offsetof(struct pp_dso, sym),
				     offsetof(struct pp_dso, sym_used), &n);
	unsigned dropped = 0;
	for (uint32_t i = 0; i < n && c->st.bytes > max; i++, dropped++)
		evict(c, ps, &ps->dso[idx[i]]);
	free(idx);   /* NULL (no memory to sort): the next window's end tries again */
	return dropped;
}
