/* A sample's frames and a location's name; see <perfsink/pprof_symbols.h>. */
#include <perfsink/pprof_symbols.h>

#include <string.h>

unsigned pp_frames(struct pp_procs *ps, struct pp_proc *p, struct pp_symbols *sy, const struct pp_sample *s,
		   struct pp_frame *f, uint64_t *pcs, unsigned max, int *dwarf)
{
	unsigned n = 0;
	int kernel = s->cpumode == PERF_RECORD_MISC_KERNEL, dw = s->regs && s->stack_size;
	*dwarf = 0;
	for (uint64_t i = 0; i < s->nr_chain && n < max; i++) {
		uint64_t e = pp_sample_chain(s, i);
		if (e >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = e == (uint64_t)PERF_CONTEXT_KERNEL || e == (uint64_t)PERF_CONTEXT_GUEST_KERNEL;
			continue;
		}
		/* With a DWARF stack the chain's user part is its leaf only: unwound below. */
		if (!(dw && !kernel))
			f[n++] = (struct pp_frame){ e, kernel };
	}
	if (dw) {
		unsigned m = p ? pp_unwind(ps, p, sy, s, pcs, max - n) : 0;
		*dwarf = 1 + (m > 1);
		for (unsigned i = 0; i < m; i++)
			f[n++] = (struct pp_frame){ pcs[i], 0 };
		if (!m && s->cpumode != PERF_RECORD_MISC_KERNEL && n < max)
			f[n++] = (struct pp_frame){ s->ip, 0 };
	}
	if (!n && max)
		f[n++] = (struct pp_frame){ s->ip, s->cpumode == PERF_RECORD_MISC_KERNEL };
	return n;
}

struct pp_pending pp_pending_of(uint64_t loc, const struct pp_frame *f, const struct pp_map *m, unsigned i)
{
	return (struct pp_pending){ loc, f->addr, m ? m->start : 0, m ? m->pgoff : 0, m ? m->dso : 0,
				    f->kernel ? PP_NAME_KERNEL : m ? PP_NAME_USER : PP_NAME_NONE, i > 0 };
}

/* Fill a mapping's empty build-id. */
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

int pp_name_location(struct pp_profile *prof, struct pp_procs *ps, struct pp_symbols *sy,
		     const char *kernel_bid, const struct pp_pending *e)
{
	struct pp_sym sym = { 0 };
	uint64_t mid = prof->loc[e->loc - 1].mapping_id;
	const char *bid = "";
	if (e->kind == PP_NAME_KERNEL) {
		pp_symbols_kernel(sy, kernel_bid, e->addr, &sym);
		bid = kernel_bid;
	} else if (e->kind == PP_NAME_USER) {
		struct pp_dso *d = &ps->dso[e->dso];
		struct pp_map m = { e->start, 0, e->pgoff, e->dso, 0, 0 };
		pp_symbols_user(sy, d, &m, e->addr, e->caller, &sym);
		bid = d->bid;
	}
	int rc = mid ? mapping_bid(prof, mid, bid) : 0;
	if (rc)
		return rc;
	char dm[1024];
	const char *name = sym.name && !pp_demangle(sym.name, dm, sizeof(dm)) ? dm : sym.name;
	int64_t fn = pp_function(prof, name ? name : PP_UNKNOWN, sym.name, sym.file);
	if (fn < 0)
		return (int)fn;
	struct pp_line line = { (uint64_t)fn, sym.line };
	return pp_location_set_lines(prof, e->loc, &line, 1);
}
