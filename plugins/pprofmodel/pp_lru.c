/* Least-recently-used order; see pp_lru.h. */
#include "pp_lru.h"

#include <stdlib.h>
#include <string.h>

struct table {
	const char *base;
	size_t size, used_off;
};

static uint64_t stamp(const struct table *t, uint32_t i)
{
	uint64_t v;
	memcpy(&v, t->base + (size_t)i * t->size + t->used_off, sizeof(v));
	return v;
}

static int by_use(const void *a, const void *b, void *arg)
{
	uint64_t x = stamp(arg, *(const uint32_t *)a), y = stamp(arg, *(const uint32_t *)b);
	return x < y ? -1 : x > y;
}

uint32_t *pp_lru_order(const void *base, uint32_t n, size_t size, size_t held_off, size_t used_off,
		       uint32_t *count)
{
	struct table t = { base, size, used_off };
	uint32_t k = 0, *idx = n ? malloc(n * sizeof(*idx)) : NULL;
	*count = 0;
	if (!idx)
		return NULL;
	for (uint32_t i = 0; i < n; i++) {
		void *held;
		memcpy(&held, t.base + (size_t)i * size + held_off, sizeof(held));
		if (held)
			idx[k++] = i;
	}
	qsort_r(idx, k, sizeof(*idx), by_use, &t);
	*count = k;
	return idx;
}
