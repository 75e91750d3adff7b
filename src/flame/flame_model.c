/* Profile model to frame tree; see flame_model.h. */
#include "flame/flame_model.h"
#include "pprof/pp_profile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define UNKNOWN "[unknown]"

static int starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

enum flame_kind flame_kind_of(const char *file, const char *name)
{
	int unnamed = !name || !*name || !strcmp(name, UNKNOWN);
	if (!file || !*file)
		return unnamed ? FLAME_UNKNOWN : FLAME_USER;
	if (starts(file, "[kernel") || starts(file, "[guest.kernel"))
		return FLAME_KERNEL;
	const char *base = strrchr(file, '/');
	base = base ? base + 1 : file;
	/* JIT code is rarely named (no perf map read): its map says what it is. */
	if (starts(file, "//anon") || starts(file, "[anon") || starts(file, "/memfd:") || starts(file, "memfd:") ||
	    (starts(file, "/tmp/perf-") && strstr(file, ".map")) || starts(base, "jitted-"))
		return FLAME_JIT;
	return unnamed ? FLAME_UNKNOWN : FLAME_USER;
}

struct walk {
	const struct pp_profile *p;
	struct flame_frame *f;
	size_t nf, cap;
	uint64_t *locs;
	size_t cap_locs;
};

static int push(struct walk *w, const char *name, uint8_t kind)
{
	if (w->nf == w->cap) {
		size_t c = w->cap ? w->cap * 2 : 256;
		struct flame_frame *q = realloc(w->f, c * sizeof(*q));
		if (!q)
			return -ENOMEM;
		w->f = q;
		w->cap = c;
	}
	w->f[w->nf++] = (struct flame_frame){ name, kind };
	return 0;
}

/* Location id's frames, outermost inline first. */
static int location(struct walk *w, uint64_t id)
{
	const struct pp_profile *p = w->p;
	const struct pp_location *l = &p->loc[id - 1];
	const char *file = l->mapping_id ? pp_string_at(p, (uint64_t)p->map[l->mapping_id - 1].file) : NULL;
	if (!l->nlines)
		return push(w, UNKNOWN, FLAME_UNKNOWN);
	for (uint32_t k = l->nlines; k-- > 0;) {
		const struct pp_function *fn = &p->func[p->lines[l->line0 + k].function_id - 1];
		const char *name = pp_string_at(p, (uint64_t)fn->name);
		int rc = push(w, name, (uint8_t)flame_kind_of(file, name));
		if (rc)
			return rc;
	}
	return 0;
}

/* Sample i's frames into w->f, outermost first (or leaf first). */
static int stack(struct walk *w, uint32_t i, int reverse, struct pp_sample_view *v)
{
	pp_sample_get(w->p, i, NULL, NULL, v);
	if (v->nlocs > w->cap_locs) {
		uint64_t *q = realloc(w->locs, v->nlocs * sizeof(*q));
		if (!q)
			return -ENOMEM;
		w->locs = q;
		w->cap_locs = v->nlocs;
	}
	pp_sample_get(w->p, i, w->locs, NULL, v);
	w->nf = 0;
	for (unsigned j = v->nlocs; j-- > 0;) {
		int rc = location(w, w->locs[j]);
		if (rc)
			return rc;
	}
	for (size_t a = 0, b = w->nf; reverse && b > a + 1; a++, b--) {
		struct flame_frame s = w->f[a];
		w->f[a] = w->f[b - 1];
		w->f[b - 1] = s;
	}
	return 0;
}

int flame_from_profile(const struct pp_profile *prof, unsigned vi, int reverse, struct flame_tree *t)
{
	if (vi >= prof->nvalues)
		return -EINVAL;
	struct walk w = { .p = prof };
	int rc = 0;
	for (uint32_t i = 0; !rc && i < prof->samples.n; i++) {
		struct pp_sample_view v;
		rc = stack(&w, i, reverse, &v);
		/* A sample of another event counts 0 here: no frames of width 0. */
		if (!rc && v.values[vi] > 0)
			rc = flame_tree_add(t, w.f, (unsigned)w.nf, (uint64_t)v.values[vi]);
	}
	free(w.f);
	free(w.locs);
	return rc;
}
