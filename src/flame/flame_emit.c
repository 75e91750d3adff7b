/* The flame graph's page; see flame_emit.h. */
#include "flame/flame_emit.h"
#include "flame/flame_escape.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 1200
#define FRAME_H 16
#define TOP 76
#define BOTTOM 30

static const char *const kind_names[FLAME_KINDS] = { "user", "kernel", "JIT", "unknown" };
/* The legend's swatches; the script shades each frame around its kind's hue. */
static const char *const kind_fill[FLAME_KINDS] = { "hsl(11,78%,59%)", "hsl(47,85%,59%)", "hsl(115,50%,59%)", "hsl(0,0%,71%)" };

static const char style[] =
	"text{font-family:Verdana,sans-serif;font-size:12px;fill:#000}"
	"#title{font-size:17px}#subtitle{font-size:12px;fill:#444}"
	".btn{cursor:pointer;fill:#0550ae;text-decoration:underline}"
	".f{cursor:pointer}.f text{pointer-events:none;font-size:11px}.f:hover rect{stroke:#000;stroke-width:.5}"
	".anc rect{opacity:.55}";

/* One name, escaped one way or the other, onto out. */
static void put(FILE *out, struct bytes *b, const char *s, int js)
{
	b->len = 0;
	if (js)
		flame_js(b, s);
	else
		flame_xml(b, s);
	if (!b->err)
		fwrite(b->p, 1, b->len, out);
}

static void seconds(char *buf, size_t n, uint64_t ns)
{
	snprintf(buf, n, "%" PRIu64 ".%06" PRIu64, ns / 1000000000u, ns % 1000000000u / 1000u);
}

/* "host H · event E · N samples · T0 - T1 s (D s)", escaped. */
static void subtitle(FILE *out, struct bytes *b, const struct flame_opts *o)
{
	if (o->host && *o->host) {
		fputs("host ", out);
		put(out, b, o->host, 0);
		fputs(" \xc2\xb7 ", out);
	}
	if (o->event && *o->event) {
		fputs("event ", out);
		put(out, b, o->event, 0);
		fputs(" \xc2\xb7 ", out);
	}
	fprintf(out, "%" PRIu64 " samples", o->samples);
	if (o->t1 >= o->t0 && o->t1) {
		char a[32], z[32];
		seconds(a, sizeof(a), o->t0);
		seconds(z, sizeof(z), o->t1);
		fprintf(out, " \xc2\xb7 time %s \xe2\x80\x93 %s s (%.3f s)", a, z, (double)(o->t1 - o->t0) / 1e9);
	}
}

static void skeleton(FILE *out, struct bytes *b, const struct flame_page *pg, uint32_t frames, int height)
{
	const struct flame_opts *o = pg->o;
	fprintf(out, "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" id=\"flame\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" data-frames=\"%" PRIu32 "\" data-reverse=\"%d\">\n<style>%s</style>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fafafa\"/>\n",
		WIDTH, height, WIDTH, height, frames, !!o->reverse, style);
	fprintf(out, "<text id=\"title\" x=\"%d\" y=\"22\" text-anchor=\"middle\">%s</text>\n", WIDTH / 2,
		o->reverse ? "Icicle graph (callers below their callees)" : "Flame graph");
	fprintf(out, "<text id=\"subtitle\" x=\"%d\" y=\"40\" text-anchor=\"middle\">", WIDTH / 2);
	subtitle(out, b, o);
	fputs("</text>\n", out);
	fputs("<text id=\"reset\" class=\"btn\" x=\"10\" y=\"22\">Reset</text>\n", out);
	fprintf(out, "<text id=\"search\" class=\"btn\" x=\"%d\" y=\"22\" text-anchor=\"end\">Search</text>\n",
		WIDTH - 10);
	fprintf(out, "<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"></text>\n", WIDTH - 10, height - 10);
	fprintf(out, "<text id=\"details\" x=\"10\" y=\"%d\"> </text>\n", height - 10);
	for (int k = 0; k < FLAME_KINDS; k++)
		fprintf(out, "<rect x=\"%d\" y=\"50\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			"<text x=\"%d\" y=\"60\">%s</text>\n", WIDTH / 2 - 160 + 90 * k, kind_fill[k],
			WIDTH / 2 - 144 + 90 * k, kind_names[k]);
	fputs("<g id=\"frames\"></g>\n", out);
}

/* Names, each once: a small open-addressing table from name to index. */
struct names {
	const char **name;
	uint32_t *slot, nslot, n;
};

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/* The index of s; (uint32_t)-1 on -ENOMEM.  Room: nslot > 2 * names. */
static uint32_t name_index(struct names *nm, const char *s)
{
	uint32_t k = hash(s) & (nm->nslot - 1);
	for (uint32_t i; (i = nm->slot[k]); k = (k + 1) & (nm->nslot - 1))
		if (!strcmp(nm->name[i - 1], s))
			return i - 1;
	nm->name[nm->n] = s;
	nm->slot[k] = ++nm->n;
	return nm->n - 1;
}

static int data(FILE *out, struct bytes *b, const struct flame_page *pg, const struct flame_tree *t,
		const struct flame_layout *l, int height)
{
	struct names nm = { .nslot = 16 };
	while (nm.nslot < 2 * t->len + 2)
		nm.nslot *= 2;
	nm.name = malloc(t->len * sizeof(*nm.name));
	nm.slot = calloc(nm.nslot, sizeof(*nm.slot));
	uint32_t *ni = malloc(l->n * sizeof(*ni));
	if (!nm.name || !nm.slot || !ni) {
		free(nm.name);
		free(nm.slot);
		free(ni);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < l->n; i++)
		ni[i] = name_index(&nm, t->n[l->b[i].node].name);
	fprintf(out, "var FLAME={w:%d,fh:%d,top:%d,bottom:%d,h:%d,reverse:%d,unit:", WIDTH, FRAME_H, TOP, BOTTOM,
		height, !!pg->o->reverse);
	put(out, b, pg->unit, 1);
	fputs(",names:[", out);
	for (uint32_t i = 0; i < nm.n; i++) {
		put(out, b, nm.name[i], 1);
		fputs(i + 1 < nm.n ? (i % 16 == 15 ? ",\n" : ",") : "],\n", out);
	}
	/* depth, x, width, name, kind per box. */
	fputs("frames:[", out);
	for (uint32_t i = 0; i < l->n; i++) {
		const struct flame_node *n = &t->n[l->b[i].node];
		fprintf(out, "%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu32 ",%u%s", l->b[i].depth, l->b[i].x, n->value,
			ni[i], n->kind, i + 1 < l->n ? (i % 8 == 7 ? ",\n" : ",") : "");
	}
	fputs("]};\n", out);
	free(nm.name);
	free(nm.slot);
	free(ni);
	return 0;
}

int flame_emit(FILE *out, const struct flame_page *pg, const struct flame_tree *t, const struct flame_layout *l)
{
	struct bytes b;
	bytes_init(&b);
	int height = TOP + (int)(t->max_depth + 1) * FRAME_H + BOTTOM;
	if (pg->o->svg) {
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", out);
	} else {
		fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>", out);
		fputs(pg->o->reverse ? "Icicle graph" : "Flame graph", out);
		if (pg->o->host && *pg->o->host) {
			fputs(" \xe2\x80\x94 ", out);
			put(out, &b, pg->o->host, 0);
		}
		fputs("</title></head>\n<body style=\"margin:0\">\n", out);
	}
	skeleton(out, &b, pg, l->n ? l->n - 1 : 0, height);
	/* In SVG, the script is XML: a CDATA section (the data has no "]]>":
	 * flame_js writes > as \u003e).  In HTML it is raw text up to
	 * "</script", which flame_js never writes either. */
	fputs(pg->o->svg ? "<script type=\"text/ecmascript\"><![CDATA[\n" : "</svg>\n<script>\n", out);
	int rc = data(out, &b, pg, t, l, height);
	fputs(flame_script, out);
	fputs(pg->o->svg ? "]]></script>\n</svg>\n" : "</script>\n</body></html>\n", out);
	rc = rc ? rc : b.err ? b.err : 0;
	bytes_free(&b);
	return rc;
}
