/* One window's aggregate for the pprof sink; see agg.h. */
#include "agg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfsink/kit.h>

#define MAX_FRAMES 1024   /* perf's own limit is 127 unless raised (kernel.perf_event_max_stack) */

static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

int agg_init(struct agg *a, uint64_t max_memory, int local, const char *cache_dir)
{
	memset(a, 0, sizeof(*a));
	pp_procs_init(&a->procs);
	bid_cache_init(&a->bids);
	a->procs.free_sym = pp_symbols_dso_free;
	a->procs.free_unwind = pp_unwind_free;
	a->procs.buildid = bid_cache_get;
	a->procs.buildid_arg = &a->bids;
	a->max_memory = max_memory;
	a->symbol_cache_max = UINT64_MAX;
	a->unwind_max = UINT32_MAX;
	a->local = local;
	a->f = malloc(MAX_FRAMES * sizeof(*a->f));
	a->pcs = malloc(MAX_FRAMES * sizeof(*a->pcs));
	a->locs = malloc(MAX_FRAMES * sizeof(*a->locs));
	if (!a->f || !a->pcs || !a->locs || pp_symbols_new(&a->sy, cache_dir)) {
		agg_free(a);
		return -ENOMEM;
	}
	return 0;
}

void agg_free(struct agg *a)
{
	if (a->live)
		pp_profile_free(&a->prof);
	pp_procs_free(&a->procs);
	pp_symbols_free(a->sy);
	bid_cache_free(&a->bids);
	free(a->f);
	free(a->pcs);
	for (unsigned i = 0; i < a->nattrs; i++)
		free(a->attrs[i].ids);
	free(a->attrs);
	free(a->event);
	free(a->locs);
	memset(a, 0, sizeof(*a));
}

static int add_attr(struct agg *a, const struct perfsink_kit_rec *r)
{
	if (r->size < 8 + 8)
		return 0;
	uint32_t asz = rd32(r->p + 8 + 4);
	if (asz < 64 || 8 + (size_t)asz > r->size)
		return 0;
	struct agg_attr *v = realloc(a->attrs, (a->nattrs + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	a->attrs = v;
	struct agg_attr *x = &v[a->nattrs];
	memset(x, 0, sizeof(*x));
	memcpy(&x->attr, r->p + 8, asz < sizeof(x->attr) ? asz : sizeof(x->attr));
	x->nids = (r->size - 8 - asz) / 8;
	if (x->nids && !(x->ids = malloc(x->nids * sizeof(*x->ids))))
		return -ENOMEM;
	memcpy(x->ids, r->p + 8 + asz, x->nids * sizeof(*x->ids));
	a->nattrs++;
	return 0;
}

int agg_attrs(struct agg *a, const uint8_t *hdr, size_t len, const char *event)
{
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec r;
	for (unsigned i = 0; i < a->nattrs; i++)
		free(a->attrs[i].ids);
	a->nattrs = 0;
	perfsink_kit_rec_iter_init(&it, hdr, len);
	it.off = len < 16 ? len : 16;   /* after the pipe header */
	it.payload = 1;
	while (perfsink_kit_rec_next(&it, &r))
		if (r.type == PERFSINK_KIT_REC_HEADER_ATTR && add_attr(a, &r))
			return -ENOMEM;
	free(a->event);
	a->event = strdup(event ? event : "events");
	if (!a->event)
		return -ENOMEM;
	a->clock = !strncmp(a->event, "cpu-clock", 9) || !strncmp(a->event, "task-clock", 10);
	return a->nattrs ? 0 : -EINVAL;
}

/* The attr of sample r: the only one, else the one whose ids hold its id. */
static const struct perf_event_attr *attr_of(const struct agg *a, const struct perfsink_kit_rec *r)
{
	if (a->nattrs == 1)
		return &a->attrs[0].attr;
	if (!a->nattrs)
		return NULL;
	uint64_t id = pp_sample_id(r->p, r->size, a->attrs[0].attr.sample_type);
	for (unsigned i = 0; i < a->nattrs; i++)
		for (uint32_t j = 0; j < a->attrs[i].nids; j++)
			if (a->attrs[i].ids[j] == id)
				return &a->attrs[i].attr;
	return NULL;
}

/* The window's profile with its value types, made on its first sample. */
static int live(struct agg *a)
{
	if (a->live)
		return 0;
	if (pp_profile_init(&a->prof))
		return -ENOMEM;
	a->live = 1;
	a->window++;
	const struct perf_event_attr *at = &a->attrs[0].attr;
	int64_t period = at->freq ? (at->sample_freq ? 1000000000 / (int64_t)at->sample_freq : 0)
				  : (int64_t)at->sample_period;
	if (pp_value_type(&a->prof, "samples", "count") < 0)
		return -ENOMEM;
	if (a->clock)
		return pp_value_type(&a->prof, "cpu", "nanoseconds") < 0 ||
		       pp_period(&a->prof, "cpu", "nanoseconds", period) ? -ENOMEM : 0;
	return pp_value_type(&a->prof, a->event, "count") < 0 ||
	       pp_period(&a->prof, a->event, "count", at->freq ? 0 : period) ? -ENOMEM : 0;
}

/* The window's Mapping of m, made on its first use in this window. */
static int64_t mapping(struct agg *a, struct pp_map *m)
{
	if (m->tag == a->window && m->mapping_id)
		return m->mapping_id;
	const struct pp_dso *d = &a->procs.dso[m->dso];
	int64_t id = pp_mapping(&a->prof, m->start, m->end, m->pgoff, d->name, d->bid);
	if (id > 0) {
		m->tag = a->window;
		m->mapping_id = id;
	}
	return id;
}

/* The location of frame i (of process p, or the kernel k), made when new
 * and then named when symbolize = local.  Its id or a negative errno. */
static int64_t location(struct agg *a, struct pp_proc *p, struct pp_proc *k, unsigned i)
{
	const struct pp_frame *f = &a->f[i];
	struct pp_proc *in = f->kernel ? k : p;
	struct pp_map *m = in ? pp_proc_find(in, f->addr) : NULL;
	int64_t mid = m ? mapping(a, m) : 0;
	if (mid < 0)
		return mid;
	uint64_t id = pp_location_find(&a->prof, (uint64_t)mid, f->addr);
	if (id)
		return (int64_t)id;
	int64_t loc = pp_location_add(&a->prof, (uint64_t)mid, f->addr, NULL, 0);
	if (loc < 0 || !a->local)
		return loc;
	struct pp_pending e = pp_pending_of((uint64_t)loc, f, m, i);
	int rc = pp_name_location(&a->prof, &a->procs, a->sy, "", &e);
	return rc ? rc : loc;
}

/* The stack of s, leaf first, into a->locs.  The count, or a negative errno. */
static int stack(struct agg *a, const struct pp_sample *s)
{
	/* The kernel's process first: making it may move the one of s. */
	struct pp_proc *k = pp_procs_get(&a->procs, PP_KERNEL_PID);
	struct pp_proc *p = k ? pp_procs_get(&a->procs, s->pid) : NULL;
	int dwarf;
	if (!p || !(k = pp_procs_get(&a->procs, PP_KERNEL_PID)))
		return -ENOMEM;
	unsigned n = pp_frames(&a->procs, p, a->sy, s, a->f, a->pcs, MAX_FRAMES, &dwarf);
	a->dwarf += dwarf > 0;
	a->unwound += dwarf > 1;
	for (unsigned i = 0; i < n; i++) {
		int64_t l = location(a, p, k, i);
		if (l < 0)
			return (int)l;
		a->locs[i] = (uint64_t)l;
	}
	return (int)n;
}

static void on_sample(struct agg *a, const struct perfsink_kit_rec *r)
{
	const struct perf_event_attr *at = attr_of(a, r);
	struct pp_sample s;
	if (!at || pp_sample_decode(r->p, r->size, at, &s)) {
		a->bad++;
		return;
	}
	if (live(a) || pp_profile_bytes(&a->prof) + pp_procs_bytes(&a->procs) + bid_cache_bytes(&a->bids) >
			       a->max_memory) {
		a->win_dropped++;   /* the budget is spent: counted, reported at the window's end */
		return;
	}
	int n = stack(a, &s);
	int64_t v[2] = { 1, (int64_t)s.period };
	if (n < 0 || pp_sample_add(&a->prof, a->locs, (unsigned)n, NULL, 0, v)) {
		a->win_dropped++;
		return;
	}
	a->win_samples++;
}

void agg_buffer(struct agg *a, const uint8_t *data, size_t len)
{
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec r;
	perfsink_kit_rec_iter_init(&it, data, len);
	while (perfsink_kit_rec_next(&it, &r)) {
		switch (r.type) {
		case PERF_RECORD_SAMPLE:
			on_sample(a, &r);
			break;
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2:
		case PERF_RECORD_FORK:
		case PERF_RECORD_COMM:
		case PERF_RECORD_EXIT:
			/* Out of memory: a map missing, its frames in no mapping (never dropped). */
			(void)pp_procs_record(&a->procs, r.p, (uint16_t)r.size);
			break;
		}
	}
}

/* Encode the profile, gzipped, into a malloc'd buffer. */
static int encode(const struct pp_profile *p, uint8_t **out, size_t *n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	int rc = pp_write(p, f);
	if (fclose(f) && !rc)
		rc = -ENOMEM;
	if (rc) {
		free(buf);
		return rc;
	}
	*out = (uint8_t *)buf;
	*n = len;
	return 0;
}

int agg_window_end(struct agg *a, int64_t from_ns, int64_t until_ns, uint8_t **out, size_t *n)
{
	int rc = 0;
	*out = NULL;
	*n = 0;
	if (a->live && a->win_samples) {
		a->prof.time_nanos = from_ns;
		a->prof.duration_nanos = until_ns - from_ns;
		rc = encode(&a->prof, out, n);
	}
	if (a->live) {
		pp_profile_free(&a->prof);
		a->live = 0;
	}
	if (!rc)
		a->samples += a->win_samples;
	a->dropped += a->win_dropped + (rc ? a->win_samples : 0);
	a->win_samples = a->win_dropped = 0;
	/* The processes that exited in it: later records of other CPUs could
	 * still name them until now.  Out of memory: they wait for the next. */
	(void)pp_procs_reap(&a->procs);
	/* The window's names are copies in its string table (pp_name_location)
	 * and its stacks addresses: nothing refers to a file's symbols or a
	 * process's unwinder any more. */
	uint64_t max = a->symbol_cache_max;
	pp_symbols_trim(a->sy, &a->procs, max > SIZE_MAX ? SIZE_MAX : (size_t)max);
	pp_procs_trim_unwinders(&a->procs, a->unwind_max);
	return rc;
}
