/* The dummy:HG tracking event, as perf 6.1's record__open sets it up. */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "config/opts.h"
#include "engine/evlist.h"
#include "engine/evlist_track.h"

bool evlist_track_wanted(const struct ps_evlist *evl, const struct record_opts *o)
{
	return o->pf.delay_ms != 0 || evl->system_wide;
}

int evlist_track_add(struct ps_evlist *evl)
{
	struct ps_event *ev = realloc(evl->ev, (evl->nr + 1) * sizeof(*ev));

	if (!ev)
		return -ENOMEM;
	evl->ev = ev;
	ev = &evl->ev[evl->nr];
	memset(ev, 0, sizeof(*ev));
	ev->name = strdup("dummy:HG");
	if (!ev->name)
		return -ENOMEM;
	ev->tracking = true;
	evl->nr++;
	return 0;
}

/* The side-band bits that belong to the tracking event. */
static void sideband_move(struct perf_event_attr *to, struct perf_event_attr *from)
{
	to->mmap = from->mmap;
	to->mmap2 = from->mmap2;
	to->mmap_data = from->mmap_data;
	to->comm = from->comm;
	to->comm_exec = from->comm_exec;
	to->task = from->task;
	to->context_switch = from->context_switch;
	to->namespaces = from->namespaces;
	to->ksymbol = from->ksymbol;
	to->bpf_event = from->bpf_event;
	from->mmap = from->mmap2 = from->mmap_data = from->comm = from->comm_exec = 0;
	from->task = from->context_switch = from->namespaces = from->ksymbol = from->bpf_event = 0;
}

void evlist_track_finish(struct ps_evlist *evl, const struct record_opts *o)
{
	struct ps_event *d = &evl->ev[evl->nr - 1];
	struct perf_event_attr *a = &d->attr;
	bool exec_start = evl->ev[0].attr.enable_on_exec;

	memset(a, 0, sizeof(*a));
	a->size = evl->ev[0].attr.size;
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	a->sample_period = 1;
	a->sample_type = evl->sample_type | PERF_SAMPLE_IP;
	a->read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	a->inherit = evl->ev[0].attr.inherit;
	a->sample_id_all = 1;
	a->use_clockid = evl->ev[0].attr.use_clockid;
	a->clockid = evl->ev[0].attr.clockid;
	sideband_move(a, &evl->ev[0].attr);
	/* A workload's side-band from its exec on; system-wide at once. */
	a->disabled = exec_start;
	a->enable_on_exec = exec_start;
	if (o->pf.delay_ms)
		for (unsigned i = 0; i + 1 < evl->nr; i++)
			evl->ev[i].attr.enable_on_exec = 0;
}

static int ioctl_kind(struct ps_evlist *evl, bool tracking, unsigned long req)
{
	int ret = 0;

	for (unsigned e = 0; e < evl->nr; e++) {
		const struct ps_event *ev = &evl->ev[e];

		if (ev->tracking != tracking || !ev->fds)
			continue;
		for (unsigned i = 0; i < evl->nr_cpus * evl->nr_threads; i++)
			if (ev->fds[i] >= 0 && ioctl(ev->fds[i], req, 0) < 0)
				ret = -errno;
	}
	return ret;
}

int evlist_enable_kind(struct ps_evlist *evl, bool tracking)
{
	return ioctl_kind(evl, tracking, PERF_EVENT_IOC_ENABLE);
}

int evlist_disable_kind(struct ps_evlist *evl, bool tracking)
{
	return ioctl_kind(evl, tracking, PERF_EVENT_IOC_DISABLE);
}
