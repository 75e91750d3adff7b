/*
 * The page around the laid-out boxes: the SVG skeleton (title, legend,
 * buttons), the boxes as data for the script, the script.  Names go
 * through flame_escape.  Writes only to its FILE.
 */
#ifndef PS_FLAME_EMIT_H
#define PS_FLAME_EMIT_H
#include <stdio.h>
#include "flame/flame.h"
#include "flame/flame_layout.h"

/* What the title says, beside o's. */
struct flame_page {
	const struct flame_opts *o;
	const char *unit;          /* the value's unit */
	const char *value;         /* the value's type ("samples", "cpu") */
};

/* 0, -ENOMEM, -EIO. */
int flame_emit(FILE *out, const struct flame_page *pg, const struct flame_tree *t, const struct flame_layout *l);

/* The page's script (flame.js, made into flame_js.c at build time). */
extern const char flame_script[];

#endif
