/*
 * COMM/FORK/MMAP2 for tasks that exist before recording starts, read from
 * /proc the way perf record 6.1 does (synthetic-events.c), and FINISHED_INIT.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "format/events.h"
#include "base/log.h"
#include "format/record.h"
#include "probe/synth.h"
#include "probe/synth_parse.h"

#define SYNTH_BUDGET_MS 500

/* State shared by every process of one walk. */
struct synth_walk {
	uint64_t deadline_ns; /* UINT64_MAX: none */
	uint64_t per_task_ns; /* --proc-map-timeout: each process's own budget; 0: one for the walk */
	bool mmap_data;       /* readable data maps too, as the attrs ask */
	char hugetlbfs[256];  /* first hugetlbfs mount point, or "" */
	struct synth_stats st;
};

/* perf shows hugetlbfs files as "//anon" with MAP_HUGETLB: find the mount. */
static void hugetlbfs_find(char *out, size_t len)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen("/proc/self/mounts", "re");

	out[0] = '\0';
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		const char *mnt, *type;
		if (!mounts_line_parse(line, &mnt, &type) && !strcmp(type, "hugetlbfs")) {
			snprintf(out, len, "%s", mnt);
			break;
		}
	}
	free(line);
	fclose(f);
}

/* perf synthesizes data maps when it records them (opts->sample_address). */
static bool wants_mmap_data(const struct ps_events *evs)
{
	for (unsigned i = 0; evs && i < evs->nr; i++)
		if (evs->ev[i].attr.mmap_data)
			return true;
	return false;
}

static void synth_walk_init(struct synth_walk *w, const struct ps_events *evs,
			    uint64_t deadline_ns)
{
	memset(w, 0, sizeof(*w));
	w->deadline_ns = deadline_ns;
	w->mmap_data = wants_mmap_data(evs);
	hugetlbfs_find(w->hugetlbfs, sizeof(w->hugetlbfs));
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void task_sid(struct ps_sample_id *sid, pid_t pid, pid_t tid)
{
	memset(sid, 0, sizeof(*sid));
	sid->pid = (uint32_t)pid;
	sid->tid = (uint32_t)tid;
}

void synth_comm(struct bytes *b, const struct ps_events *evs, pid_t pid, pid_t tid,
		const char *comm)
{
	struct ps_sample_id sid;
	size_t start = record_begin(b, PERF_RECORD_COMM, 0);

	bytes_u32(b, (uint32_t)pid);
	bytes_u32(b, (uint32_t)tid);
	record_string(b, comm);
	task_sid(&sid, pid, tid);
	record_end(b, start, evs, &sid);
}

/* perf 6.1's NAMESPACES order (NET_NS_INDEX .. CGROUP_NS_INDEX), /proc/PID/ns names. */
static const char *const ns_names[] = { "net", "uts", "ipc", "pid", "user", "mnt", "cgroup" };

static bool wants_namespaces(const struct ps_events *evs)
{
	for (unsigned i = 0; evs && i < evs->nr; i++)
		if (evs->ev[i].attr.namespaces)
			return true;
	return false;
}

void synth_namespaces(struct bytes *b, const struct ps_events *evs, pid_t pid, pid_t tid)
{
	const unsigned nr = sizeof(ns_names) / sizeof(ns_names[0]);
	struct ps_sample_id sid;
	size_t start;

	if (!wants_namespaces(evs))
		return;
	start = record_begin(b, PERF_RECORD_NAMESPACES, 0);
	bytes_u32(b, (uint32_t)pid);
	bytes_u32(b, (uint32_t)tid);
	bytes_u64(b, nr);
	for (unsigned i = 0; i < nr; i++) {
		char path[64];
		struct stat st;

		/* An unreadable namespace is {0, 0}, as perf leaves it. */
		snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)pid, ns_names[i]);
		if (stat(path, &st) < 0)
			memset(&st, 0, sizeof(st));
		bytes_u64(b, (uint64_t)st.st_dev);
		bytes_u64(b, (uint64_t)st.st_ino);
	}
	task_sid(&sid, pid, tid);
	record_end(b, start, evs, &sid);
}

/* FORK_EXEC marks it synthesized, so perf does not copy the parent's comm. */
static void emit_fork(struct bytes *b, const struct ps_events *evs, pid_t pid, pid_t tid,
		      pid_t ppid, pid_t ptid)
{
	struct ps_sample_id sid;
	size_t start = record_begin(b, PERF_RECORD_FORK, PERF_RECORD_MISC_FORK_EXEC);

	bytes_u32(b, (uint32_t)pid);
	bytes_u32(b, (uint32_t)ppid);
	bytes_u32(b, (uint32_t)tid);
	bytes_u32(b, (uint32_t)ptid);
	bytes_u64(b, 0);
	task_sid(&sid, pid, tid);
	record_end(b, start, evs, &sid);
}

static void emit_mmap2(struct bytes *b, const struct ps_events *evs, pid_t pid,
		       const struct maps_entry *e, uint16_t misc, const char *hugetlbfs)
{
	struct ps_sample_id sid;
	const char *name = e->path;
	uint32_t flags = e->flags;
	size_t start = record_begin(b, PERF_RECORD_MMAP2, misc);

	if (!*name) {
		name = "//anon";
	} else if (*hugetlbfs && !strncmp(name, hugetlbfs, strlen(hugetlbfs))) {
		name = "//anon";
		flags |= MAP_HUGETLB;
	} else if (strlen(name) >= PATH_MAX) {
		name = "//toolong"; /* header.size is 16 bits */
	}
	bytes_u32(b, (uint32_t)pid);
	bytes_u32(b, (uint32_t)pid);
	bytes_u64(b, e->start);
	bytes_u64(b, e->end - e->start);
	bytes_u64(b, e->pgoff);
	bytes_u32(b, e->maj);
	bytes_u32(b, e->min);
	bytes_u64(b, e->ino);
	bytes_u64(b, 0); /* ino_generation: not in maps */
	bytes_u32(b, e->prot);
	bytes_u32(b, flags);
	record_string(b, name);
	task_sid(&sid, pid, pid);
	record_end(b, start, evs, &sid);
}

/*
 * MMAP2 per executable map of pid, and per readable one flagged MMAP_DATA
 * when the attrs have mmap_data (synthetic-events.c).  Past the deadline perf emits the line it
 * is on, flagged, and stops; we do the same so perf report can count it.
 */
static void synth_maps(struct bytes *b, const struct ps_events *evs, pid_t pid,
		       struct synth_walk *w)
{
	char path[64];
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/maps", (int)pid, (int)pid);
	f = fopen(path, "re");
	if (!f)
		return; /* exited meanwhile */
	while (getline(&line, &cap, f) > 0) {
		struct maps_entry e;
		uint16_t misc = PERF_RECORD_MISC_USER;
		bool late = now_ns() >= w->deadline_ns;

		if (maps_line_parse(line, &e))
			continue;
		if (late) {
			emit_mmap2(b, evs, pid, &e, misc | PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT,
				   w->hugetlbfs);
			w->st.maps_truncated++;
			break;
		}
		if (e.prot & PROT_EXEC)
			emit_mmap2(b, evs, pid, &e, misc, w->hugetlbfs);
		else if (w->mmap_data && (e.prot & PROT_READ))
			emit_mmap2(b, evs, pid, &e, misc | PERF_RECORD_MISC_MMAP_DATA,
				   w->hugetlbfs);
	}
	free(line);
	fclose(f);
}

static int read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, len - 1);
	int err = errno;
	close(fd);
	if (n < 0)
		return -err;
	buf[n] = '\0';
	return 0;
}

static int task_status_read(pid_t pid, pid_t tid, struct task_status *st)
{
	char path[64], text[4096];
	int err;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	err = read_text(path, text, sizeof(text));
	return err ? err : task_status_parse(text, st);
}

/* fork_main: also a FORK for the main thread (its parent from PPid), as -a does. */
static int synth_process_walk(struct bytes *b, const struct ps_events *evs, pid_t pid,
			      bool fork_main, struct synth_walk *w)
{
	char path[64];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return errno == ENOENT ? -ESRCH : -errno;
	if (w->per_task_ns)
		w->deadline_ns = now_ns() + w->per_task_ns;
	while ((d = readdir(dir))) {
		struct task_status st;
		char *end;
		long tid = strtol(d->d_name, &end, 10);

		if (!isdigit((unsigned char)d->d_name[0]) || *end)
			continue;
		if (task_status_read(pid, (pid_t)tid, &st))
			continue; /* exited meanwhile */
		if (tid != st.tgid)
			emit_fork(b, evs, st.tgid, (pid_t)tid, st.tgid, st.tgid);
		else if (fork_main)
			emit_fork(b, evs, st.tgid, (pid_t)tid, st.ppid, st.ppid);
		synth_comm(b, evs, st.tgid, (pid_t)tid, st.name);
		synth_namespaces(b, evs, st.tgid, (pid_t)tid);
		if (tid == st.tgid && !st.kernel_thread)
			synth_maps(b, evs, st.tgid, w);
	}
	closedir(dir);
	w->st.processes++;
	return b->err;
}

int synth_process(struct bytes *b, const struct ps_events *evs, pid_t pid)
{
	struct synth_walk w;

	synth_walk_init(&w, evs, UINT64_MAX);
	return synth_process_walk(b, evs, pid, false, &w);
}

int synth_all_processes_budget(struct bytes *b, const struct ps_events *evs,
			       unsigned budget_ms, struct synth_stats *st)
{
	struct synth_walk w;
	struct dirent *d;
	DIR *dir;

	synth_walk_init(&w, evs, now_ns() + (uint64_t)budget_ms * 1000000u);
	dir = opendir("/proc");
	if (!dir)
		return -errno;
	while ((d = readdir(dir)) && !b->err) {
		char *end;
		long pid = strtol(d->d_name, &end, 10);

		if (isdigit((unsigned char)d->d_name[0]) && !*end)
			synth_process_walk(b, evs, (pid_t)pid, true, &w); /* gone: skip */
	}
	closedir(dir);
	if (st)
		*st = w.st;
	return b->err;
}

/* perf's --proc-map-timeout: the same walk with a budget per process. */
static int synth_all_per_task(struct bytes *b, const struct ps_events *evs, unsigned ms,
			      struct synth_stats *st)
{
	struct synth_walk w;
	struct dirent *d;
	DIR *dir;

	synth_walk_init(&w, evs, UINT64_MAX);
	w.per_task_ns = (uint64_t)ms * 1000000u;
	dir = opendir("/proc");
	if (!dir)
		return -errno;
	while ((d = readdir(dir)) && !b->err) {
		char *end;
		long pid = strtol(d->d_name, &end, 10);

		if (isdigit((unsigned char)d->d_name[0]) && !*end)
			synth_process_walk(b, evs, (pid_t)pid, true, &w);
	}
	closedir(dir);
	*st = w.st;
	return b->err;
}

int synth_all_processes(struct bytes *b, const struct ps_events *evs, unsigned per_task_ms)
{
	struct synth_stats st;
	int err = per_task_ms ? synth_all_per_task(b, evs, per_task_ms, &st)
			      : synth_all_processes_budget(b, evs, SYNTH_BUDGET_MS, &st);

	if (!err && st.maps_truncated)
		pr_warn("reading /proc/PID/maps took over %u ms%s: maps of %u of %u processes are "
			"incomplete, their samples may not resolve (--proc-map-timeout)",
			per_task_ms ? per_task_ms : SYNTH_BUDGET_MS,
			per_task_ms ? " for one process" : "", st.maps_truncated, st.processes);
	return err;
}

void synth_finished_init(struct bytes *b)
{
	size_t start = record_begin(b, PERFSINK_RECORD_FINISHED_INIT, 0);
	record_end(b, start, NULL, NULL);
}
