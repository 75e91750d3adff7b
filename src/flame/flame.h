/*
 * `perfsink flamegraph`: the profile model (pprof/pp_profile.h) drawn as a
 * self-contained interactive flame graph, an SVG file or an HTML page with
 * the SVG inline: no network, the script inline (click to zoom, search with
 * the matched share, reset).  The C side merges the stacks (flame_tree),
 * lays them out (flame_layout) and writes the boxes as data; the page's
 * script (flame.js) draws the boxes wide enough to see.  Single-threaded.
 */
#ifndef PS_FLAME_H
#define PS_FLAME_H
#include <stdint.h>
#include <stdio.h>

struct pp_profile;

struct flame_opts {
	int reverse;               /* icicle: callees at the top, their callers below */
	int svg;                   /* an SVG document; 0: an HTML page */
	const char *host, *event;  /* for the title; may be "" */
	uint64_t samples;          /* samples in the profile */
	uint64_t t0, t1;           /* their time range, ns of the sample clock (0: unknown) */
};

struct flame_stats {
	uint32_t frames;           /* boxes, the root "all" left out */
	uint32_t depth;            /* the deepest stack, in frames */
	uint64_t total;            /* the value the root spans */
	char unit[32];             /* what the value counts ("count", "nanoseconds") */
};

/* Draw prof, weighted by its last value type (what go tool pprof shows by
 * default), on out.  0, -ENOMEM, -EIO (writing out). */
int flame_write(const struct pp_profile *prof, const struct flame_opts *o, FILE *out, struct flame_stats *st);

#endif
