#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "cli/atomic_file.h"
#include "cli/cli.h"
#include "cli/perf_compat.h"
#include "cli/summary.h"
#include "cli/watch.h"
#include "config/config_file.h"
#include "loader/bind.h"
#include "engine/engine.h"
#include "base/log.h"
#include "config/opts.h"
#include "loader/plugin.h"
#include "engine/signals.h"
#include "engine/sinkset.h"
#include "config/value_parse.h"

static const char record_usage[] =
	"usage: perfsink record [options] [-- command [args]]\n"
	"\n"
	"Record perf events into the configured sinks (default: ./perf.data).\n"
	"\n"
	"  -e, --event EVENT        events in perf's syntax (repeatable; default: cpu-clock):\n"
	"                           cpu-clock, task-clock, page-faults, context-switches,\n"
	"                           ...; tracepoints sched:sched_switch, sched:sched_*;\n"
	"                           groups {A,B}; modifiers A:u, :k, :p, :S, ...; terms\n"
	"                           A/period=N,freq=N,call-graph=fp|dwarf|no,name=X/;\n"
	"                           mem:ADDR[/LEN][:rwx], rHEX, TYPE:CONFIG (perfsink(1))\n"
	"      --filter FILTER      tracepoint filter for the -e just before it\n"
	"                           (e.g. 'prev_pid == 1'; the kernel checks it)\n"
	"      --exclude-perf       drop perfsink's own hits of the -e tracepoints just\n"
	"                           before it (a filter on common_pid, as perf)\n"
	"  -F, --freq HZ            sampling frequency (default 4000)\n"
	"  -c, --count N            sample every N events instead of -F\n"
	"  -g                       record call chains (frame pointers)\n"
	"      --call-graph MODE    fp | dwarf[,SIZE] | no (default no; SIZE: user stack\n"
	"                           bytes, default 8192)\n"
	"  -a, --all-cpus           system-wide, every online CPU\n"
	"  -C, --cpu LIST           system-wide on these CPUs only (0-3,6)\n"
	"  -p, --pid PID            an existing process and its threads\n"
	"  -t, --tid TID            one existing thread\n"
	"  -m, --mmap-pages N       ring size per CPU: pages (power of two) or size (512K);\n"
	"                           default 512K, 2M for root with up to 32 CPUs\n"
	"  -o, --output PATH        path of the one file-writing sink (default ./perf.data);\n"
	"                           - writes perf's pipe format to stdout (pipe sink),\n"
	"                           as does no -o with stdout a pipe and no config\n"
	"      --aio[=N]            pooled buffers (AIO control blocks) per ring, 1..32 (default 4)\n"
	"      --duration SECONDS   stop after this long (also 500ms, 2m)\n"
	"      --config FILE        INI config: [record] options and [sink.NAME] sections\n"
	"      --sink NAME          use only this configured sink (repeatable)\n"
	"      --plugin-dir DIR     look for sink plugins here first\n"
	"      --switch-output[=signal|SIZE|TIME]\n"
	"                           rotate: finish each output and start the next on\n"
	"                           SIGUSR2 (default), every SIZE of data (100M) or\n"
	"                           every TIME (30s, 10m, 1h, 1d)\n"
	"      --switch-max-files N keep only the newest N outputs\n"
	"      --overwrite          flight recorder: the kernel overwrites the oldest\n"
	"                           data; the rings are dumped to a new output on\n"
	"                           SIGUSR2 and at the end\n"
	"  -r, --realtime PRIO      run perfsink's threads with SCHED_FIFO priority\n"
	"                           PRIO (1..99), as perf record -r: the rings are\n"
	"                           drained at once even when every CPU is busy\n"
	"      --exclude-self[=BOOL] with -a/-C, drop perfsink's own samples and\n"
	"                           tracepoint hits in the kernel (default yes; no to\n"
	"                           see perfsink itself)\n"
	"  -N, --no-buildid-cache   do not add the recorded binaries to perf's build-id\n"
	"                           cache ($HOME/.debug), which perf record fills by default\n"
	"  -B, --no-buildid         no build-id list in the header (and no cache), as perf -B\n"
	"      --status[=BOOL]      one live status line on a terminal, refreshed every\n"
	"                           second (default true; never with -q or a pipe)\n"
	"      --no-status          the same as --status=no\n"
	"      --summary-json FILE  write the summary as JSON to FILE at the end\n"
	"      --stats-file PATH    keep the counters in PATH (Prometheus text format),\n"
	"                           rewritten every 2 s, for node_exporter's textfile\n"
	"                           collector\n"
	"\n"
	"perf record's sample and run options, with perf's meaning (docs/perf-compat.md):\n"
	"  -d, --data               sample data addresses (ADDR, DATA_SRC) and record\n"
	"                           data mappings\n"
	"  -P, --period             keep the period in samples with -c too\n"
	"  -W, --weight             sample the weight (WEIGHT_STRUCT)\n"
	"  -R, --raw-samples        raw data and CPU in every sample\n"
	"  -s, --stat               per-thread counts (inherit_stat, enabled/running times)\n"
	"  -n, --no-samples         count only, no samples\n"
	"  -i, --no-inherit         child tasks are not recorded\n"
	"      --all-user           every event in user space only\n"
	"      --all-kernel         every event in kernel space only\n"
	"      --switch-events      record context switches (SWITCH records)\n"
	"      --namespaces         record namespaces (NAMESPACES records)\n"
	"      --sample-identifier  IDENTIFIER in every sample\n"
	"      --running-time       enabled and running times in counter reads\n"
	"      --code-page-size     the page size of each sampled ip\n"
	"      --data-page-size     the page size of each sampled data address\n"
	"      --phys-data          the physical address of each sampled data address\n"
	"      --kernel-callchains  with -g: kernel call chains only\n"
	"      --user-callchains    with -g: user call chains only\n"
	"      --user-regs[=REGS]   sample user registers (ax,bx,...; all without REGS)\n"
	"  -I, --intr-regs[=REGS]   sample registers at the interrupt (all without REGS)\n"
	"      --no-bpf-event       no ksymbol/bpf_event records\n"
	"  -k, --clockid CLOCK      sample times from CLOCK (monotonic, monotonic_raw,\n"
	"                           realtime, boottime, tai or a number); writes CLOCKID\n"
	"                           and CLOCK_DATA so perf script -F tod shows wall time\n"
	"  -D, --delay MS           enable the events MS after the command starts;\n"
	"                           -1: start disabled (enable with --control)\n"
	"      --control CHANNEL    fifo:CTL[,ACK] or fd:CTL[,ACK]: perf's commands enable,\n"
	"                           disable, snapshot, stop, ping, evlist; each acked\n"
	"      --max-size SIZE      stop once the output holds SIZE (100M)\n"
	"      --timestamp-filename rename the finished output PATH.<timestamp>\n"
	"      --proc-map-timeout MS with -a/-C: time to read each process's maps\n"
	"  -z, --compression-level[=LEVEL]\n"
	"                           write the output through the zstd sink at LEVEL\n"
	"                           (1..22; 1 when not given), as perf -z\n"
	"      --dry-run            check the options, record nothing\n"
	"Also accepted without effect (perfsink always does it, or it tunes perf's own\n"
	"threads): -T, --sample-cpu, --strict-freq, --timestamp-boundary, --buildid-all,\n"
	"--tail-synthesize, --mmap-flush, --affinity, --threads, --num-thread-synthesize.\n"
	"perf's other options are refused, each with its reason.\n"
	"\n"
	"  -q, --quiet              print errors only\n"
	"  -v, --verbose            more messages (repeatable)\n"
	"  -h, --help               this text\n"
	"\n"
	"With a command, recording starts when it execs and ends when it exits; perfsink\n"
	"then exits with its status.  With -a, -C or -p and no command: until SIGINT,\n"
	"SIGTERM, SIGHUP or --duration.  See perfsink(1) and perfsink.ini(5).\n";

enum { OPT_CALL_GRAPH = 256, OPT_AIO, OPT_DURATION, OPT_CONFIG, OPT_SINK, OPT_PLUGIN_DIR,
       OPT_SWITCH_OUTPUT, OPT_SWITCH_MAX_FILES, OPT_OVERWRITE, OPT_EXCLUDE_SELF,
       OPT_FILTER, OPT_EXCLUDE_PERF,
       /* operator outputs */
       OPT_STATUS, OPT_NO_STATUS, OPT_SUMMARY_JSON, OPT_STATS_FILE,

       OPT_PERF_FLAG, /* perf's boolean flags: pushed as "true" under their long name */
       OPT_PERF_VALUE, /* perf's options with a value: pushed under their long name */
       OPT_DRY_RUN,
       OPT_PERF_ONLY = 1024 /* + index in perf_only_opts */ };

static const struct option record_long[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "exclude-perf", no_argument, NULL, OPT_EXCLUDE_PERF },
	{ "freq", required_argument, NULL, 'F' },
	{ "count", required_argument, NULL, 'c' },
	{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "mmap-pages", required_argument, NULL, 'm' },
	{ "output", required_argument, NULL, 'o' },
	{ "aio", optional_argument, NULL, OPT_AIO },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "sink", required_argument, NULL, OPT_SINK },
	{ "plugin-dir", required_argument, NULL, OPT_PLUGIN_DIR },
	{ "switch-output", optional_argument, NULL, OPT_SWITCH_OUTPUT },
	{ "exclude-self", optional_argument, NULL, OPT_EXCLUDE_SELF },
	{ "realtime", required_argument, NULL, 'r' },
	{ "switch-max-files", required_argument, NULL, OPT_SWITCH_MAX_FILES },
	{ "overwrite", no_argument, NULL, OPT_OVERWRITE },
	{ "no-buildid-cache", no_argument, NULL, 'N' },
	{ "no-buildid", no_argument, NULL, 'B' },
	{ "status", optional_argument, NULL, OPT_STATUS },
	{ "no-status", no_argument, NULL, OPT_NO_STATUS },
	{ "summary-json", required_argument, NULL, OPT_SUMMARY_JSON },
	{ "stats-file", required_argument, NULL, OPT_STATS_FILE },
	{ "data", no_argument, NULL, 'd' },
	{ "period", no_argument, NULL, 'P' },
	{ "weight", no_argument, NULL, 'W' },
	{ "raw-samples", no_argument, NULL, 'R' },
	{ "stat", no_argument, NULL, 's' },
	{ "no-samples", no_argument, NULL, 'n' },
	{ "no-inherit", no_argument, NULL, 'i' },
	{ "all-user", no_argument, NULL, OPT_PERF_FLAG },
	{ "all-kernel", no_argument, NULL, OPT_PERF_FLAG },
	{ "switch-events", no_argument, NULL, OPT_PERF_FLAG },
	{ "namespaces", no_argument, NULL, OPT_PERF_FLAG },
	{ "sample-identifier", no_argument, NULL, OPT_PERF_FLAG },
	{ "running-time", no_argument, NULL, OPT_PERF_FLAG },
	{ "code-page-size", no_argument, NULL, OPT_PERF_FLAG },
	{ "data-page-size", no_argument, NULL, OPT_PERF_FLAG },
	{ "phys-data", no_argument, NULL, OPT_PERF_FLAG },
	{ "kernel-callchains", no_argument, NULL, OPT_PERF_FLAG },
	{ "user-callchains", no_argument, NULL, OPT_PERF_FLAG },
	{ "no-bpf-event", no_argument, NULL, OPT_PERF_FLAG },
	{ "timestamp-filename", no_argument, NULL, OPT_PERF_FLAG },
	{ "user-regs", optional_argument, NULL, OPT_PERF_VALUE },
	{ "intr-regs", optional_argument, NULL, 'I' },
	{ "max-size", required_argument, NULL, OPT_PERF_VALUE },
	{ "delay", required_argument, NULL, 'D' },
	{ "proc-map-timeout", required_argument, NULL, OPT_PERF_VALUE },
	{ "compression-level", optional_argument, NULL, 'z' },
	{ "clockid", required_argument, NULL, 'k' },
	{ "control", required_argument, NULL, OPT_PERF_VALUE },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};


#define NR_RECORD_LONG (sizeof(record_long) / sizeof(record_long[0]) - 1)
#define RECORD_SHORT "+:e:F:c:gaC:p:t:m:o:r:NBqvhdPWRsniI::D:z::k:"

static const char *long_name(int c)
{
	for (const struct option *o = record_long; o->name; o++)
		if (o->val == c)
			return o->name;
	return "?";
}

static const char *attached(const char *optarg)
{
	if (!optarg)
		return "true";
	return optarg[0] == '=' ? optarg + 1 : optarg;
}

/* getopt's tables: perfsink's options, then perf's that it accepts or refuses. */
static int getopt_tables(struct option **lo, char **shorts)
{
	size_t n = NR_RECORD_LONG, k;
	char *s;

	*lo = calloc(n + nr_perf_only_opts + 1, sizeof(**lo));
	*shorts = s = calloc(1, sizeof(RECORD_SHORT) + 3 * nr_perf_only_opts);
	if (!*lo || !s)
		return -ENOMEM;
	memcpy(*lo, record_long, n * sizeof(**lo));
	strcpy(s, RECORD_SHORT);
	k = strlen(s);
	for (unsigned i = 0; i < nr_perf_only_opts; i++) {
		const struct perf_only_opt *p = &perf_only_opts[i];

		(*lo)[n + i] = (struct option){ p->name, p->has_arg, NULL, OPT_PERF_ONLY + (int)i };
		if (!p->letter)
			continue;
		s[k++] = p->letter;
		if (p->has_arg != no_argument)
			s[k++] = ':';
		if (p->has_arg == optional_argument)
			s[k++] = ':';
	}
	return 0;
}

static const struct perf_only_opt *perf_only_by_val(int c, int *letter)
{
	if (c >= OPT_PERF_ONLY && c < OPT_PERF_ONLY + (int)nr_perf_only_opts)
		return &perf_only_opts[c - OPT_PERF_ONLY];
	for (unsigned i = 0; i < nr_perf_only_opts; i++)
		if (perf_only_opts[i].letter && perf_only_opts[i].letter == c) {
			*letter = c;
			return &perf_only_opts[i];
		}
	return NULL;
}

/* A perf option perfsink does not take: a note when accepted, else the reason. */
static int perf_only(const struct perf_only_opt *p, int letter)
{
	char why[512], name[64];

	perf_only_reason(p, why, sizeof(why));
	if (letter)
		snprintf(name, sizeof(name), "-%c/--%s", letter, p->name);
	else
		snprintf(name, sizeof(name), "--%s", p->name);
	if (p->accepted) {
		pr_info("record: %s accepted, no effect: %s", name, why);
		return 0;
	}
	pr_err("record: %s is not supported: %s", name, why);
	return -EINVAL;
}

static int push(struct cli_set **v, unsigned *n, const char *name, const char *value)
{
	struct cli_set *nv = realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[(*n)++] = (struct cli_set){ name, value };
	return 0;
}

static int add_sink(struct record_opts *o, const char *name)
{
	char **nv = realloc(o->sinks, (o->nr_sinks + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	o->sinks = nv;
	nv[o->nr_sinks] = strdup(name);
	return nv[o->nr_sinks++] ? 0 : -ENOMEM;
}

/* Parse argv into sets; fills config path, sinks, verbosity and argv. */
static int parse_record_args(int argc, char **argv, struct record_opts *o, struct cli_set **sets,
			     unsigned *nsets)
{
	int c, verbose = 0, li, ret = 0;
	bool quiet = false;
	struct option *lo;
	char *shorts;

	if (getopt_tables(&lo, &shorts) < 0) {
		free(lo);
		free(shorts);
		return -ENOMEM;
	}
	opterr = 0;
	optind = 1;
	while (!ret && (c = getopt_long(argc, argv, shorts, lo, (li = -1, &li))) != -1) {
		const struct perf_only_opt *po;
		int r = 0, letter = 0;

		if ((po = perf_only_by_val(c, &letter))) {
			ret = perf_only(po, letter);
			continue;
		}
		switch (c) {
		case OPT_PERF_FLAG: r = push(sets, nsets, lo[li].name, "true"); break;
		case OPT_PERF_VALUE:
			r = push(sets, nsets, lo[li].name, optarg ? optarg : "true");
			break;
		/* -I and -z take their optional value attached: -z3, -z=3 (as perf). */
		case 'I': r = push(sets, nsets, "intr-regs", attached(optarg)); break;
		case 'z': r = push(sets, nsets, "compression-level", attached(optarg)); break;
		case 'd': case 'P': case 'W': case 'R': case 's': case 'n': case 'i':
			r = push(sets, nsets, long_name(c), "true");
			break;
		case OPT_DRY_RUN: o->dry_run = true; break;
		case 'g': r = push(sets, nsets, "call-graph", "fp"); break;
		case 'a': r = push(sets, nsets, "all-cpus", "true"); break;
		case 'N': r = push(sets, nsets, "no-buildid-cache", "true"); break;
		case 'B': r = push(sets, nsets, "no-buildid", "true"); break;
		case OPT_AIO: r = push(sets, nsets, "aio", optarg ? optarg : "4"); break;
		case OPT_SWITCH_OUTPUT:
			r = push(sets, nsets, "switch-output", optarg ? optarg : "signal");
			break;
		case OPT_OVERWRITE: r = push(sets, nsets, "overwrite", "true"); break;
		case OPT_EXCLUDE_PERF: r = push(sets, nsets, "exclude-perf", "true"); break;
		case OPT_STATUS: r = push(sets, nsets, "status", optarg ? optarg : "true"); break;
		case OPT_NO_STATUS: r = push(sets, nsets, "status", "false"); break;
		case OPT_EXCLUDE_SELF:
			r = push(sets, nsets, "exclude-self", optarg ? optarg : "true");
			break;
		case OPT_CONFIG:
			free(o->config_path);
			o->config_path = strdup(optarg);
			break;
		case OPT_SINK: r = add_sink(o, optarg); break;
		case 'q': quiet = true; break;
		case 'v': verbose++; break;
		case 'h': fputs(record_usage, stdout); ret = 1; break;
		case ':':
			pr_err("record: option '%s' needs a value (see perfsink record --help)", argv[optind - 1]);
			ret = -EINVAL;
			break;
		case '?':
			pr_err("record: unknown option '%s' (see perfsink record --help)", argv[optind - 1]);
			ret = -EINVAL;
			break;
		default: r = push(sets, nsets, long_name(c), optarg); break;
		}
		if (r < 0)
			ret = r;
	}
	free(lo);
	free(shorts);
	if (ret)
		return ret;
	o->verbose = quiet ? -1 : 1 + verbose;
	log_set_verbosity(quiet ? -1 : 1 + verbose);
	if (optind < argc) {
		o->argv = &argv[optind];
	}
	return 0;
}

static int apply_sets(struct record_opts *o, const struct cli_set *sets, unsigned n)
{
	char err[256];
	for (unsigned i = 0; i < n; i++) {
		int r = record_opt_set(o, sets[i].name, sets[i].value, err, sizeof(err));
		if (r < 0) {
			pr_err("record: --%s %s: %s", sets[i].name, sets[i].value, err);
			return r;
		}
	}
	return 0;
}

/*
 * --timestamp-filename: the finished output renamed PATH.<YYYYmmddHHMMSScc>
 * (the end time, to the hundredth of a second), as perf names it.  Outputs
 * of --switch-output and --overwrite carry their time already.
 */
static void timestamp_rename(const char *path)
{
	char stamp[32], why[512], *to;
	const char *name;
	struct timeval tv;
	struct stat st;
	struct tm tm;
	int dfd;

	if (!path)
		return;
	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
	if (asprintf(&to, "%s.%s%02u", path, stamp, (unsigned)(tv.tv_usec / 10000)) < 0)
		return;
	/* Within the directory the sink wrote in, our own file, replacing nothing. */
	dfd = perfsink_kit_parent_open(path, 0, &name, "rename the output", why, sizeof(why));
	if (dfd < 0)
		pr_err("record: --timestamp-filename: %s", why);
	else if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
		 st.st_uid != geteuid())
		pr_err("record: --timestamp-filename: '%s' is no longer our output file", path);
	else if (renameat2(dfd, name, dfd, strrchr(to, '/') ? strrchr(to, '/') + 1 : to,
			   RENAME_NOREPLACE) == 0)
		log_summary(LOG_INFO, "[ perfsink record: Dump %s ]", to);
	else
		pr_err("record: --timestamp-filename: cannot rename %s to %s: %s", path, to,
		       strerror(errno));
	if (dfd >= 0)
		close(dfd);
	free(to);
}

static bool stdout_is_fifo(void)
{
	struct stat st;
	return fstat(STDOUT_FILENO, &st) == 0 && S_ISFIFO(st.st_mode);
}

/*
 * The files the run writes beside the recording (--summary-json,
 * --stats-file) are checked as outputs are, before anything is recorded:
 * no link anywhere in the path, a trusted directory, no other user's file.
 */
static int side_outputs_check(const struct record_opts *o)
{
	const struct { const char *opt, *path; } outs[] = {
		{ "summary-json", o->summary_json }, { "stats-file", o->stats_file },
	};
	char why[512];

	for (size_t i = 0; i < sizeof(outs) / sizeof(outs[0]); i++) {
		if (outs[i].path && atomic_file_check(outs[i].path, why, sizeof(why)) < 0) {
			pr_err("record: --%s: %s", outs[i].opt, why);
			return -EINVAL;
		}
	}
	return 0;
}

int record_prepare(int argc, char **argv, struct record_prep *p)
{
	char err[512] = "";
	struct record_opts *o = &p->o;

	memset(p, 0, sizeof(*p));
	record_opts_init(o);
	int r = parse_record_args(argc, argv, o, &p->sets, &p->nsets);
	if (r > 0)
		return 1; /* --help */
	if (r < 0)
		return -EINVAL;
	/* The config's plugins must be looked up in --plugin-dir too. */
	for (unsigned i = 0; i < p->nsets; i++) {
		if (!strcmp(p->sets[i].name, "plugin-dir")) {
			free(o->plugin_dir);
			o->plugin_dir = strdup(p->sets[i].value);
		}
	}
	int cli_verbose = o->verbose;
	if (config_load(&p->cfg, o->config_path, o, err, sizeof(err)) < 0 ||
	    bind_load(&p->sinks, &p->cfg, o->plugin_dir, err, sizeof(err)) < 0) {
		pr_err("%s", err);
		return -EINVAL;
	}
	if (apply_sets(o, p->sets, p->nsets) < 0)
		return -EINVAL;
	record_opts_source_target(o, o->argv != NULL);
	/* As perf record: no -o, no config and standard output a pipe: perf's
	 * pipe format goes there (`perfsink record -- cmd | perf script -i -`). */
	if (!o->output && !o->config_path && !o->nr_sinks && stdout_is_fifo() &&
	    !(o->output = strdup("-"))) {
		pr_err("out of memory");
		return -ENOMEM;
	}
	/* -q / -v on the command line win over [record] verbose. */
	if (cli_verbose != 1)
		o->verbose = cli_verbose;
	log_set_verbosity(o->verbose);
	if (record_opts_check(o, err, sizeof(err)) < 0 ||
	    bind_select(&p->sinks, o, err, sizeof(err)) < 0) {
		pr_err("%s", err);
		return -EINVAL;
	}
	if (side_outputs_check(o) < 0)
		return -EINVAL;
	if (!o->argv && !o->all_cpus && !o->cpu_list && !o->pid && !o->tid && !o->dry_run) {
		pr_err("record: nothing to record: give a command after --, or -a, -C, -p or -t");
		return -EINVAL;
	}
	record_opts_default_ring(o);
	return 0;
}

void record_prep_free(struct record_prep *p)
{
	free(p->sets);
	bind_free(&p->sinks);
	config_free(&p->cfg);
	p->o.argv = NULL; /* points into argv */
	record_opts_free(&p->o);
}

int cmd_record(int argc, char **argv)
{
	struct record_prep p;
	int code = EXIT_BAD_INPUT;
	int r = record_prepare(argc, argv, &p);

	if (r > 0)
		code = 0; /* --help */
	if (r == 0 && p.o.dry_run)
		code = 0; /* as perf --dry-run: the options were parsed, nothing runs */
	else if (r == 0) {
		struct watch w;
		struct record_observer obs;
		watch_init(&w, &p.o);
		watch_observer(&w, &obs);
		code = engine_record(&p.o, &p.sinks, argc, argv, &obs);
		if (p.o.pf.timestamp_filename && p.o.switch_output == SWITCH_NONE && !p.o.overwrite &&
		    code != EXIT_BAD_INPUT)
			timestamp_rename(bind_output_path(&p.sinks));
	}
	record_prep_free(&p);
	return code;
}

static void print_key(const struct perfsink_key *k)
{
	static const char *const types[] = { "", "string", "int", "size", "bool", "enum", "duration", "path" };
	const char *type = k->type < sizeof(types) / sizeof(types[0]) ? types[k->type] : "?";
	printf("    %-18s %-8s %-14s %s", k->name, type, k->def ? k->def : "(required)",
	       k->description ? k->description : "");
	if (k->type == PERFSINK_KEY_ENUM && k->choices)
		printf(" [%s]", k->choices);
	else if ((k->type == PERFSINK_KEY_INT || k->type == PERFSINK_KEY_SIZE) && k->max)
		printf(" [%lld..%lld]", (long long)k->min, (long long)k->max);
	else if ((k->type == PERFSINK_KEY_INT || k->type == PERFSINK_KEY_SIZE) && k->min)
		printf(" [%lld..]", (long long)k->min);
	putchar('\n');
}

int cmd_sinks(int argc, char **argv)
{
	const char *dir = NULL;
	if (argc > 2 && !strcmp(argv[1], "--plugin-dir"))
		dir = argv[2];
	else if (argc > 1) {
		fputs("usage: perfsink sinks [--plugin-dir DIR]\n", argc > 1 && !strcmp(argv[1], "--help") ? stdout : stderr);
		return argc > 1 && !strcmp(argv[1], "--help") ? 0 : EXIT_BAD_INPUT;
	}
	char **names = NULL;
	unsigned n = 0;
	int r = plugin_list(dir, &names, &n);
	if (r < 0) {
		pr_err("sinks: cannot list plugins: %s", strerror(-r));
		return 1;
	}
	printf("Sinks (each [sink.NAME] section sets plugin = one of these, or file: uring_file\n"
	       "where io_uring works, else aio_file; and may set on_error = stop|detach and\n"
	       "rotate = true|false):\n");
	int code = 0;
	for (unsigned i = 0; i < n; i++) {
		struct plugin *p;
		char err[512];
		if (plugin_load(names[i], dir, &p, err, sizeof(err)) < 0) {
			printf("\n  %s: cannot load: %s\n", names[i], err);
			code = 1;
		} else {
			printf("\n  %s - %s\n    %s\n", p->ops->name, p->ops->description, p->path);
			for (const struct perfsink_key *k = p->ops->keys; k && k->name; k++)
				print_key(k);
			plugin_unload(p);
		}
		free(names[i]);
	}
	free(names);
	return code;
}

/* upload: SIGINT/SIGTERM ask the sink to stop; its requests see it within 100 ms. */
static void upload_on_stop(int sig)
{
	(void)sig;
	signals_stop_requested = 1;
}

static void upload_stop_handlers(void)
{
	struct sigaction sa = { .sa_handler = upload_on_stop };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/*
 * One sink's spool sent: 0, or 1 when anything stays unsent or it failed.
 * *told: its upload() was interrupted, and the sink said so in one line.
 */
static int upload_one(const struct sink_conf *c, uint64_t deadline_ms, bool *told)
{
	const struct perfsink_sink_ops *ops = c->plugin->ops;
	struct sink_inst si;
	void *ctx;
	sink_inst_init(&si, c);
	if (ops->open(&si.pub, &ctx) < 0)
		return 1;
	int sent = ops->upload(ctx, (int64_t)deadline_ms);
	*told |= sent == -EINTR;
	/* close() says whether the spool still holds anything (http: -EAGAIN). */
	int closed = ops->close(ctx, NULL);
	return sent < 0 || closed < 0;
}

int cmd_upload(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "sink", required_argument, NULL, 's' },
		{ "deadline", required_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct record_opts o;
	struct config cfg = { 0 };
	struct bound_sinks sinks = { 0 };
	uint64_t deadline_ms = 60000;
	char err[512] = "";
	int c, code = EXIT_BAD_INPUT, verbose = 0;
	record_opts_init(&o);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":hv", lo, NULL)) != -1) {
		if (c == 'v') {
			verbose++;
		} else if (c == 'c') {
			free(o.config_path);
			o.config_path = strdup(optarg);
		} else if (c == 's') {
			add_sink(&o, optarg);
		} else if (c == 'd') {
			if (parse_duration_ms(optarg, &deadline_ms) < 0) {
				pr_err("upload: --deadline '%s': not a duration (e.g. 30s, 5m)", optarg);
				goto out;
			}
		} else if (c == 'h') {
			puts("usage: perfsink upload --config FILE [--sink NAME]... [--deadline 60s] [-v]\n\n"
			     "Send what earlier recordings left in the spool of each sink that has one.\n"
			     "Exit 1 when something could not be sent or a bad part was quarantined.");
			code = 0;
			goto out;
		} else {
			pr_err("upload: bad option '%s' (see perfsink upload --help)", argv[optind - 1]);
			goto out;
		}
	}
	if (!o.config_path) {
		pr_err("upload: --config FILE is required (the spool is configured there)");
		goto out;
	}
	if (config_load(&cfg, o.config_path, &o, err, sizeof(err)) < 0 ||
	    bind_load(&sinks, &cfg, o.plugin_dir, err, sizeof(err)) < 0 ||
	    bind_select(&sinks, &o, err, sizeof(err)) < 0) {
		pr_err("%s", err);
		goto out;
	}
	/* -v on the command line wins over [record] verbose, as for record. */
	log_set_verbosity(verbose ? 1 + verbose : o.verbose);
	code = 0;
	unsigned done = 0;
	bool told = false;
	upload_stop_handlers();
	for (unsigned i = 0; i < sinks.nr_sinks && !signals_stop_requested; i++) {
		if (!sinks.sinks[i].plugin->ops->upload)
			continue;
		done++; /* it has a spool, even if it cannot open it */
		code |= upload_one(&sinks.sinks[i], deadline_ms, &told);
	}
	if (signals_stop_requested) {
		if (!told)
			pr_err("upload: interrupted; what was not sent stays in the spool for the next run");
		code = 1;
	} else if (!done) {
		pr_err("upload: no selected sink has anything to upload (only sinks with a spool do)");
		code = EXIT_BAD_INPUT;
	}
out:
	bind_free(&sinks);
	config_free(&cfg);
	record_opts_free(&o);
	return code;
}

void usage_main(void)
{
	fputs("usage: perfsink <command> [options]\n"
	      "\n"
	      "  record    record perf events into sinks (perfsink record --help)\n"
	      "  sinks     list the sink plugins and their config keys\n"
	      "  upload    send what earlier runs left in a sink's spool\n"
	      "  check     validate a config and record options; print the result\n"
	      "  recover   repair perf.data files a killed recorder left behind\n"
	      "  ls        list the hosts and sessions on a collector (http, s3)\n"
	      "  fetch     get a session back from a collector as a perf.data file\n"
	      "  archive   FILE.symbols.tar.zst: a recording's binaries for another machine\n"
	      "  pprof     recordings to one pprof profile (go tool pprof, Pyroscope, Parca)\n"
	      "\n"
	      "  perfsink --version | --help\n", stdout);
}
