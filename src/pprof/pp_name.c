/* Naming locations once an input is read; see pp_name.h. */
#include "pprof/pp_name.h"
#include "pprof/pp_input.h"
#include "pprof/pp_profile.h"

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
		rc = pp_name_location(prof, ps, sy, kernel_bid, e);
	}
	nm->n = 0;
	return rc;
}
