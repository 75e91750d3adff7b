/* Interning byte strings; see pp_intern.h. */
#include <perfsink/pprof_model.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash(const void *p, size_t n)
{
	const unsigned char *c = p;
	uint64_t h = 14695981039346656037ull;
	while (n--)
		h = (h ^ *c++) * 1099511628211ull;
	return h ^ (h >> 29);
}

void pp_intern_init(struct pp_intern *t)
{
	memset(t, 0, sizeof(*t));
}

void pp_intern_free(struct pp_intern *t)
{
	perfsink_kit_buf_free(&t->arena);
	free(t->off);
	free(t->len);
	free(t->hv);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

static int grow_slots(struct pp_intern *t)
{
	uint32_t ns = t->nslot ? t->nslot * 2 : 256, *s = calloc(ns, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->n; i++) {
		uint32_t b = (uint32_t)t->hv[i] & (ns - 1);
		while (s[b])
			b = (b + 1) & (ns - 1);
		s[b] = i + 1;
	}
	free(t->slot);
	t->slot = s;
	t->nslot = ns;
	return 0;
}

static int grow_keys(struct pp_intern *t)
{
	uint32_t cap = t->cap ? t->cap * 2 : 256;
	size_t *o = realloc(t->off, cap * sizeof(*o));
	if (o)
		t->off = o;
	uint32_t *l = o ? realloc(t->len, cap * sizeof(*l)) : NULL;
	if (l)
		t->len = l;
	uint64_t *h = l ? realloc(t->hv, cap * sizeof(*h)) : NULL;
	if (!h)
		return -ENOMEM;
	t->hv = h;
	t->cap = cap;
	return 0;
}

/* The slot where key is, or the empty one where it would go. */
static uint32_t probe(const struct pp_intern *t, const void *key, size_t n, uint64_t h)
{
	uint32_t b = (uint32_t)h & (t->nslot - 1);
	for (; t->slot[b]; b = (b + 1) & (t->nslot - 1)) {
		uint32_t i = t->slot[b] - 1;
		if (t->hv[i] == h && t->len[i] == n && !memcmp(t->arena.data + t->off[i], key, n))
			break;
	}
	return b;
}

int64_t pp_intern_find(const struct pp_intern *t, const void *key, size_t n)
{
	if (!t->nslot)
		return -1;
	uint32_t b = probe(t, key, n, hash(key, n));
	return t->slot[b] ? (int64_t)t->slot[b] - 1 : -1;
}

int64_t pp_intern(struct pp_intern *t, const void *key, size_t n, int *added)
{
	uint64_t h = hash(key, n);
	*added = 0;
	if (n > UINT32_MAX)
		return -EINVAL;
	if ((2 * ((uint64_t)t->n + 1) > t->nslot && grow_slots(t)) || (t->n == t->cap && grow_keys(t)))
		return -ENOMEM;
	uint32_t b = probe(t, key, n, h);
	if (t->slot[b])
		return t->slot[b] - 1;
	size_t at = t->arena.len;
	if (perfsink_kit_buf_append(&t->arena, key, n))
		return -ENOMEM;
	t->off[t->n] = at;
	t->len[t->n] = (uint32_t)n;
	t->hv[t->n] = h;
	t->slot[b] = ++t->n;
	*added = 1;
	return t->n - 1;
}

const void *pp_intern_key(const struct pp_intern *t, uint32_t i, size_t *n)
{
	*n = t->len[i];
	return t->arena.data + t->off[i];
}
