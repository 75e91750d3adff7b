/*
 * Interning byte strings: each distinct key gets the next index (0, 1, ...)
 * in the order first seen, so a table of strings, mappings, locations or
 * stacks is deduplicated as it is built.  Keys are copied into one arena.
 * Pure; single-threaded.
 */
#ifndef PS_PPROF_INTERN_H
#define PS_PPROF_INTERN_H
#include <stddef.h>
#include <stdint.h>
#include "base/bytes.h"

struct pp_intern {
	struct bytes arena;  /* the keys, back to back */
	size_t *off;         /* key i starts at arena.p + off[i] ... */
	uint32_t *len;       /* ... and is len[i] bytes */
	uint64_t *hv;        /* its hash (rehashing reads no key) */
	uint32_t n, cap;
	uint32_t *slot;      /* index + 1, open addressing; 0: empty */
	uint32_t nslot;      /* a power of two, at least 2n */
};

void pp_intern_init(struct pp_intern *t);
void pp_intern_free(struct pp_intern *t);
/* The index of key (n bytes), added when new (*added = 1 then); -ENOMEM. */
int64_t pp_intern(struct pp_intern *t, const void *key, size_t n, int *added);
/* The index of key, or -1 when it was never added. */
int64_t pp_intern_find(const struct pp_intern *t, const void *key, size_t n);
/* Key i and its size. */
const void *pp_intern_key(const struct pp_intern *t, uint32_t i, size_t *n);

#endif
