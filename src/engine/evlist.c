#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "engine/evlist.h"
#include "engine/attr_opts.h"
#include "engine/evlist_track.h"
#include "config/opts.h"
#include "probe/tracing_data.h"
#include "config/value_parse.h"

struct named_event {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static const struct named_event named_events[] = {
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
};

const char *evlist_event_name(uint32_t type, uint64_t config)
{
	for (size_t i = 0; i < sizeof(named_events) / sizeof(named_events[0]); i++)
		if (named_events[i].type == type && named_events[i].config == config)
			return named_events[i].name;
	return NULL;
}

/* perf's PERF_REGS_MASK on x86_64: every general register but the segments. */
#define X86_64_USER_REGS 0xff0fffULL

#define ACCEPTED_FORMS "accepted forms: NAME or NAME:MODIFIERS with NAME cpu-clock, " \
	"task-clock, page-faults, minor-faults, major-faults, context-switches, " \
	"cpu-migrations (or a hardware event where a PMU exists) and MODIFIERS u, k or uk " \
	"(e.g. cpu-clock:u); or a tracepoint SUBSYSTEM:NAME (e.g. sched:sched_switch)"

/* Length of the tracefs-name prefix of s: letters, digits, _ and - (no ".." into tracefs). */
static size_t tp_name_len(const char *s)
{
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");
}

static int parse_one(struct ps_event *ev, const char *spec, char *err, size_t errlen)
{
	char *s = strdup(spec);
	if (!s)
		return -ENOMEM;
	struct perf_event_attr *a = &ev->attr;
	memset(a, 0, sizeof(*a));
	a->size = PS_ATTR_SIZE;

	/* Modifiers after the last ':' of a named event: u (user), k (kernel). */
	char *colon = strrchr(s, ':');
	const char *mods = "";
	for (size_t i = 0; i < sizeof(named_events) / sizeof(named_events[0]); i++) {
		size_t n = strlen(named_events[i].name);
		if (strncmp(s, named_events[i].name, n) || (s[n] && s[n] != ':'))
			continue;
		if (s[n] == ':') {
			mods = s + n + 1;
			if (!*mods || strspn(mods, "uk") != strlen(mods)) {
				snprintf(err, errlen, "event '%s': unknown modifier '%s'; " ACCEPTED_FORMS,
					 spec, mods);
				free(s);
				return -EINVAL;
			}
		}
		a->type = named_events[i].type;
		a->config = named_events[i].config;
		bool u = strchr(mods, 'u'), k = strchr(mods, 'k');
		a->exclude_kernel = u && !k;
		a->exclude_user = k && !u;
		ev->name = strdup(spec);
		free(s);
		return ev->name ? 0 : -ENOMEM;
	}
	if (!colon || colon == s || !colon[1] || strchr(s, ':') != colon) {
		snprintf(err, errlen, "event '%s': unknown event; " ACCEPTED_FORMS, spec);
		free(s);
		return -EINVAL;
	}
	*colon = '\0';
	size_t sys_ok = tp_name_len(s), name_ok = tp_name_len(colon + 1);
	if (s[sys_ok] || colon[1 + name_ok]) {
		char bad = s[sys_ok] ? s[sys_ok] : colon[1 + name_ok];
		snprintf(err, errlen, "event '%s': '%c' is not understood (perfsink takes no /TERMS/, "
			 "{GROUPS} or other modifiers); " ACCEPTED_FORMS, spec, bad);
		free(s);
		return -EINVAL;
	}
	int64_t id = tracefs_event_id(s, colon + 1);
	if (id < 0) {
		if (id == -ENOENT && !tracefs_root())
			snprintf(err, errlen, "event '%s': tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)", spec);
		else if (id == -ENOENT)
			snprintf(err, errlen, "event '%s': no such tracepoint (see %s/available_events)", spec, tracefs_root());
		else
			snprintf(err, errlen, "event '%s': %s", spec, strerror((int)-id));
		free(s);
		return -EINVAL;
	}
	a->type = PERF_TYPE_TRACEPOINT;
	a->config = (uint64_t)id;
	ev->tp_sys = strdup(s);
	ev->tp_name = strdup(colon + 1);
	ev->name = strdup(spec);
	free(s);
	return (ev->tp_sys && ev->tp_name && ev->name) ? 0 : -ENOMEM;
}

static void set_sampling(struct ps_evlist *evl, struct ps_event *ev, const struct record_opts *o, bool first)
{
	struct perf_event_attr *a = &ev->attr;
	bool tp = a->type == PERF_TYPE_TRACEPOINT;

	if (o->period) {
		a->sample_period = o->period;
	} else if (tp) {
		a->sample_period = 1; /* every tracepoint hit, as perf does */
	} else {
		a->freq = 1;
		a->sample_freq = o->freq;
	}
	a->sample_type = evl->sample_type | PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD;
	if (tp)
		a->sample_type |= PERF_SAMPLE_RAW;
	if (o->callgraph != CG_NONE)
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (o->callgraph == CG_DWARF) {
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = X86_64_USER_REGS;
		a->sample_stack_user = o->dwarf_stack;
		a->exclude_callchain_user = 1;
		/* As perf record: DWARF turns on data addresses, and with them
		 * MMAP2 for non-exec maps, where a separate-code binary keeps
		 * .eh_frame_hdr; without those the unwinder finds no map. */
		a->sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
	}
	a->read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	a->disabled = 1;
	a->inherit = 1; /* perf sets it system-wide too, where it has no effect */
	/* System-wide counting starts at once; a workload of its own starts at exec. */
	a->enable_on_exec = o->argv != NULL && !evl->system_wide;
	a->sample_id_all = 1;
	a->exclude_guest = 1;
	/* Flight recorder: the kernel overwrites the oldest data, newest at head. */
	a->write_backward = o->overwrite;
	if (first) {
		/* Side-band records once per ring, from the first event only. */
		a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = 1;
		a->mmap_data = o->callgraph == CG_DWARF;
	}
	attr_apply_perf_flags(a, o, first);
}

int evlist_parse(struct ps_evlist *evl, const struct record_opts *o, char *err, size_t errlen)
{
	memset(evl, 0, sizeof(*evl));
	evl->ev = calloc(o->nr_events, sizeof(*evl->ev));
	if (!evl->ev)
		return -ENOMEM;
	evl->system_wide = o->all_cpus || o->cpu_list;
	for (unsigned i = 0; i < o->nr_events; i++) {
		int r = parse_one(&evl->ev[i], o->events[i], err, errlen);
		evl->nr = i + 1;
		if (r < 0)
			return r;
		if (evl->ev[i].tp_sys)
			evl->has_tracepoint = true;
		for (unsigned j = 0; j < i; j++) {
			if (!strcmp(evl->ev[j].name, evl->ev[i].name)) {
				snprintf(err, errlen, "event '%s' given twice", evl->ev[i].name);
				return -EINVAL;
			}
		}
	}
	if (evlist_track_wanted(evl, o) && evlist_track_add(evl) < 0)
		return -ENOMEM;
	/* One layout for the id trailer everywhere, so perf accepts the attrs together. */
	evl->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	if (evl->nr > 1 || o->pf.sample_identifier)
		evl->sample_type |= PERF_SAMPLE_IDENTIFIER;
	evl->sample_id_all = true;
	for (unsigned i = 0; i < evl->nr; i++)
		set_sampling(evl, &evl->ev[i], o, i == 0);
	if (evl->ev[evl->nr - 1].tracking)
		evlist_track_finish(evl, o);
	return 0;
}

static int read_online_cpus(int **cpus, unsigned *n)
{
	char buf[1024] = "";
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return parse_cpu_list(buf, 4096, cpus, n);
}

static int list_threads(pid_t pid, pid_t **out, unsigned *n)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return -errno;
	unsigned cap = 16, k = 0;
	pid_t *t = malloc(cap * sizeof(*t));
	struct dirent *de;
	while (t && (de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		if (k == cap) {
			pid_t *nt = realloc(t, (cap *= 2) * sizeof(*t));
			if (!nt) {
				free(t);
				t = NULL;
				break;
			}
			t = nt;
		}
		t[k++] = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	if (!t)
		return -ENOMEM;
	*out = t;
	*n = k;
	return 0;
}

int evlist_set_targets(struct ps_evlist *evl, const struct record_opts *o, pid_t child,
		       char *err, size_t errlen)
{
	int r = o->cpu_list ? parse_cpu_list(o->cpu_list, 4096, &evl->cpus, &evl->nr_cpus)
			    : read_online_cpus(&evl->cpus, &evl->nr_cpus);
	if (r < 0) {
		snprintf(err, errlen, "cannot read the CPU list: %s", strerror(-r));
		return r;
	}
	if (evl->system_wide) {
		evl->threads = malloc(sizeof(pid_t));
		if (!evl->threads)
			return -ENOMEM;
		evl->threads[0] = -1;
		evl->nr_threads = 1;
		return 0;
	}
	if (o->pid) {
		r = list_threads(o->pid, &evl->threads, &evl->nr_threads);
		if (r < 0) {
			snprintf(err, errlen, "-p %d: %s", (int)o->pid,
				 r == -ENOENT ? "no such process" : strerror(-r));
			return r;
		}
		return 0;
	}
	evl->threads = malloc(sizeof(pid_t));
	if (!evl->threads)
		return -ENOMEM;
	evl->threads[0] = o->tid ? o->tid : child;
	evl->nr_threads = 1;
	return 0;
}

static void open_error(const struct ps_event *ev, int cpu, pid_t tid, int e, char *err, size_t errlen)
{
	const char *why = strerror(e);
	char hint[160] = "";
	if (e == ENOENT || e == EOPNOTSUPP)
		snprintf(hint, sizeof(hint), ev->attr.type == PERF_TYPE_HARDWARE
			 ? ": no hardware PMU for this event on this machine; use a software event such as cpu-clock"
			 : ": not supported here");
	else if (e == EACCES || e == EPERM)
		snprintf(hint, sizeof(hint), ": run as root or lower /proc/sys/kernel/perf_event_paranoid");
	else if (e == ESRCH)
		snprintf(hint, sizeof(hint), ": thread %d is gone", (int)tid);
	else if (e == EMFILE)
		snprintf(hint, sizeof(hint), ": raise the open file limit (ulimit -n)");
	else if (e == EINVAL && ev->attr.freq)
		snprintf(hint, sizeof(hint), ": is -F above /proc/sys/kernel/perf_event_max_sample_rate?");
	snprintf(err, errlen, "cannot open event '%s' on CPU %d: %s%s", ev->name, cpu, why, hint);
}

int evlist_open(struct ps_evlist *evl, char *err, size_t errlen)
{
	unsigned n = evl->nr_cpus * evl->nr_threads;
	for (unsigned e = 0; e < evl->nr; e++) {
		struct ps_event *ev = &evl->ev[e];
		ev->fds = malloc(n * sizeof(int));
		ev->ids = calloc(n, sizeof(uint64_t));
		if (!ev->fds || !ev->ids)
			return -ENOMEM;
		for (unsigned i = 0; i < n; i++)
			ev->fds[i] = -1;
		for (unsigned c = 0; c < evl->nr_cpus; c++) {
			for (unsigned t = 0; t < evl->nr_threads; t++) {
				unsigned i = c * evl->nr_threads + t;
				int fd = (int)syscall(SYS_perf_event_open, &ev->attr, evl->threads[t],
						      evl->cpus[c], -1, PERF_FLAG_FD_CLOEXEC);
				if (fd < 0) {
					int er = errno;
					/* A thread of -p that exited meanwhile is not an error. */
					if (er == ESRCH && evl->nr_threads > 1)
						continue;
					open_error(ev, evl->cpus[c], evl->threads[t], er, err, errlen);
					return -er;
				}
				ev->fds[i] = fd;
				if (ioctl(fd, PERF_EVENT_IOC_ID, &ev->ids[ev->nr_ids]) < 0) {
					snprintf(err, errlen, "event '%s': cannot read its id: %s",
						 ev->name, strerror(errno));
					return -errno;
				}
				ev->nr_ids++;
			}
		}
	}
	return 0;
}

static int ioctl_all(struct ps_evlist *evl, unsigned long req)
{
	int ret = 0;
	for (unsigned e = 0; e < evl->nr; e++)
		for (unsigned i = 0; evl->ev[e].fds && i < evl->nr_cpus * evl->nr_threads; i++)
			if (evl->ev[e].fds[i] >= 0 && ioctl(evl->ev[e].fds[i], req, 0) < 0)
				ret = -errno;
	return ret;
}

int evlist_enable(struct ps_evlist *evl) { return ioctl_all(evl, PERF_EVENT_IOC_ENABLE); }
int evlist_disable(struct ps_evlist *evl) { return ioctl_all(evl, PERF_EVENT_IOC_DISABLE); }

void evlist_close(struct ps_evlist *evl)
{
	for (unsigned e = 0; e < evl->nr; e++) {
		for (unsigned i = 0; evl->ev[e].fds && i < evl->nr_cpus * evl->nr_threads; i++)
			if (evl->ev[e].fds[i] >= 0)
				close(evl->ev[e].fds[i]);
		free(evl->ev[e].fds);
		evl->ev[e].fds = NULL;
	}
}

void evlist_free(struct ps_evlist *evl)
{
	evlist_close(evl);
	for (unsigned e = 0; e < evl->nr; e++) {
		free(evl->ev[e].name);
		free(evl->ev[e].tp_sys);
		free(evl->ev[e].tp_name);
		free(evl->ev[e].ids);
	}
	free(evl->ev);
	free(evl->desc);
	free(evl->cpus);
	free(evl->threads);
	memset(evl, 0, sizeof(*evl));
}

int evlist_describe(struct ps_evlist *evl)
{
	struct ps_event_desc *d = calloc(evl->nr ? evl->nr : 1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	for (unsigned i = 0; i < evl->nr; i++)
		d[i] = (struct ps_event_desc){
			.attr = evl->ev[i].attr, .name = evl->ev[i].name,
			.tp_sys = evl->ev[i].tp_sys, .tp_name = evl->ev[i].tp_name,
			.ids = evl->ev[i].ids, .nr_ids = evl->ev[i].nr_ids,
		};
	free(evl->desc);
	evl->desc = d;
	evl->events = (struct ps_events){
		.ev = d, .nr = evl->nr, .has_tracepoint = evl->has_tracepoint,
		.sample_type = evl->sample_type, .sample_id_all = evl->sample_id_all,
	};
	return 0;
}

int evlist_tracing_data(const struct ps_evlist *evl, struct bytes *out)
{
	const char *sys[evl->nr ? evl->nr : 1], *name[evl->nr ? evl->nr : 1];
	unsigned k = 0;

	for (unsigned i = 0; i < evl->nr; i++) {
		if (!evl->ev[i].tp_sys)
			continue;
		sys[k] = evl->ev[i].tp_sys;
		name[k++] = evl->ev[i].tp_name;
	}
	return k ? tracing_data_build(sys, name, k, out) : 0;
}
