/* Binary search over arrays sorted by a uint64_t field (addresses). Pure. */
#ifndef PS_PPROF_SEARCH_H
#define PS_PPROF_SEARCH_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* How many of base[0..n) (elements of size bytes, sorted by the uint64_t
 * at key_off) have a key <= key: the one at or before key is that minus 1. */
static inline size_t pp_upper(const void *base, size_t n, size_t size, size_t key_off, uint64_t key)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		uint64_t k;
		memcpy(&k, (const char *)base + mid * size + key_off, sizeof(k));
		if (k <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
