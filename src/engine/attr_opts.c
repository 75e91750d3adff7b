/* perf record's sample flags on an attr, bit for bit as perf 6.1 sets them. */
#include <config.h>

#include "config/opts.h"
#include "engine/attr_opts.h"

#define TIMES (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)

static void sample_bits(struct perf_event_attr *a, const struct perf_flags *f)
{
	if (f->data) {
		a->sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
		a->mmap_data = a->mmap; /* data maps come with the side-band event's */
	}
	if (f->weight)
		a->sample_type |= PERF_SAMPLE_WEIGHT_STRUCT;
	if (f->raw_samples)
		a->sample_type |= PERF_SAMPLE_RAW | PERF_SAMPLE_CPU;
	if (f->code_page_size)
		a->sample_type |= PERF_SAMPLE_CODE_PAGE_SIZE;
	if (f->data_page_size)
		a->sample_type |= PERF_SAMPLE_DATA_PAGE_SIZE;
	if (f->phys_data)
		a->sample_type |= PERF_SAMPLE_PHYS_ADDR;
	if (f->user_regs) {
		a->sample_type |= PERF_SAMPLE_REGS_USER;
		a->sample_regs_user |= f->user_regs; /* DWARF's set stays */
	}
	if (f->intr_regs) {
		a->sample_type |= PERF_SAMPLE_REGS_INTR;
		a->sample_regs_intr = f->intr_regs;
	}
}

void attr_apply_perf_flags(struct perf_event_attr *a, const struct record_opts *o, bool first)
{
	const struct perf_flags *f = &o->pf;

	sample_bits(a, f);
	if (f->stat) {
		a->inherit_stat = 1;
		a->read_format |= TIMES;
	}
	if (f->running_time)
		a->read_format |= TIMES;
	if (f->no_samples) {
		/* perf -n: counters only, no sampling at all. */
		a->sample_period = 0;
	}
	/* perf's -t records one thread: no inherit unless asked (no_inherit_set). */
	if (f->no_inherit || o->tid)
		a->inherit = 0;
	/* PERIOD is sampled with -F and for tracepoints (evlist_build.c);
	 * -P adds it to a fixed period (-c) too, as perf. */
	if (f->period)
		a->sample_type |= PERF_SAMPLE_PERIOD;
	/* As perf: the other side only, hv left as it was. */
	if (f->all_user) {
		a->exclude_kernel = 1;
		a->exclude_user = 0;
	}
	if (f->all_kernel) {
		a->exclude_user = 1;
		a->exclude_kernel = 0;
	}
	if ((a->sample_type & PERF_SAMPLE_CALLCHAIN) && f->user_callchains)
		a->exclude_callchain_kernel = 1;
	if ((a->sample_type & PERF_SAMPLE_CALLCHAIN) && f->kernel_callchains)
		a->exclude_callchain_user = 1;
	if (f->clockid >= 0) {
		a->use_clockid = 1;
		a->clockid = f->clockid;
	}
	if (first) {
		a->context_switch = f->switch_events;
		a->namespaces = f->namespaces;
		if (f->no_bpf_event)
			a->bpf_event = 0; /* ksymbol stays, as perf's evsel__config */
	}
}
