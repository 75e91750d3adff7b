/*
 * -e strings to events with the attrs perf record 6.1 gives them
 * (parse-events.c; evsel.c: evsel__config, evsel__apply_config_terms):
 * globs expanded, groups formed, modifiers and terms applied.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/event_spec.h"
#include "config/opts.h"
#include "engine/evlist.h"
#include "engine/attr_opts.h"
#include "engine/evlist_track.h"
#include "probe/tracefs_glob.h"
#include "probe/tracing_data.h"

/* perf's PERF_REGS_MASK on x86_64: every general register but the segments. */
#define X86_64_USER_REGS 0xff0fffULL
#define DWARF_STACK_DEFAULT 8192
#define DWARF_STACK_MAX 65528 /* largest multiple of 8 the kernel takes in a u16 */
#define HW_BREAKPOINT_X 4

/* What an event's spec said, kept until its sampling is set. */
struct ev_extra {
	struct ev_terms terms; /* name moved to ps_event.name */
	struct ev_mods mods;
};

struct build {
	struct ps_evlist *evl;
	struct ev_extra *extra;   /* parallel to evl->ev */
	const struct record_opts *o;
	const struct ev_spec *spec; /* being expanded */
	char *err;
	size_t errlen;
};

static int event_new(struct build *b, uint32_t type, uint64_t config, const char *name)
{
	struct ps_evlist *evl = b->evl;
	struct ps_event *ev = realloc(evl->ev, (evl->nr + 1) * sizeof(*ev));
	struct ev_extra *x;

	if (!ev)
		return -ENOMEM;
	evl->ev = ev;
	x = realloc(b->extra, (evl->nr + 1) * sizeof(*x));
	if (!x)
		return -ENOMEM;
	b->extra = x;
	ev += evl->nr;
	x += evl->nr;
	memset(ev, 0, sizeof(*ev));
	evl->nr++;
	ev->attr.size = PS_ATTR_SIZE;
	ev->attr.type = type;
	ev->attr.config = config;
	x->terms = b->spec->terms;
	x->terms.name = NULL;
	x->mods = ev_mods_default();
	if (b->spec->mods[0])
		ev_mods_apply(&x->mods, b->spec->mods, false, true);
	/* name= wins, then perf's default: the event's text */
	ev->name = strdup(b->spec->terms.name ? b->spec->terms.name : name);
	return ev->name ? 0 : -ENOMEM;
}

static int tracepoint_add(void *arg, const char *sys, const char *name)
{
	struct build *b = arg;
	int64_t id = tracefs_event_id(sys, name);
	char *full;
	int r;

	if (id < 0)
		return (int)id;
	if (asprintf(&full, "%s:%s", sys, name) < 0)
		return -ENOMEM;
	r = event_new(b, PERF_TYPE_TRACEPOINT, (uint64_t)id, full);
	free(full);
	if (r)
		return r;
	struct ps_event *ev = &b->evl->ev[b->evl->nr - 1];
	ev->tp_sys = strdup(sys);
	ev->tp_name = strdup(name);
	b->evl->has_tracepoint = true;
	return ev->tp_sys && ev->tp_name ? 0 : -ENOMEM;
}

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int tracepoints_add(struct build *b, const struct ev_spec *s)
{
	int r;

	if (!tracefs_root()) {
		snprintf(b->err, b->errlen, "event '%s': tracefs is not mounted (mount -t tracefs "
			 "nodev /sys/kernel/tracing)", s->text);
		return -EINVAL;
	}
	if (!is_glob(s->tp_sys) && !is_glob(s->tp_name)) {
		r = tracepoint_add(b, s->tp_sys, s->tp_name);
		if (r == -ENOENT || r == -EINVAL)
			snprintf(b->err, b->errlen, "event '%s': no such tracepoint (see "
				 "%s/available_events)", s->text, tracefs_root());
		else if (r < 0 && r != -ENOMEM)
			snprintf(b->err, b->errlen, "event '%s': %s", s->text, strerror(-r));
		return r == -ENOENT ? -EINVAL : r;
	}
	r = tracefs_glob(s->tp_sys, s->tp_name, tracepoint_add, b);
	if (r == 0) {
		snprintf(b->err, b->errlen, "event '%s': no tracepoint matches (see "
			 "%s/available_events)", s->text, tracefs_root());
		return -EINVAL;
	}
	if (r < 0 && r != -ENOMEM)
		snprintf(b->err, b->errlen, "event '%s': %s", s->text, strerror(-r));
	return r < 0 ? r : 0;
}

static int breakpoint_add(struct build *b, const struct ev_spec *s)
{
	int r = event_new(b, PERF_TYPE_BREAKPOINT, 0, s->text);
	struct perf_event_attr *a;

	if (r)
		return r;
	a = &b->evl->ev[b->evl->nr - 1].attr;
	a->bp_type = s->bp_type ? s->bp_type : 3; /* read and write */
	a->bp_addr = s->bp_addr;
	/* perf's default length: a long for execute, 4 bytes for data */
	a->bp_len = s->bp_len ? s->bp_len : a->bp_type == HW_BREAKPOINT_X ? sizeof(long) : 4;
	return 0;
}

static int pmu_add(struct build *b, const struct ev_spec *s)
{
	int64_t type = pmu_type(s->pmu);

	if (type < 0) {
		snprintf(b->err, b->errlen, "event '%s': no PMU named '%s' on this machine (see "
			 "/sys/bus/event_source/devices)", s->text, s->pmu);
		return -EINVAL;
	}
	return event_new(b, (uint32_t)type, 0, s->text);
}

/* The events one spec becomes (several for a tracepoint glob). */
static int spec_add(struct build *b, const struct ev_spec *s)
{
	unsigned first = b->evl->nr;
	int r;

	b->spec = s;
	switch (s->kind) {
	case EV_TRACEPOINT: r = tracepoints_add(b, s); break;
	case EV_BREAKPOINT: r = breakpoint_add(b, s); break;
	case EV_PMU: r = pmu_add(b, s); break;
	case EV_RAW: r = event_new(b, PERF_TYPE_RAW, s->config, s->text); break;
	default: r = event_new(b, s->type, s->config, s->text); break;
	}
	for (unsigned i = first; !r && i < b->evl->nr; i++) {
		struct perf_event_attr *a = &b->evl->ev[i].attr;
		if (s->terms.has_config)
			a->config = s->terms.config;
		if (s->terms.has_config1)
			a->config1 = s->terms.config1;
		if (s->terms.has_config2)
			a->config2 = s->terms.config2;
	}
	return r;
}

/* Terms perf takes that perfsink's design cannot honour, refused by name. */
static int terms_check(struct build *b, const struct ev_spec *s)
{
	const struct ev_terms *t = &s->terms;

	if (t->time == 0) {
		snprintf(b->err, b->errlen, "event '%s': time=0 is not supported: perfsink orders "
			 "and rotates its data by every sample's time", s->text);
		return -EINVAL;
	}
	if (t->overwrite >= 0 && t->overwrite != b->o->overwrite) {
		snprintf(b->err, b->errlen, "event '%s': %s is not supported: perfsink reads one "
			 "ring per CPU, %s, for every event (--overwrite sets it)", s->text,
			 t->overwrite ? "overwrite" : "no-overwrite",
			 b->o->overwrite ? "backward" : "forward");
		return -EINVAL;
	}
	if (t->stack_size > DWARF_STACK_MAX) {
		snprintf(b->err, b->errlen, "event '%s': stack-size=%u is above the kernel's "
			 "limit %d", s->text, t->stack_size, DWARF_STACK_MAX);
		return -EINVAL;
	}
	return 0;
}

/* Group leaders, names and modifiers over the events specs [0, nr) became. */
static int groups_apply(struct build *b, const struct ev_list *l, const unsigned *start)
{
	for (unsigned g = 0; g < l->nr_groups; g++) {
		const struct ev_group *gr = &l->groups[g];
		unsigned first = start[gr->first], end = start[gr->first + gr->nr];
		struct ps_event *lead = &b->evl->ev[first];

		lead->nr_members = end - first;
		if (gr->name && !(lead->group_name = strdup(gr->name)))
			return -ENOMEM;
		for (unsigned i = first; i < end; i++) {
			b->evl->ev[i].leader_off = i - first;
			if (gr->mods[0])
				ev_mods_apply(&b->extra[i].mods, gr->mods, true, i == first);
		}
	}
	return 0;
}

/* --filter / --exclude-perf of this -e: on each of its events, tracepoints only. */
static int filter_apply(struct build *b, const struct event_filter *f, unsigned first)
{
	for (unsigned i = first; f->text && i < b->evl->nr; i++) {
		struct ps_event *ev = &b->evl->ev[i];
		if (ev->attr.type != PERF_TYPE_TRACEPOINT) {
			snprintf(b->err, b->errlen, f->by_filter
				 ? "--filter applies to tracepoints (or to PMUs with address filters, "
				   "none on this machine); event '%s' is not one"
				 : "--exclude-perf applies to tracepoints; event '%s' is not one",
				 ev->name);
			return -EINVAL;
		}
		if (!(ev->filter = strdup(f->text)))
			return -ENOMEM;
	}
	return 0;
}

/* One -e string. */
static int arg_add(struct build *b, unsigned arg)
{
	struct ev_list l;
	unsigned first = b->evl->nr, *start = NULL;
	int r = ev_list_parse(b->o->events[arg], &l, b->err, b->errlen);

	if (!r && !(start = calloc(l.nr + 1, sizeof(*start))))
		r = -ENOMEM;
	for (unsigned s = 0; !r && s < l.nr; s++) {
		start[s] = b->evl->nr;
		r = terms_check(b, &l.ev[s]);
		if (!r)
			r = spec_add(b, &l.ev[s]);
	}
	if (!r) {
		start[l.nr] = b->evl->nr;
		r = groups_apply(b, &l, start);
	}
	if (!r)
		r = filter_apply(b, &b->o->filters[arg], first);
	free(start);
	ev_list_free(&l);
	return r;
}

/* ----------------------------------------------------------- sampling */

static bool samples_every_hit(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_TRACEPOINT || a->type == PERF_TYPE_BREAKPOINT ||
	       (a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_BPF_OUTPUT);
}

static bool raw_data(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_TRACEPOINT ||
	       (a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_BPF_OUTPUT);
}

static void rate_set(struct build *b, struct perf_event_attr *a, const struct ev_terms *t)
{
	const struct record_opts *o = b->o;
	bool user_rate = record_opt_is_set(o, "freq") || record_opt_is_set(o, "count");

	/* Tracepoints, breakpoints and bpf-output sample every hit unless -F/-c says. */
	if (!samples_every_hit(a) || user_rate) {
		if (o->period) {
			a->sample_period = o->period;
		} else {
			a->freq = 1;
			a->sample_freq = o->freq;
		}
	} else {
		a->sample_period = 1;
	}
	if (t->has_period) {
		a->freq = 0;
		a->sample_period = t->period;
	} else if (t->has_freq) {
		a->freq = 1;
		a->sample_freq = t->freq;
	}
}

static void dwarf_set(struct perf_event_attr *a, uint32_t size)
{
	a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a->sample_regs_user = X86_64_USER_REGS;
	a->sample_stack_user = size;
	a->exclude_callchain_user = 1;
}

/*
 * -g/--call-graph, then the event's call-graph=, stack-size= and
 * max-stack= terms replacing it as perf's evsel__apply_config_terms does
 * (stack-size alone turns the call graph off; max-stack alone means fp).
 */
static void callgraph_set(struct build *b, struct perf_event_attr *a, const struct ev_terms *t,
			  bool tracking)
{
	enum callgraph_mode mode = b->o->callgraph;
	uint32_t size = b->o->dwarf_stack;
	bool global_dwarf = mode == CG_DWARF, own_dwarf = false;

	if (t->callgraph || t->stack_size || t->has_max_stack) {
		if (t->callgraph == EV_CG_UNSET)
			mode = t->has_max_stack ? CG_FP : CG_NONE;
		else
			mode = t->callgraph == EV_CG_FP ? CG_FP
			       : t->callgraph == EV_CG_DWARF ? CG_DWARF : CG_NONE;
		size = t->stack_size ? (t->stack_size + 7) & ~7u : DWARF_STACK_DEFAULT;
		own_dwarf = t->callgraph == EV_CG_DWARF;
		a->sample_max_stack = (uint16_t)t->max_stack;
	}
	if (mode != CG_NONE)
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (mode == CG_DWARF)
		dwarf_set(a, size);
	/* As perf record: DWARF turns on data addresses, and with them MMAP2
	 * for non-exec maps, where a separate-code binary keeps .eh_frame_hdr;
	 * without those the unwinder finds no map.  A global --call-graph
	 * dwarf leaves them (and exclude_callchain_user) on every event. */
	if (global_dwarf) {
		a->exclude_callchain_user = 1;
		a->sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
		/* perf resets only the sample bits of a replaced call graph */
		a->sample_regs_user = X86_64_USER_REGS;
		if (!a->sample_stack_user)
			a->sample_stack_user = b->o->dwarf_stack;
	}
	if (own_dwarf)
		a->sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
	if (tracking)
		a->mmap_data = global_dwarf || own_dwarf;
}

static void mods_set(struct perf_event_attr *a, const struct ev_mods *m)
{
	a->exclude_user = m->exclude_user;
	a->exclude_kernel = m->exclude_kernel;
	a->exclude_hv = m->exclude_hv;
	a->exclude_host = m->exclude_host;
	a->exclude_guest = m->exclude_guest;
	a->exclude_idle = m->exclude_idle;
	a->precise_ip = m->precise_max ? 3 : m->precise;
	a->pinned = m->pinned;
	a->exclusive = m->exclusive;
}

static void sampling_set(struct build *b, unsigned i)
{
	struct ps_evlist *evl = b->evl;
	struct ps_event *ev = &evl->ev[i];
	struct perf_event_attr *a = &ev->attr;
	const struct ev_extra *x = &b->extra[i];
	bool leader = ev->leader_off == 0;

	rate_set(b, a, &x->terms);
	a->sample_type = evl->sample_type | PERF_SAMPLE_IP;
	if (a->freq || raw_data(a))
		a->sample_type |= PERF_SAMPLE_PERIOD;
	if (raw_data(a))
		a->sample_type |= PERF_SAMPLE_RAW;
	callgraph_set(b, a, &x->terms, i == 0);
	mods_set(a, &x->mods);
	ev->precise_max = x->mods.precise_max;
	a->read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	/* Only a leader is disabled and enabled: its members follow it. */
	a->disabled = leader;
	/* perf sets inherit system-wide too, where it has no effect */
	a->inherit = x->terms.inherit >= 0 ? x->terms.inherit : 1;
	/* System-wide counting starts at once; a workload of its own starts at exec. */
	a->enable_on_exec = leader && b->o->argv != NULL && !evl->system_wide;
	a->sample_id_all = 1;
	/* Flight recorder: the kernel overwrites the oldest data, newest at head. */
	a->write_backward = b->o->overwrite;
	if (i == 0) { /* side-band records once per ring, from the first event only */
		a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = 1;
		/* As perf: JIT images (BPF programs) come and go as KSYMBOL / BPF_EVENT. */
		a->ksymbol = a->bpf_event = 1;
	}
	attr_apply_perf_flags(a, b->o, i == 0);
}

/*
 * :S reads the whole group into each leader sample (perf's
 * evsel__config: PERF_FORMAT_GROUP, no inherit); the members then only
 * count and take the leader's sample layout.
 */
static void sample_read_set(struct ps_evlist *evl, const struct ev_extra *x, unsigned i)
{
	struct ps_event *ev = &evl->ev[i];
	const struct ps_event *lead = ev - ev->leader_off;
	struct perf_event_attr *a = &ev->attr;

	if (x[i].mods.sample_read) {
		a->sample_type |= PERF_SAMPLE_READ | PERF_SAMPLE_ID;
		if (lead->nr_members > 1) {
			a->read_format |= PERF_FORMAT_GROUP;
			a->inherit = 0;
		}
	}
	if (ev->leader_off && x[i - ev->leader_off].mods.sample_read) {
		a->freq = 0;
		a->sample_freq = 0;
		a->write_backward = 0;
		a->sample_type = lead->attr.sample_type;
	}
}

/*
 * The DWARF stack size every sampling event samples, or 0 when they
 * differ (the drainer finds dyn_size past DATA_SRC, see drain.c).
 */
static uint32_t stack_user_common(const struct ps_evlist *evl)
{
	const struct perf_event_attr *a0 = evl->nr ? &evl->ev[0].attr : NULL;
	uint32_t size = a0 && (a0->sample_type & PERF_SAMPLE_STACK_USER) ? a0->sample_stack_user : 0;

	for (unsigned i = 0; i < evl->nr; i++) {
		const struct perf_event_attr *a = &evl->ev[i].attr;
		if (evl->ev[i].tracking)
			continue;
		if (!(a->sample_type & PERF_SAMPLE_STACK_USER) || a->sample_stack_user != size)
			return 0;
	}
	return size;
}

int evlist_parse(struct ps_evlist *evl, const struct record_opts *o, char *err, size_t errlen)
{
	struct build b = { .evl = evl, .o = o, .err = err, .errlen = errlen };
	int r = 0;

	memset(evl, 0, sizeof(*evl));
	evl->system_wide = o->all_cpus || o->cpu_list;
	for (unsigned i = 0; !r && i < o->nr_events; i++)
		r = arg_add(&b, i);
	if (!r && !evl->nr) {
		snprintf(err, errlen, "no event to record; give -e NAME (e.g. -e cpu-clock)");
		r = -EINVAL;
	}
	/* The events given; a tracking event (perf's dummy:HG) may follow them. */
	unsigned nr_given = evl->nr;
	if (!r && evlist_track_wanted(evl, o) && evlist_track_add(evl) < 0)
		r = -ENOMEM;
	if (!r) {
		/* One layout for the id trailer everywhere, so perf accepts the attrs together. */
		evl->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
		if (evl->nr > 1 || o->pf.sample_identifier)
			evl->sample_type |= PERF_SAMPLE_IDENTIFIER;
		/* :S needs ID in its samples, so every trailer carries it (perf
		 * parses each record's trailer with its own event's layout). */
		for (unsigned i = 0; i < nr_given; i++)
			if (b.extra[i].mods.sample_read)
				evl->sample_type |= PERF_SAMPLE_ID;
		evl->sample_id_all = true;
		for (unsigned i = 0; i < nr_given; i++)
			sampling_set(&b, i);
		for (unsigned i = 0; i < nr_given; i++)
			sample_read_set(evl, b.extra, i);
		if (nr_given < evl->nr)
			evlist_track_finish(evl, o);
		evl->stack_user = stack_user_common(evl);
	}
	if (r == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	free(b.extra);
	return r;
}
