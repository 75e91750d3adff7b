/*
 * The tree laid out as a flame graph is drawn: every frame a box at its
 * depth, starting at x (in value units, the root spanning [0, total)), its
 * children side by side inside it, sorted by name so two graphs of one
 * program line up.  Boxes come in depth-first order, so a frame's
 * descendants follow it and end at the next box of its depth or less
 * (what the page's search relies on).  Pure.
 */
#ifndef PS_FLAME_LAYOUT_H
#define PS_FLAME_LAYOUT_H
#include <stdint.h>
#include "flame/flame_tree.h"

struct flame_box {
	uint32_t node;         /* index in the tree */
	uint32_t depth;        /* 0: the root */
	uint64_t x;
};

struct flame_layout {
	struct flame_box *b;   /* b[0] is the root */
	uint32_t n;
};

/* Lay t out (its child lists are put in name order).  0 or -ENOMEM. */
int flame_layout(struct flame_tree *t, struct flame_layout *l);
void flame_layout_free(struct flame_layout *l);

#endif
