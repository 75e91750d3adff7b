/*
 * Stacks merged into a tree of frames: each node is one function (name and
 * kind) under its caller (or, reversed, under its callee), its value the sum
 * of the samples that pass through it.  Node 0 is the root ("all").
 * Children are found through one hash table keyed by (parent, kind, name),
 * so adding a stack costs its depth.  Names are not copied: they must live
 * as long as the tree (the profile's string table).  Single-threaded.
 */
#ifndef PS_FLAME_TREE_H
#define PS_FLAME_TREE_H
#include <stdint.h>

enum flame_kind { FLAME_USER, FLAME_KERNEL, FLAME_JIT, FLAME_UNKNOWN, FLAME_KINDS };

struct flame_frame {
	const char *name;
	uint8_t kind;          /* enum flame_kind */
};

struct flame_node {
	const char *name;
	uint64_t value;
	uint32_t parent, child, sibling;  /* child, sibling: 0 = none (0 is the root) */
	uint32_t hash, depth;
	uint8_t kind;
};

struct flame_tree {
	struct flame_node *n;
	uint32_t len, cap;
	uint32_t *slot;        /* open addressing: node index, 0 = empty */
	uint32_t nslot;        /* a power of two */
	uint32_t max_depth;
};

/* 0 or -ENOMEM. */
int flame_tree_init(struct flame_tree *t);
void flame_tree_free(struct flame_tree *t);
/* Add value to the path f[0..n) (f[0] under the root) and every frame on
 * it.  0, -ENOMEM, -E2BIG (past 2^31 nodes). */
int flame_tree_add(struct flame_tree *t, const struct flame_frame *f, unsigned n, uint64_t value);

#endif
