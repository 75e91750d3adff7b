/* Recordings to one pprof profile; see pp_convert.h. */
#include "pprof/pp_convert.h"
#include "pprof/pp_filter.h"
#include "pprof/pp_input.h"
#include "pprof/pp_name.h"
#include "pprof/pp_order.h"
#include "pprof/pp_procs.h"
#include "pprof/pp_profile.h"
#include "pprof/pp_sample.h"
#include "pprof/pp_symbols.h"
#include "pprof/pp_unwind.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES 1024

struct conv {
	struct pp_profile prof;
	struct pp_procs procs;
	struct pp_symbols *sy;
	struct pp_name names;          /* locations waiting for the end of their input */
	const struct pp_convert_opts *o;
	struct pp_convert_report *rep;
	char *vt_event[PP_MAX_VALUES]; /* the event each value (after samples/count) counts */
	int have_cpu_type;
	int64_t kernel_mapping;
	char kernel_bid[41];
	uint64_t first_time, last_time;
	struct pp_frame f[MAX_FRAMES];
	uint64_t pcs[MAX_FRAMES], locs[MAX_FRAMES];
};

static int is_cpu_clock(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK);
}

/* The value index of ev's period, added when new: cpu/nanoseconds for the
 * first cpu-clock or task-clock event, the event's name otherwise. */
static int value_of(struct conv *c, const struct pp_event *ev)
{
	for (unsigned i = 1; i < c->prof.nvalues; i++)
		if (c->vt_event[i] && !strcmp(c->vt_event[i], ev->name))
			return (int)i;
	int cpu = is_cpu_clock(&ev->attr) && !c->have_cpu_type;
	const char *unit = is_cpu_clock(&ev->attr) ? "nanoseconds" : "count";
	int i = pp_value_type(&c->prof, cpu ? "cpu" : ev->name, unit);
	if (i < 0)
		return i;
	if (!(c->vt_event[i] = strdup(ev->name)))
		return -ENOMEM;
	c->have_cpu_type |= cpu;
	if (i == 1) {
		const struct perf_event_attr *a = &ev->attr;
		int64_t period = a->freq ? (a->sample_freq && is_cpu_clock(a) ? 1000000000 / (int64_t)a->sample_freq
									    : 1)
					 : (int64_t)a->sample_period;
		int rc = pp_period(&c->prof, cpu ? "cpu" : ev->name, unit, period);
		if (rc)
			return rc;
	}
	return i;
}

/* The frames of s, leaf first (pp_frames), counted for the report. */
static unsigned frames_of(struct conv *c, struct pp_proc *p, const struct pp_sample *s)
{
	int dwarf;
	unsigned n = pp_frames(&c->procs, p, c->sy, s, c->f, c->pcs, MAX_FRAMES, &dwarf);
	c->rep->dwarf += dwarf > 0;
	c->rep->unwound += dwarf > 1;
	return n;
}

static int64_t kernel_mapping(struct conv *c)
{
	if (!c->kernel_mapping) {
		struct pp_proc *k = pp_procs_get(&c->procs, PP_KERNEL_PID);
		uint64_t start = k && k->n ? k->m[0].start : 0;
		c->kernel_mapping = pp_mapping(&c->prof, start, UINT64_MAX, 0, "[kernel.kallsyms]", c->kernel_bid);
	}
	return c->kernel_mapping;
}

static int64_t user_mapping(struct conv *c, struct pp_map *m)
{
	if (!m->mapping_id) {
		const struct pp_dso *d = &c->procs.dso[m->dso];
		m->mapping_id = pp_mapping(&c->prof, m->start, m->end, m->pgoff, d->name, d->bid);
	}
	return m->mapping_id;
}

/* The location of frame i: found, or made (named when the input is read). */
static int64_t location(struct conv *c, struct pp_proc *p, unsigned i)
{
	const struct pp_frame *f = &c->f[i];
	struct pp_map *m = f->kernel ? NULL : pp_proc_find(p, f->addr);
	int64_t mid = f->kernel ? kernel_mapping(c) : m ? user_mapping(c, m) : 0;
	if (mid < 0)
		return mid;
	uint64_t id = pp_location_find(&c->prof, (uint64_t)mid, f->addr);
	if (id)
		return (int64_t)id;
	int64_t loc = pp_location_add(&c->prof, (uint64_t)mid, f->addr, NULL, 0);
	if (loc < 0)
		return loc;
	struct pp_pending e = pp_pending_of((uint64_t)loc, f, m, i);
	int rc = pp_name_add(&c->names, &e);
	return rc ? rc : loc;
}

/* Whether location id was named "[unknown]". */
static int loc_unknown(const struct conv *c, uint64_t id)
{
	const struct pp_location *l = &c->prof.loc[id - 1];
	const struct pp_function *f = &c->prof.func[c->prof.lines[l->line0].function_id - 1];
	return !strcmp(pp_string_at(&c->prof, (uint64_t)f->name), PP_UNKNOWN);
}

/* Frames named "[unknown]" in all samples (values[0] counts samples). */
static uint64_t unknown_frames(struct conv *c)
{
	uint64_t n = 0;
	struct pp_sample_view v;
	for (uint32_t i = 0; i < c->prof.samples.n; i++) {
		pp_sample_get(&c->prof, i, NULL, NULL, &v);
		uint64_t *locs = v.nlocs <= MAX_FRAMES ? c->locs : NULL;
		if (!locs)
			continue;
		pp_sample_get(&c->prof, i, locs, NULL, &v);
		for (unsigned j = 0; j < v.nlocs; j++)
			n += loc_unknown(c, locs[j]) * (uint64_t)v.values[0];
	}
	return n;
}

static int sample(struct conv *c, const struct pp_input *in, const uint8_t *r, uint16_t size)
{
	const struct pp_event *ev = in->nr_ev ? pp_input_event(in, pp_sample_id(r, size, in->ev[0].attr.sample_type))
					      : NULL;
	struct pp_sample s;
	if (!ev || pp_sample_decode(r, size, &ev->attr, &s))
		return 0; /* not ours to read: perf report skips it too */
	struct pp_proc *p = pp_procs_get(&c->procs, s.pid);
	if (p && c->o->filter && !pp_filter_match(c->o->filter, (int32_t)s.pid, pp_procs_comm(&c->procs, p, s.tid), s.time)) {
		c->rep->filtered++;
		return 0;
	}
	int vi = value_of(c, ev);
	if (!p || vi < 0)
		return vi < 0 ? vi : -ENOMEM;
	unsigned n = frames_of(c, p, &s);
	for (unsigned i = 0; i < n; i++) {
		int64_t id = location(c, p, i);
		if (id < 0)
			return (int)id;
		c->locs[i] = (uint64_t)id;
	}
	int64_t v[PP_MAX_VALUES] = { 1 };
	v[vi] = (int64_t)s.period;
	struct pp_label lab[4] = { { "pid", NULL, s.pid }, { "tid", NULL, s.tid }, { "comm", pp_procs_comm(&c->procs, p, s.tid), 0 },
				   { "cpu", NULL, s.cpu } };
	unsigned nl = c->o->labels ? 3 + !!(ev->attr.sample_type & PERF_SAMPLE_CPU) : 0;
	c->rep->samples++;
	c->rep->frames += n;
	if (s.time && (!c->first_time || s.time < c->first_time))
		c->first_time = s.time;
	if (s.time > c->last_time)
		c->last_time = s.time;
	return pp_sample_add(&c->prof, c->locs, n, lab, nl, v);
}

/* An MMAP's build-id from the input's HEADER_BUILD_ID (pp_procs.buildid):
 * perf's names the kernel [kernel.kallsyms], its map [kernel.kallsyms]_text. */
static const char *input_buildid(void *arg, const char *file, int kernel)
{
	const struct pp_input *in = arg;
	return pp_input_buildid(in, kernel && !strncmp(file, "[kernel.kallsyms]", 17) ? "[kernel.kallsyms]" : file);
}

static int on_record(void *ctx, const struct pp_input *in, const uint8_t *r, uint16_t size)
{
	struct conv *c = ctx;
	uint32_t type;
	memcpy(&type, r, 4);
	if (type == PERF_RECORD_SAMPLE)
		return sample(c, in, r, size);
	if (!c->kernel_bid[0] && pp_input_buildid(in, "[kernel.kallsyms]"))
		snprintf(c->kernel_bid, sizeof(c->kernel_bid), "%s", pp_input_buildid(in, "[kernel.kallsyms]"));
	c->procs.buildid_arg = (void *)in;
	return pp_procs_record(&c->procs, r, size);
}

static int one_input(struct conv *c, const char *path, char *err, size_t errlen)
{
	struct pp_input in;
	struct pp_order ord;
	char why[256] = "";
	pp_order_init(&ord, on_record, c);
	pp_procs_forget(&c->procs);
	int rc = pp_input_open(&in, path, why, sizeof(why));
	if (!rc && !c->rep->host[0])
		snprintf(c->rep->host, sizeof(c->rep->host), "%s", in.hostname);
	if (!rc)
		rc = pp_input_run(&in, pp_order_record, &ord, why, sizeof(why));
	if (!rc)
		rc = pp_order_flush(&ord, &in);
	if (!rc)
		rc = pp_name_run(&c->names, &c->prof, &c->procs, c->sy, &in, c->kernel_bid);
	pp_order_free(&ord);
	if (rc)
		snprintf(err, errlen, "%s: %s", path, why[0] ? why : strerror(-rc));
	pp_input_close(&in);
	return rc;
}

static void finish(struct conv *c)
{
	struct pp_convert_report *r = c->rep;
	c->prof.duration_nanos = (int64_t)(c->last_time - c->first_time);
	r->first_time = c->first_time;
	r->last_time = c->last_time;
	if (c->prof.nvalues > 1 && c->vt_event[c->prof.nvalues - 1])
		snprintf(r->event, sizeof(r->event), "%s", c->vt_event[c->prof.nvalues - 1]);
	r->unknown = unknown_frames(c);
	r->locations = c->prof.locs.n;
	r->functions = c->prof.funcs.n;
	r->mappings = c->prof.maps.n;
	r->pprof_samples = c->prof.samples.n;
}

int pp_convert_model(char *const *inputs, unsigned n, const struct pp_convert_opts *o, pp_model_fn fn,
		     void *ctx, struct pp_convert_report *rep, char *err, size_t errlen)
{
	struct conv *c = calloc(1, sizeof(*c));
	int rc = c ? pp_profile_init(&c->prof) : -ENOMEM;
	memset(rep, 0, sizeof(*rep));
	if (!rc) {
		pp_procs_init(&c->procs);
		c->procs.free_sym = pp_symbols_dso_free;
		c->procs.free_unwind = pp_unwind_free;
		c->procs.buildid = input_buildid;
		c->o = o;
		c->rep = rep;
		rc = pp_symbols_new(&c->sy, o->cache_dir);
	}
	/* Value 0 counts samples, whatever their events. */
	if (!rc && pp_value_type(&c->prof, "samples", "count") < 0)
		rc = -ENOMEM;
	for (unsigned i = 0; !rc && i < n; i++)
		rc = one_input(c, inputs[i], err, errlen);
	if (!rc) {
		finish(c);
		rc = fn(ctx, &c->prof, rep, err, errlen);
	} else if (rc == -ENOMEM && !err[0]) {
		snprintf(err, errlen, "out of memory");
	}
	if (c) {
		pp_procs_free(&c->procs);
		pp_symbols_free(c->sy);
		pp_profile_free(&c->prof);
		pp_name_free(&c->names);
		for (unsigned i = 0; i < PP_MAX_VALUES; i++)
			free(c->vt_event[i]);
		free(c);
	}
	return rc;
}
