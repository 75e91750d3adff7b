/* Recording options: defaults, one setter per long name, whole-set checks. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/event_spec.h"
#include "config/opts.h"
#include "config/opts_perf.h"
#include "config/value_parse.h"

#define DEFAULT_EVENT "cpu-clock"
#define DEFAULT_FREQ 4000
#define DEFAULT_MMAP_PAGES 128 /* 512 KiB with 4 KiB pages, like perf */
/*
 * 4, not 2: a sink that batches (zstd compresses several buffers at once)
 * holds buffers longer, and with 2 the engine waited for them and the rings
 * overflowed (raw_syscalls storm: 31 000-144 000 events lost with 2, 0 with
 * 4).  Buffers are reused from a free list, so the extra ones are touched
 * only when a sink lags.
 */
#define DEFAULT_AIO 4
#define DEFAULT_DWARF_STACK 8192
#define DWARF_STACK_MAX 65528 /* largest multiple of 8 the kernel takes in a u16 */
#define AIO_MAX 32
#define CPU_MAX 8192
#define ONLINE_PATH "/sys/devices/system/cpu/online"
#define MAX_RATE_PATH "/proc/sys/kernel/perf_event_max_sample_rate"

typedef int (*opt_setter)(struct record_opts *o, const char *v, char *err, size_t errlen);

static uint64_t opt_bit(const char *name);
static uint64_t max_sample_rate(void);

static int events_add(struct record_opts *o, const char *name)
{
	char **ev = realloc(o->events, (o->nr_events + 1) * sizeof(*ev));
	struct event_filter *f;

	if (!ev)
		return -ENOMEM;
	o->events = ev;
	f = realloc(o->filters, (o->nr_events + 1) * sizeof(*f));
	if (!f)
		return -ENOMEM;
	o->filters = f;
	f[o->nr_events] = (struct event_filter){ 0 };
	ev[o->nr_events] = strdup(name);
	if (!ev[o->nr_events])
		return -ENOMEM;
	o->nr_events++;
	return 0;
}

static void events_clear(struct record_opts *o)
{
	for (unsigned i = 0; i < o->nr_events; i++) {
		free(o->events[i]);
		free(o->filters[i].text);
	}
	free(o->events);
	free(o->filters);
	o->events = NULL;
	o->filters = NULL;
	o->nr_events = 0;
}

static int str_replace(char **dst, const char *v, const char *what, char *err, size_t errlen)
{
	char *s;

	if (!*v) {
		snprintf(err, errlen, "empty %s", what);
		return -EINVAL;
	}
	s = strdup(v);
	if (!s)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

/* The syntax is checked here, so a bad -e fails before anything is opened. */
static int set_event(struct record_opts *o, const char *v, char *err, size_t errlen)
{
	struct ev_list l;
	int ret = ev_list_parse(v, &l, err, errlen);

	ev_list_free(&l);
	if (ret)
		return ret;
	if (!(o->source_mask & opt_bit("event")))
		events_clear(o);
	return events_add(o, v);
}

/* Append a tracepoint filter to the last -e of this source, as "(A) && (B)". */
static int filter_append(struct record_opts *o, const char *v, const char *opt, char *err,
			 size_t errlen)
{
	struct event_filter *f;
	char *text;

	if (!(o->source_mask & opt_bit("event")) || !o->nr_events) {
		snprintf(err, errlen, "%s must come after the -e (event) it applies to, a tracepoint",
			 opt);
		return -EINVAL;
	}
	f = &o->filters[o->nr_events - 1];
	if (f->text ? asprintf(&text, "(%s) && (%s)", f->text, v) < 0 : !(text = strdup(v)))
		return -ENOMEM;
	free(f->text);
	f->text = text;
	return 0;
}

static int set_filter(struct record_opts *o, const char *v, char *err, size_t errlen)
{
	int ret;

	if (!*v) {
		snprintf(err, errlen, "empty filter; give an expression on the tracepoint's "
			 "fields, e.g. 'prev_pid == 1'");
		return -EINVAL;
	}
	ret = filter_append(o, v, "--filter", err, errlen);
	if (!ret)
		o->filters[o->nr_events - 1].by_filter = true;
	return ret;
}

/* perf's --exclude-perf: the recorder's own pid out of the tracepoint's hits. */
static int set_exclude_perf(struct record_opts *o, const char *v, char *err, size_t errlen)
{
	char f[48];
	bool on;
	int ret;

	if (parse_bool(v, &on)) {
		snprintf(err, errlen, "'%s' is not a boolean; accepted: true, false, yes, no, "
			 "on, off, 1, 0", v);
		return -EINVAL;
	}
	if (!on)
		return 0;
	snprintf(f, sizeof(f), "common_pid != %d", (int)getpid());
	ret = filter_append(o, f, "--exclude-perf", err, errlen);
	if (!ret)
		o->filters[o->nr_events - 1].by_exclude_perf = true;
	return ret;
}

static int set_freq(struct record_opts *o, const char *v, char *err, size_t errlen)
{
	int64_t n;

	/* "max": the kernel's limit, as perf -F max. */
	if (!strcmp(v, "max") && (n = (int64_t)max_sample_rate()) > 0) {
		o->pf.freq_max = true;
	} else if (parse_int(v, 1, UINT32_MAX, &n)) {
		snprintf(err, errlen, "'%s' is not a sampling frequency; give a number of Hz "
			 "from 1 (e.g. 4000) or max (%s)", v, MAX_RATE_PATH);
		return -EINVAL;
	} else {
		o->pf.freq_max = false;
	}
	o->freq = (uint64_t)n;
	o->period = 0;
	if (!(o->source_mask & opt_bit("count")))
		o->set_mask &= ~opt_bit("count"); /* an earlier source's -c */
	return 0;
}

static int set_count(struct record_opts *o, const char *v, char *err, size_t errlen)
{
	int64_t n;

	if (parse_int(v, 1, INT64_MAX, &n)) {
		snprintf(err, errlen, "'%s' is not a sample period; give a count from 1 "
			 "(e.g. 100000)", v);
		return -EINVAL;
	}
	o->period = (uint64_t)n;
	o->freq = 0;
	if (!(o->source_mask & opt_bit("freq")))
		o->set_mask &= ~opt_bit("freq"); /* an earlier source's -F */
	return 0;
}

static int set_call_graph(struct record_opts *o, const char *v, char *err, size_t errlen)
{
	uint64_t size = DEFAULT_DWARF_STACK;

	if (!strcmp(v, "no")) {
		o->callgraph = CG_NONE;
		return 0;
	}
	if (!strcmp(v, "fp")) {
		o->callgraph = CG_FP;
		return 0;
	}
	if (strncmp(v, "dwarf", 5) || (v[5] && v[5] != ',')) {
		snprintf(err, errlen, "'%s' is not a call-graph mode; accepted: fp, dwarf[,SIZE], no", v);
		return -EINVAL;
	}
	if (v[5] == ',' && (parse_size(v + 6, &size) || !size || size % 8 || size > DWARF_STACK_MAX)) {
		snprintf(err, errlen, "dwarf stack size '%s' is not accepted; give a multiple of 8 "
			 "from 8 to %d bytes (e.g. dwarf,8192)", v + 6, DWARF_STACK_MAX);
		return -EINVAL;
	}
	o->callgraph = CG_DWARF;
	o->dwarf_stack = (uint32_t)size;
	return 0;
}

static int set_mmap_pages(struct record_opts *o, const char *v, char *err, size_t errlen)
{
	long ps = sysconf(_SC_PAGESIZE);
	uint32_t pages;

	if (parse_mmap_pages(v, (unsigned)ps, &pages)) {
		snprintf(err, errlen, "'%s' is not a ring size; give a power-of-two number of "
			 "pages (e.g. 128) or a size that is a power-of-two number of %ld-byte "
			 "pages (e.g. 512K)", v, ps);
		return -EINVAL;
	}
	o->mmap_pages = pages;
	return 0;
}

static int set_aio(struct record_opts *o, const char *v, char *err, size_t errlen)
{
	int64_t n;

	if (parse_int(v, 1, AIO_MAX, &n)) {
		snprintf(err, errlen, "'%s' is not accepted; give the number of buffers per "
			 "ring, 1 to %d", v, AIO_MAX);
		return -EINVAL;
	}
	o->aio = (uint32_t)n;
	return 0;
}

static int set_all_cpus(struct record_opts *o, const char *v, char *err, size_t errlen)
{
	if (parse_bool(v, &o->all_cpus)) {
		snprintf(err, errlen, "'%s' is not a boolean; accepted: true, false, yes, no, "
			 "on, off, 1, 0", v);
		return -EINVAL;
	}
	return 0;
}

/* The online CPUs as a map of CPU_MAX entries; the text for messages in txt. */
static int online_cpus_read(unsigned char *map, char *txt, size_t txtlen)
{
	FILE *f = fopen(ONLINE_PATH, "r");
	unsigned n = 0;
	int *cpus;

	if (!f)
		return -errno;
	if (!fgets(txt, (int)txtlen, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	txt[strcspn(txt, "\n")] = '\0';
	if (parse_cpu_list(txt, CPU_MAX, &cpus, &n))
		return -EIO;
	for (unsigned i = 0; i < n; i++)
		map[cpus[i]] = 1;
	free(cpus);
	return 0;
}

static int set_cpu(struct record_opts *o, const char *v, char *err, size_t errlen)
{
	unsigned char online[CPU_MAX] = { 0 };
	char online_txt[256];
	unsigned n;
	int *cpus, ret;

	if (parse_cpu_list(v, CPU_MAX, &cpus, &n)) {
		snprintf(err, errlen, "'%s' is not a CPU list; give CPUs and ranges like 0-3,6 "
			 "(ranges ascending)", v);
		return -EINVAL;
	}
	ret = online_cpus_read(online, online_txt, sizeof(online_txt));
	for (unsigned i = 0; !ret && i < n; i++) {
		if (!online[cpus[i]]) {
			snprintf(err, errlen, "CPU %d in '%s' is not online; online CPUs: %s",
				 cpus[i], v, online_txt);
			ret = -EINVAL;
		}
	}
	free(cpus);
	if (ret == -EINVAL)
		return ret;
	if (ret) {
		snprintf(err, errlen, "cannot read %s: %s", ONLINE_PATH, strerror(-ret));
		return -EINVAL;
	}
	return str_replace(&o->cpu_list, v, "CPU list", err, errlen);
}

static int pid_parse(const char *v, pid_t *out, const char *what, char *err, size_t errlen)
{
	int64_t n;

	if (parse_int(v, 1, INT_MAX, &n)) {
		snprintf(err, errlen, "'%s' is not a %s; give a number from 1", v, what);
		return -EINVAL;
	}
	*out = (pid_t)n;
	return 0;
}

static int set_pid(struct record_opts *o, const char *v, char *err, size_t errlen)
{
	return pid_parse(v, &o->pid, "process id", err, errlen);
}

static int set_tid(struct record_opts *o, const char *v, char *err, size_t errlen)
{
	return pid_parse(v, &o->tid, "thread id", err, errlen);
}

static int set_output(struct record_opts *o, const char *v, char *err, size_t errlen)
{
	return str_replace(&o->output, v, "output path", err, errlen);
}

static int set_duration(struct record_opts *o, const char *v, char *err, size_t errlen)
{
	uint64_t ms;

	if (parse_duration_ms(v, &ms) || !ms) {
		snprintf(err, errlen, "'%s' is not a duration; give a positive number with an "
			 "optional unit ms, s, m or h (e.g. 250ms, 10s, 1.5m; no unit: seconds)", v);
		return -EINVAL;
	}
	o->duration_ms = ms;
	return 0;
}

static int set_plugin_dir(struct record_opts *o, const char *v, char *err, size_t errlen)
{
	return str_replace(&o->plugin_dir, v, "plugin directory", err, errlen);
}

static int set_verbose(struct record_opts *o, const char *v, char *err, size_t errlen)
{
	int64_t n;

	if (parse_int(v, -1, 9, &n)) {
		snprintf(err, errlen, "'%s' is not a verbosity; give -1 (quiet) to 9 "
			 "(1 is the default)", v);
		return -EINVAL;
	}
	o->verbose = (int)n;
	return 0;
}

/* Same order as record_opt_names; set_mask bits index both. */
/* "signal", a size (100M: B/K/M/G suffix) or a time (30s, 10m, 2h, 1d). */
static int set_switch_output(struct record_opts *o, const char *v, char *err, size_t errlen)
{
	size_t n = strlen(v);
	uint64_t x;
	if (!strcmp(v, "signal")) {
		o->switch_output = SWITCH_SIGNAL;
		return 0;
	}
	if (!strcmp(v, "no") || !strcmp(v, "none")) {
		o->switch_output = SWITCH_NONE;
		return 0;
	}
	if (n > 1 && v[n - 1] == 'd') {
		char *h = strndup(v, n - 1);
		int64_t days;
		int r = h ? parse_int(h, 1, 3650, &days) : -ENOMEM;
		free(h);
		if (r == 0) {
			o->switch_output = SWITCH_TIME;
			o->switch_ms = (uint64_t)days * 86400000ULL;
			return 0;
		}
	} else if (n > 1 && strchr("smh", v[n - 1])) {
		if (parse_duration_ms(v, &x) == 0 && x >= 100) {
			o->switch_output = SWITCH_TIME;
			o->switch_ms = x;
			return 0;
		}
	} else if (n > 1 && strchr("BKMGbkmg", v[n - 1])) {
		if (parse_size(v, &x) == 0 && x >= 4096) {
			o->switch_output = SWITCH_SIZE;
			o->switch_size = x;
			return 0;
		}
	}
	snprintf(err, errlen, "'%s' is not accepted; give signal, a size with a unit B, K, M or G "
		 "(at least 4K, e.g. 100M) or a time with a unit s, m, h or d (at least 100ms, e.g. 30s)", v);
	return -EINVAL;
}

static int set_switch_max_files(struct record_opts *o, const char *v, char *err, size_t errlen)
{
	int64_t n;
	if (parse_int(v, 0, 1000000, &n)) {
		snprintf(err, errlen, "'%s' is not accepted; give how many segments to keep, "
			 "0 (all) to 1000000", v);
		return -EINVAL;
	}
	o->switch_max_files = (uint32_t)n;
	return 0;
}

static int set_overwrite(struct record_opts *o, const char *v, char *err, size_t errlen)
{
	if (parse_bool(v, &o->overwrite)) {
		snprintf(err, errlen, "'%s' is not a boolean; accepted: true, false, yes, no, "
			 "on, off, 1, 0", v);
		return -EINVAL;
	}
	return 0;
}

static int set_exclude_self(struct record_opts *o, const char *v, char *err, size_t errlen)
{
	if (parse_bool(v, &o->exclude_self)) {
		snprintf(err, errlen, "'%s' is not a boolean; accepted: true, false, yes, no, "
			 "on, off, 1, 0", v);
		return -EINVAL;
	}
	return 0;
}

static int set_realtime(struct record_opts *o, const char *v, char *err, size_t errlen)
{
	int64_t n;

	if (parse_int(v, 0, 99, &n)) {
		snprintf(err, errlen, "'%s' is not a SCHED_FIFO priority; give 1 to 99 "
			 "(0: normal scheduling)", v);
		return -EINVAL;
	}
	o->realtime = (uint32_t)n;
	return 0;
}

static int set_no_buildid_cache(struct record_opts *o, const char *v, char *err, size_t errlen)
{
	if (parse_bool(v, &o->no_buildid_cache)) {
		snprintf(err, errlen, "'%s' is not a boolean; accepted: true, false, yes, no, "
			 "on, off, 1, 0", v);
		return -EINVAL;
	}
	return 0;
}

static int set_no_buildid(struct record_opts *o, const char *v, char *err, size_t errlen)
{
	if (parse_bool(v, &o->no_buildid)) {
		snprintf(err, errlen, "'%s' is not a boolean; accepted: true, false, yes, no, "
			 "on, off, 1, 0", v);
		return -EINVAL;
	}
	return 0;
}

/* ---- operator outputs: where the run's counters go besides the summary */

static int set_status(struct record_opts *o, const char *v, char *err, size_t errlen)
{
	if (parse_bool(v, &o->status)) {
		snprintf(err, errlen, "'%s' is not a boolean; accepted: true, false, yes, no, "
			 "on, off, 1, 0", v);
		return -EINVAL;
	}
	return 0;
}

static int set_summary_json(struct record_opts *o, const char *v, char *err, size_t errlen)
{
	return str_replace(&o->summary_json, v, "path for --summary-json", err, errlen);
}

static int set_stats_file(struct record_opts *o, const char *v, char *err, size_t errlen)
{
	return str_replace(&o->stats_file, v, "path for --stats-file", err, errlen);
}

static const opt_setter setters[] = {
	set_event, set_freq, set_count, set_call_graph, set_mmap_pages, set_aio,
	set_all_cpus, set_cpu, set_pid, set_tid, set_output, set_duration,
	set_plugin_dir, set_verbose, set_switch_output, set_switch_max_files,
	set_overwrite, set_exclude_self, set_realtime, set_no_buildid_cache, set_no_buildid, set_filter, set_exclude_perf,
	set_status, set_summary_json, set_stats_file,
	set_data, set_period_flag, set_weight, set_raw_samples, set_stat, set_no_samples, set_no_inherit,
	set_all_user, set_all_kernel, set_switch_events, set_namespaces,
	set_sample_identifier, set_running_time, set_code_page_size, set_data_page_size,
	set_phys_data, set_kernel_callchains, set_user_callchains, set_user_regs,
	set_intr_regs, set_max_size, set_delay, set_timestamp_filename,
	set_proc_map_timeout, set_compression_level, set_clockid, set_control,
	set_no_bpf_event,
};

const char *const record_opt_names[] = {
	"event", "freq", "count", "call-graph", "mmap-pages", "aio",
	"all-cpus", "cpu", "pid", "tid", "output", "duration",
	"plugin-dir", "verbose", "switch-output", "switch-max-files",
	"overwrite", "exclude-self", "realtime", "no-buildid-cache", "no-buildid", "filter", "exclude-perf",
	"status", "summary-json", "stats-file",
	"data", "period", "weight", "raw-samples", "stat", "no-samples", "no-inherit",
	"all-user", "all-kernel", "switch-events", "namespaces",
	"sample-identifier", "running-time", "code-page-size", "data-page-size",
	"phys-data", "kernel-callchains", "user-callchains", "user-regs",
	"intr-regs", "max-size", "delay", "timestamp-filename",
	"proc-map-timeout", "compression-level", "clockid", "control",
	"no-bpf-event", NULL,
};

#define NR_OPTS (sizeof(setters) / sizeof(setters[0]))
/* set_mask has one bit per option, set_text one entry. */
_Static_assert(NR_OPTS <= 64, "more options than set_mask bits");
_Static_assert(NR_OPTS <= sizeof(((struct record_opts *)0)->set_text) / sizeof(char *),
	       "more options than set_text entries");
_Static_assert(NR_OPTS == sizeof(record_opt_names) / sizeof(record_opt_names[0]) - 1,
	       "setters[] and record_opt_names[] differ in length");

/* Index of name in record_opt_names, '_' matching '-'; -1 if unknown. */
static int opt_index(const char *name)
{
	for (unsigned i = 0; i < NR_OPTS; i++) {
		const char *a = name, *b = record_opt_names[i];

		while (*a && (*a == *b || (*a == '_' && *b == '-'))) {
			a++;
			b++;
		}
		if (!*a && !*b)
			return (int)i;
	}
	return -1;
}

static uint64_t opt_bit(const char *name)
{
	int i = opt_index(name);

	return i < 0 ? 0 : 1ULL << i;
}

void record_opts_init(struct record_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->freq = DEFAULT_FREQ;
	o->mmap_pages = DEFAULT_MMAP_PAGES;
	o->aio = DEFAULT_AIO;
	o->dwarf_stack = DEFAULT_DWARF_STACK;
	o->exclude_self = true;
	o->status = true;
	o->verbose = 1;
	o->pf.clockid = -1;
	if (events_add(o, DEFAULT_EVENT))
		o->nr_events = 0; /* record_opts_check reports it */
}

/* n strings, or up to a NULL when n is UINT_MAX */
static void strv_free(char **v, unsigned n)
{
	for (unsigned i = 0; v && i < n && v[i]; i++)
		free(v[i]);
	free(v);
}

void record_opts_free(struct record_opts *o)
{
	events_clear(o);
	free(o->cpu_list);
	free(o->output);
	free(o->plugin_dir);
	free(o->pf.control);
	free(o->config_path);
	free(o->summary_json);
	free(o->stats_file);
	strv_free(o->sinks, o->nr_sinks);
	strv_free(o->argv, UINT_MAX);
	for (unsigned i = 0; i < NR_OPTS; i++)
		free(o->set_text[i]);
	memset(o, 0, sizeof(*o));
}

int record_opt_set(struct record_opts *o, const char *name, const char *value,
		   char *err, size_t errlen)
{
	int i = opt_index(name);
	int ret;

	if (i < 0) {
		snprintf(err, errlen, "unknown option '%s'", name);
		return -ENOENT;
	}
	if (!value) /* a flag given without a value */
		value = "true";
	ret = setters[i](o, value, err, errlen);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (!ret) {
		o->set_mask |= 1ULL << i;
		o->source_mask |= 1ULL << i;
		free(o->set_text[i]);
		o->set_text[i] = strdup(value); /* NULL: only check's listing misses it */
	}
	return ret;
}

const char *record_opt_text(const struct record_opts *o, const char *name)
{
	int i = opt_index(name);

	return i >= 0 && (o->set_mask & (1ULL << i)) ? o->set_text[i] : NULL;
}

bool record_opt_is_set(const struct record_opts *o, const char *name)
{
	int i = opt_index(name);

	return i >= 0 && (o->set_mask & (1ULL << i));
}

void record_opts_source_begin(struct record_opts *o)
{
	o->source_mask = 0;
}

void record_opts_source_target(struct record_opts *o, bool has_command)
{
	uint64_t target = opt_bit("all-cpus") | opt_bit("cpu") | opt_bit("pid") | opt_bit("tid");
	uint64_t earlier = o->set_mask & target & ~o->source_mask;

	if (!earlier || (!(o->source_mask & target) && !has_command))
		return;
	if (earlier & opt_bit("all-cpus"))
		o->all_cpus = false;
	if (earlier & opt_bit("cpu")) {
		free(o->cpu_list);
		o->cpu_list = NULL;
	}
	if (earlier & opt_bit("pid"))
		o->pid = 0;
	if (earlier & opt_bit("tid"))
		o->tid = 0;
	o->set_mask &= ~earlier;
}

/* The kernel's limit on -F; 0 when it cannot be read. */
static uint64_t max_sample_rate(void)
{
	unsigned long long v = 0;
	FILE *f = fopen(MAX_RATE_PATH, "r");

	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

void record_opts_default_ring(struct record_opts *o)
{
	long ps = sysconf(_SC_PAGESIZE), ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (record_opt_is_set(o, "mmap-pages") || geteuid() != 0 || ps <= 0 ||
	    ncpu > PRIVILEGED_RING_MAX_CPUS)
		return;
	o->mmap_pages = (uint32_t)((2u << 20) / (unsigned long)ps);
}

int record_opts_check(const struct record_opts *o, char *err, size_t errlen)
{
	uint64_t max_rate;

	if (!o->nr_events) {
		snprintf(err, errlen, "no event to record; give -e NAME (e.g. -e cpu-clock)");
		return -EINVAL;
	}
	if (o->overwrite && (o->switch_output == SWITCH_SIZE || o->switch_output == SWITCH_TIME)) {
		snprintf(err, errlen, "--overwrite dumps the rings on SIGUSR2 and at the end; "
			 "--switch-output by size or time does not go with it");
		return -EINVAL;
	}
	if (o->output && !strcmp(o->output, "-") && (o->switch_output != SWITCH_NONE || o->overwrite)) {
		snprintf(err, errlen, "%s makes a new output at each cut, and -o - is one pipe-mode "
			 "stream on standard output; write to a file (-o PATH) to rotate",
			 o->overwrite ? "--overwrite" : "--switch-output");
		return -EINVAL;
	}
	if (o->switch_max_files && o->switch_output == SWITCH_NONE && !o->overwrite) {
		snprintf(err, errlen, "--switch-max-files needs --switch-output (or --overwrite)");
		return -EINVAL;
	}
	if ((o->pid || o->tid) && o->all_cpus) {
		snprintf(err, errlen, "%s and -a/--all-cpus cannot be used together; give one "
			 "target", o->pid ? "-p/--pid" : "-t/--tid");
		return -EINVAL;
	}
	if (o->pid && o->tid) {
		snprintf(err, errlen, "-p/--pid and -t/--tid cannot be used together; give one");
		return -EINVAL;
	}
	if ((o->pid || o->tid) && o->argv && o->argv[0]) {
		snprintf(err, errlen, "%s and a command cannot be used together; attach to a "
			 "running process or start one", o->pid ? "-p/--pid" : "-t/--tid");
		return -EINVAL;
	}
	if (record_opt_is_set(o, "freq") && record_opt_is_set(o, "count")) {
		snprintf(err, errlen, "-F/--freq and -c/--count cannot be used together; "
			 "sample by frequency or by period");
		return -EINVAL;
	}
	max_rate = max_sample_rate();
	if (!o->period && max_rate && o->freq > max_rate) {
		snprintf(err, errlen, "-F/--freq %" PRIu64 " is above the kernel's limit %" PRIu64
			 " (%s); give -F %" PRIu64 " or less", o->freq, max_rate, MAX_RATE_PATH,
			 max_rate);
		return -EINVAL;
	}
	return 0;
}
