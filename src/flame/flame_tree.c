/* The frame tree; see flame_tree.h. */
#include "flame/flame_tree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint32_t name_hash(const char *s, uint8_t kind)
{
	uint32_t h = 2166136261u ^ kind;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

static uint32_t slot_of(uint32_t parent, uint32_t hash, uint32_t nslot)
{
	return (hash ^ (parent * 2654435761u)) & (nslot - 1);
}

/* Double the table and put every node but the root back. */
static int rehash(struct flame_tree *t)
{
	uint32_t ns = t->nslot * 2;
	uint32_t *s = calloc(ns, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (uint32_t i = 1; i < t->len; i++) {
		uint32_t k = slot_of(t->n[i].parent, t->n[i].hash, ns);
		while (s[k])
			k = (k + 1) & (ns - 1);
		s[k] = i;
	}
	free(t->slot);
	t->slot = s;
	t->nslot = ns;
	return 0;
}

int flame_tree_init(struct flame_tree *t)
{
	memset(t, 0, sizeof(*t));
	t->cap = 1024;
	t->nslot = 2048;
	t->n = calloc(t->cap, sizeof(*t->n));
	t->slot = calloc(t->nslot, sizeof(*t->slot));
	if (!t->n || !t->slot) {
		flame_tree_free(t);
		return -ENOMEM;
	}
	t->n[0].name = "all";
	t->len = 1;
	return 0;
}

void flame_tree_free(struct flame_tree *t)
{
	free(t->n);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

/* The child of parent named f, made when new; 0 on -ENOMEM/-E2BIG (in *rc). */
static uint32_t child(struct flame_tree *t, uint32_t parent, const struct flame_frame *f, int *rc)
{
	uint32_t h = name_hash(f->name, f->kind), k = slot_of(parent, h, t->nslot);
	for (uint32_t i; (i = t->slot[k]); k = (k + 1) & (t->nslot - 1)) {
		const struct flame_node *n = &t->n[i];
		if (n->parent == parent && n->hash == h && n->kind == f->kind && !strcmp(n->name, f->name))
			return i;
	}
	if (t->len >= (1u << 31)) {
		*rc = -E2BIG;
		return 0;
	}
	if (t->len == t->cap) {
		struct flame_node *q = realloc(t->n, (size_t)t->cap * 2 * sizeof(*q));
		if (!q) {
			*rc = -ENOMEM;
			return 0;
		}
		t->n = q;
		t->cap *= 2;
	}
	uint32_t i = t->len++;
	struct flame_node *p = &t->n[parent];
	t->n[i] = (struct flame_node){ .name = f->name, .parent = parent, .sibling = p->child, .hash = h,
				       .depth = p->depth + 1, .kind = f->kind };
	p->child = i;
	t->slot[k] = i;
	if (t->n[i].depth > t->max_depth)
		t->max_depth = t->n[i].depth;
	/* Keep the table at most half full. */
	if (t->len * 2 > t->nslot && (*rc = rehash(t)))
		return 0;
	return i;
}

int flame_tree_add(struct flame_tree *t, const struct flame_frame *f, unsigned n, uint64_t value)
{
	uint32_t at = 0;
	int rc = 0;
	t->n[0].value += value;
	for (unsigned i = 0; i < n; i++) {
		if (!(at = child(t, at, &f[i], &rc)))
			return rc;
		t->n[at].value += value;
	}
	return 0;
}
