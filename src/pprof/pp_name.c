/* Naming locations once an input is read; see pp_name.h. */
#include "pprof/pp_name.h"
#include "pprof/pp_demangle.h"
#include "pprof/pp_input.h"
#include "pprof/pp_procs.h"
#include "pprof/pp_profile.h"
#include "pprof/pp_symbols.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pp_name_add(struct pp_name *nm, const struct pp_pending *e)
{
	if (nm->n == nm->cap) {
		size_t cap = nm->cap ? nm->cap * 2 : 1024;
		struct pp_pending *p = realloc(nm->p, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		nm->p = p;
		nm->cap = cap;
	}
	nm->p[nm->n++] = *e;
	return 0;
}

void pp_name_free(struct pp_name *nm)
{
	free(nm->p);
	memset(nm, 0, sizeof(*nm));
}

/* The build-ids the input named only now: to its DSOs that had none (a
 * file not found without it is looked for again) and their mappings. */
static void learn_buildids(struct pp_procs *ps, const struct pp_input *in)
{
	for (uint32_t i = 0; i < ps->dso_keys.n; i++) {
		struct pp_dso *d = &ps->dso[i];
		const char *b = d->bid[0] ? NULL : pp_input_buildid(in, d->name);
		if (!b)
			continue;
		snprintf(d->bid, sizeof(d->bid), "%s", b);
		if (!d->sym)
			d->sym_tried = 0;
	}
}

/* Fill a mapping's empty build-id from its DSO's. */
static int mapping_bid(struct pp_profile *prof, uint64_t mid, const char *bid)
{
	struct pp_mapping *m = &prof->map[mid - 1];
	if (!bid[0] || pp_string_at(prof, (uint64_t)m->build_id)[0])
		return 0;
	int64_t s = pp_string(prof, bid);
	if (s < 0)
		return (int)s;
	m->build_id = s;
	return 0;
}

static int name_one(struct pp_profile *prof, struct pp_procs *ps, struct pp_symbols *sy, const char *kbid,
		    const struct pp_pending *e)
{
	struct pp_sym sym = { 0 };
	uint64_t mid = prof->loc[e->loc - 1].mapping_id;
	if (e->kind == PP_NAME_KERNEL) {
		pp_symbols_kernel(sy, kbid, e->addr, &sym);
	} else if (e->kind == PP_NAME_USER) {
		struct pp_dso *d = &ps->dso[e->dso];
		struct pp_map m = { e->start, 0, e->pgoff, e->dso, 0 };
		pp_symbols_user(sy, d, &m, e->addr, e->caller, &sym);
		int rc = mid ? mapping_bid(prof, mid, d->bid) : 0;
		if (rc)
			return rc;
	}
	char dm[1024];
	const char *name = sym.name && !pp_demangle(sym.name, dm, sizeof(dm)) ? dm : sym.name;
	int64_t fn = pp_function(prof, name ? name : PP_UNKNOWN, sym.name, sym.file);
	if (fn < 0)
		return (int)fn;
	struct pp_line line = { (uint64_t)fn, sym.line };
	return pp_location_set_lines(prof, e->loc, &line, 1);
}

int pp_name_run(struct pp_name *nm, struct pp_profile *prof, struct pp_procs *ps, struct pp_symbols *sy,
		const struct pp_input *in, char *kernel_bid)
{
	const char *kb = pp_input_buildid(in, "[kernel.kallsyms]");
	if (!kernel_bid[0] && kb)
		snprintf(kernel_bid, 41, "%s", kb);
	learn_buildids(ps, in);
	int rc = 0;
	for (size_t i = 0; !rc && i < nm->n; i++) {
		const struct pp_pending *e = &nm->p[i];
		rc = name_one(prof, ps, sy, kernel_bid, e);
		if (!rc && e->kind == PP_NAME_KERNEL)
			rc = mapping_bid(prof, prof->loc[e->loc - 1].mapping_id, kernel_bid);
	}
	nm->n = 0;
	return rc;
}
