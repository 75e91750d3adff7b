#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "base/log.h"
#include "engine/evlist.h"
#include "config/event_spec.h"
#include "engine/attr_opts.h"
#include "engine/evlist_track.h"
#include "config/opts.h"
#include "probe/tracing_data.h"
#include "config/value_parse.h"

const char *evlist_event_name(uint32_t type, uint64_t config)
{
	return ev_symbol_name(type, config);
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

static bool needs_pmu(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE ||
	       a->type == PERF_TYPE_RAW;
}

static int paranoid_level(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = 2;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

static void open_error(const struct ps_event *ev, int cpu, pid_t tid, int e, char *err, size_t errlen)
{
	const char *why = strerror(e);
	char hint[256] = "";
	if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV || e == ENXIO)
		snprintf(hint, sizeof(hint), needs_pmu(&ev->attr)
			 ? ": no hardware PMU for this event on this machine; use a software event such as cpu-clock"
			 : ": not supported here");
	else if ((e == EACCES || e == EPERM) && tid == -1)
		snprintf(hint, sizeof(hint), ": recording every CPU (-a, -C) needs root, CAP_PERFMON or "
			 "kernel.perf_event_paranoid 0 or lower (it is %d); a command of your own, or "
			 "-p, is recorded without them (user space only)",
			 paranoid_level());
	else if (e == EACCES || e == EPERM)
		snprintf(hint, sizeof(hint), ": run as root or lower /proc/sys/kernel/perf_event_paranoid");
	else if (e == ESRCH)
		snprintf(hint, sizeof(hint), ": thread %d is gone", (int)tid);
	else if (e == EMFILE)
		snprintf(hint, sizeof(hint), ": raise the open file limit (ulimit -n)");
	else if (e == EINVAL && ev->attr.type >= PERF_TYPE_MAX)
		snprintf(hint, sizeof(hint), ": its PMU refuses this config or sampling (not every PMU can sample)");
	else if (e == EINVAL && ev->attr.type == PERF_TYPE_BREAKPOINT)
		snprintf(hint, sizeof(hint), ": the kernel refuses this breakpoint (address, length or access type)");
	else if (e == EINVAL && ev->attr.freq)
		snprintf(hint, sizeof(hint), ": is -F above /proc/sys/kernel/perf_event_max_sample_rate?");
	snprintf(err, errlen, "cannot open event '%s' on CPU %d: %s%s", ev->name, cpu, why, hint);
}

/*
 * As perf does (evsel__fallback): when perf_event_paranoid forbids kernel
 * samples to this user, record user space only instead of failing, and say
 * so once, with what to change for more.  True when ev was changed.
 */
static bool kernel_fallback(struct ps_event *ev, int e)
{
	static bool said;
	int paranoid;

	if ((e != EACCES && e != EPERM) || ev->attr.exclude_kernel || ev->tp_sys ||
	    (paranoid = paranoid_level()) < 2)
		return false;
	ev->attr.exclude_kernel = 1;
	ev->attr.exclude_hv = 1;
	if (!said)
		pr_warn("kernel.perf_event_paranoid = %d forbids kernel samples to this user: recording "
			"user space only (as -e %s:u); to record the kernel too, run as root, grant "
			"CAP_PERFMON, or set kernel.perf_event_paranoid to 1 (sysctl)", paranoid, ev->name);
	said = true;
	return true;
}

/* perf's evsel__add_modifiers: the name suffix of a renamed event (":uH"). */
static void mods_suffix(const struct perf_event_attr *a, char *bf, size_t n)
{
	bool guest_default = false;
	size_t r = 1;

	bf[0] = ':';
	bf[1] = '\0';
	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		r += (size_t)snprintf(bf + r, n - r, "%s%s%s", a->exclude_kernel ? "" : "k",
				      a->exclude_user ? "" : "u", a->exclude_hv ? "" : "h");
		guest_default = true;
	}
	if (a->precise_ip) {
		r += (size_t)snprintf(bf + r, n - r, "%.*s", (int)a->precise_ip, "ppp");
		guest_default = true;
	}
	if (a->exclude_host || a->exclude_guest == guest_default)
		r += (size_t)snprintf(bf + r, n - r, "%s%s", a->exclude_host ? "" : "H",
				      a->exclude_guest ? "" : "G");
	if (r == 1)
		bf[0] = '\0';
}

/*
 * perf's fallbacks on the first open of an event: cycles without a PMU
 * becomes cpu-clock (evsel__fallback), and :P lowers precise_ip until the
 * kernel takes it.  True when attr changed and the open is worth retrying.
 */
static bool open_fallback(struct ps_event *ev, int e)
{
	struct perf_event_attr *a = &ev->attr;

	if ((e == ENOENT || e == ENXIO || e == ENODEV || e == EOPNOTSUPP) &&
	    a->type == PERF_TYPE_HARDWARE && a->config == PERF_COUNT_HW_CPU_CYCLES) {
		char mods[16], *name;
		mods_suffix(a, mods, sizeof(mods));
		if (asprintf(&name, "cpu-clock%s", mods) < 0)
			return false;
		pr_info("The cycles event is not supported, recording cpu-clock instead (as perf does)");
		free(ev->name);
		ev->name = name;
		a->type = PERF_TYPE_SOFTWARE;
		a->config = PERF_COUNT_SW_CPU_CLOCK;
		return true;
	}
	if ((e == EINVAL || e == EOPNOTSUPP) && ev->precise_max && a->precise_ip) {
		a->precise_ip--;
		return true;
	}
	return false;
}

/* --filter / --exclude-perf on every fd of a tracepoint. */
static int filter_set(const struct ps_event *ev, unsigned n, char *err, size_t errlen)
{
	for (unsigned i = 0; ev->filter && i < n; i++) {
		if (ev->fds[i] >= 0 && ioctl(ev->fds[i], PERF_EVENT_IOC_SET_FILTER, ev->filter) < 0) {
			int e = errno;
			snprintf(err, errlen, "the kernel refused the filter \"%s\" on tracepoint %s: "
				 "%s%s", ev->filter, ev->name, strerror(e),
				 e == EINVAL ? " (check the expression against the fields in the "
				 "tracepoint's format file in tracefs)" : "");
			return -e;
		}
	}
	return 0;
}

static int open_one(struct ps_evlist *evl, unsigned e, unsigned c, unsigned t, bool first,
		    char *err, size_t errlen)
{
	struct ps_event *ev = &evl->ev[e];
	unsigned i = c * evl->nr_threads + t;
	int group_fd = ev->leader_off ? (ev - ev->leader_off)->fds[i] : -1, fd;

	if (ev->leader_off && group_fd < 0)
		return 0; /* its leader's thread is gone */
	for (;;) {
		fd = (int)syscall(SYS_perf_event_open, &ev->attr, evl->threads[t], evl->cpus[c],
				  group_fd, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0 || !first)
			break;
		int er = errno;
		/* Per task only: recording every CPU needs more than user space. */
		if (!open_fallback(ev, er) && !(evl->threads[t] != -1 && kernel_fallback(ev, er))) {
			errno = er;
			break;
		}
	}
	if (fd < 0) {
		int er = errno;
		/* A thread of -p that exited meanwhile is not an error. */
		if (er == ESRCH && evl->nr_threads > 1)
			return 0;
		open_error(ev, evl->cpus[c], evl->threads[t], er, err, errlen);
		return -er;
	}
	ev->fds[i] = fd;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &ev->ids[ev->nr_ids]) < 0) {
		snprintf(err, errlen, "event '%s': cannot read its id: %s", ev->name, strerror(errno));
		return -errno;
	}
	ev->nr_ids++;
	return 0;
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
				int r = open_one(evl, e, c, t, c == 0 && t == 0, err, errlen);
				if (r < 0)
					return r;
			}
		}
		int r = filter_set(ev, n, err, errlen);
		if (r < 0)
			return r;
	}
	return 0;
}

int evlist_fd_lost(const struct ps_event *ev, unsigned slot, uint64_t *ids, uint64_t *lost)
{
	/* [nr,] [enabled], [running] (-s, --running-time), then {value, id, lost}... */
	uint64_t v[3 + 3 * EVLIST_LOST_MAX];
	uint64_t rf = ev->attr.read_format;
	unsigned times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	int fd = ev->fds ? ev->fds[slot] : -1, n = 0;
	bool group = rf & PERF_FORMAT_GROUP;
	ssize_t got;

	if (fd < 0 || (group && ev->leader_off))
		return 0;
	if (!group) {
		/* value, [enabled], [running], id, lost */
		ssize_t want = (ssize_t)((3 + times) * sizeof(uint64_t));
		if (read(fd, v, (size_t)want) < want)
			return 0;
		ids[0] = v[1 + times];
		lost[0] = v[2 + times];
		return 1;
	}
	got = read(fd, v, sizeof(v));
	for (uint64_t k = 0; got > 0 && k < v[0] && k < EVLIST_LOST_MAX; k++, n++) {
		size_t base = 1 + times + 3 * k;
		if ((ssize_t)((base + 3) * sizeof(uint64_t)) > got)
			break;
		ids[n] = v[base + 1];
		lost[n] = v[base + 2];
	}
	return n;
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
		free(evl->ev[e].group_name);
		free(evl->ev[e].filter);
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
			.nr_members = evl->ev[i].nr_members, .group_name = evl->ev[i].group_name,
		};
	free(evl->desc);
	evl->desc = d;
	evl->events = (struct ps_events){
		.ev = d, .nr = evl->nr, .has_tracepoint = evl->has_tracepoint,
		.sample_type = evl->sample_type, .sample_id_all = evl->sample_id_all,
	};
	return 0;
}

/* Whether an event before i is the same tracepoint (its format goes in once). */
static bool tracepoint_seen(const struct ps_evlist *evl, unsigned i)
{
	for (unsigned j = 0; j < i; j++)
		if (evl->ev[j].tp_sys && !strcmp(evl->ev[j].tp_sys, evl->ev[i].tp_sys) &&
		    !strcmp(evl->ev[j].tp_name, evl->ev[i].tp_name))
			return true;
	return false;
}

int evlist_tracing_data(const struct ps_evlist *evl, struct bytes *out)
{
	const char *sys[evl->nr ? evl->nr : 1], *name[evl->nr ? evl->nr : 1];
	unsigned k = 0;

	for (unsigned i = 0; i < evl->nr; i++) {
		if (!evl->ev[i].tp_sys || tracepoint_seen(evl, i))
			continue;
		sys[k] = evl->ev[i].tp_sys;
		name[k++] = evl->ev[i].tp_name;
	}
	return k ? tracing_data_build(sys, name, k, out) : 0;
}
