/*
 * `perfsink record` options (and `check`'s, the same): the usage text, the
 * getopt tables of perfsink's own options and of perf's it accepts or
 * refuses (perf_compat.c), and the parse into the list of sets applied
 * after the config (record_prep.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/perf_compat.h"
#include "base/log.h"
#include "config/opts.h"

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

int cli_add_sink(struct record_opts *o, const char *name)
{
	char **nv = realloc(o->sinks, (o->nr_sinks + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	o->sinks = nv;
	nv[o->nr_sinks] = strdup(name);
	return nv[o->nr_sinks++] ? 0 : -ENOMEM;
}

int record_args_parse(int argc, char **argv, struct record_opts *o, struct cli_set **sets,
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
		case OPT_SINK: r = cli_add_sink(o, optarg); break;
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
