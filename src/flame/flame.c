/* perfsink flamegraph's driver: model -> tree -> layout -> page; see flame.h. */
#include "flame/flame.h"
#include "flame/flame_emit.h"
#include "flame/flame_layout.h"
#include "flame/flame_model.h"
#include "flame/flame_tree.h"
#include "pprof/pp_profile.h"

#include <errno.h>
#include <string.h>

int flame_write(const struct pp_profile *prof, const struct flame_opts *o, FILE *out, struct flame_stats *st)
{
	struct flame_tree t;
	struct flame_layout l = { 0 };
	unsigned vi = prof->nvalues ? prof->nvalues - 1 : 0;
	int rc = flame_tree_init(&t);
	memset(st, 0, sizeof(*st));
	snprintf(st->unit, sizeof(st->unit), "%s", prof->nvalues ? pp_string_at(prof, (uint64_t)prof->vtype[vi][1]) : "count");
	if (!rc && prof->nvalues)
		rc = flame_from_profile(prof, vi, o->reverse, &t);
	if (!rc)
		rc = flame_layout(&t, &l);
	if (!rc) {
		struct flame_page pg = { o, st->unit,
					 prof->nvalues ? pp_string_at(prof, (uint64_t)prof->vtype[vi][0]) : "samples" };
		rc = flame_emit(out, &pg, &t, &l);
		st->frames = l.n ? l.n - 1 : 0;
		st->depth = t.max_depth;
		st->total = t.n[0].value;
	}
	if (!rc && (fflush(out) || ferror(out)))
		rc = -EIO;
	flame_layout_free(&l);
	flame_tree_free(&t);
	return rc;
}
