/*
 * Recording options.  The same names serve as long CLI options and as keys
 * of the config's [record] section, so both go through record_opt_set().
 */
#ifndef PS_OPTS_H
#define PS_OPTS_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum callgraph_mode { CG_NONE = 0, CG_FP, CG_DWARF };
/* --switch-output: rotate the outputs on SIGUSR2, on a size or on a time. */
enum switch_mode { SWITCH_NONE = 0, SWITCH_SIGNAL, SWITCH_SIZE, SWITCH_TIME };

/*
 * perf record options that shape the attrs, the files or the run, with
 * perf's meaning (docs/perf-compat.md).  Set by opts_perf.c; applied to
 * the attrs by engine/attr_opts.c.
 */
struct perf_flags {
	bool data;              /* -d: ADDR, DATA_SRC, mmap_data */
	bool period;            /* -P: PERIOD with -c too */
	bool weight;            /* -W: WEIGHT_STRUCT */
	bool raw_samples;       /* -R: RAW and CPU */
	bool stat;              /* -s: inherit_stat, enabled/running times */
	bool no_samples;        /* -n: count only */
	bool no_inherit;        /* -i */
	bool all_user, all_kernel;
	bool switch_events;     /* context_switch */
	bool namespaces;        /* namespaces, NAMESPACES of running tasks */
	bool sample_identifier; /* IDENTIFIER in every sample */
	bool running_time;      /* enabled/running times in read_format */
	bool code_page_size, data_page_size, phys_data;
	bool kernel_callchains, user_callchains;
	bool freq_max;          /* -F max: the kernel's limit, read at the start */
	uint64_t user_regs;     /* --user-regs: sample_regs_user mask, 0: none */
	uint64_t intr_regs;     /* --intr-regs: sample_regs_intr mask, 0: none */
	uint64_t max_size;      /* --max-size: stop once the output holds this much, 0: none */
	int64_t delay_ms;       /* -D: enable this long after exec; -1: with --control; 0: none */
	bool timestamp_filename; /* the output renamed PATH.<YYYYmmddHHMMSSmmm> at the end */
	uint64_t proc_map_timeout_ms; /* budget for reading /proc maps; 0: the default 500 */
	int compression_level;  /* -z: zstd sink at this level; 0: not asked */
	int clockid;            /* -k: attr clockid; -1: none */
	char *control;          /* --control fifo:CTL[,ACK] or fd:CTL[,ACK] */
	bool no_bpf_event;      /* no ksymbol / bpf_event in the attrs */
};

/*
 * --filter and --exclude-perf apply to the tracepoints of the -e given
 * before them (perf's rule); several combine as "(A) && (B)".
 */
struct event_filter {
	char *text;           /* the tracepoint filter, NULL if none */
	bool by_filter;       /* --filter was given */
	bool by_exclude_perf; /* --exclude-perf was given */
};

struct record_opts {
	char **events;        /* -e strings in perf's syntax (config/event_spec.h), in
	                       * order; default {"cpu-clock"} */
	struct event_filter *filters; /* one per events[] entry */
	unsigned nr_events;
	uint64_t freq;        /* -F; 0 when -c is used */
	uint64_t period;      /* -c */
	enum callgraph_mode callgraph;
	uint32_t dwarf_stack; /* bytes of user stack with dwarf (default 8192) */
	uint32_t mmap_pages;  /* data pages per ring, power of two */
	uint32_t aio;         /* pooled buffers per ring, 1..32 */
	bool all_cpus;        /* -a */
	char *cpu_list;       /* -C */
	pid_t pid;            /* -p, 0 if none */
	pid_t tid;            /* -t, 0 if none */
	char *output;         /* -o, NULL if not given */
	uint64_t duration_ms; /* --duration, 0: none */
	char *plugin_dir;     /* extra plugin directory */
	int verbose;          /* -v count; -1 with -q */
	enum switch_mode switch_output;
	uint64_t switch_size;      /* bytes of ring data per segment (SWITCH_SIZE) */
	uint64_t switch_ms;        /* segment length (SWITCH_TIME) */
	uint32_t switch_max_files; /* keep the newest N segments; 0 = all */
	bool overwrite;            /* flight recorder: dump the rings on SIGUSR2 and exit */
	bool exclude_self;         /* -a/-C: drop perfsink's own records in the kernel (default) */
	uint32_t realtime;         /* -r: SCHED_FIFO priority of perfsink's threads; 0: normal */
	bool no_buildid_cache;     /* -N: do not add the DSOs to perf's build-id cache (~/.debug) */
	bool no_buildid;           /* -B: no BUILD_ID feature (and no cache), as perf record -B */
	/* Operator outputs (cli/status.c, cli/summary_json.c, cli/stats_file.c) */
	bool status;               /* live status line on a terminal stderr (default) */
	char *summary_json;        /* --summary-json: the summary as JSON, NULL: none */
	char *stats_file;          /* --stats-file: Prometheus text, rewritten every few s */
	struct perf_flags pf;      /* perf record's sample and side-band flags (opts_perf.c) */
	/* CLI only */
	char *config_path;
	char **sinks;         /* --sink, repeatable */
	unsigned nr_sinks;
	char **argv;          /* workload after --, NULL-terminated; NULL if none */
	bool dry_run;         /* --dry-run: check the options, record nothing */
	/* Bookkeeping of record_opt_set() */
	uint64_t set_mask;    /* bit i: record_opt_names[i] was set explicitly */
	uint64_t source_mask; /* the same, by the current source only */
	char *set_text[64];   /* [i]: the text option i was last set from, while its
	                       * set_mask bit is on (`perfsink check` prints it) */
};

void record_opts_init(struct record_opts *o);
void record_opts_free(struct record_opts *o);

/*
 * Set one option by its long name ("freq", "mmap-pages", ...; '_' and '-'
 * are the same).  Returns 0, -ENOENT for an unknown name, -EINVAL for a bad
 * value with the reason in err ("'abc' is not a number").
 */
int record_opt_set(struct record_opts *o, const char *name, const char *value,
		   char *err, size_t errlen);
/* Name list for help and for the config's error messages; NULL-terminated. */
extern const char *const record_opt_names[];

/*
 * Options come from sources applied in order: the config's [record], then
 * the CLI.  A later source wins: its first "event" replaces the list (the
 * default or an earlier source's) and later ones append; its "count" undoes
 * an earlier source's "freq" and the other way round, while -F with -c from
 * one source is an error (record_opts_check).  config_load() calls this when
 * it has applied [record], so the CLI needs no call of its own.
 */
void record_opts_source_begin(struct record_opts *o);
/*
 * What to record is one setting: all-cpus, cpu, pid, tid, or a command.
 * Once the current source (the CLI) has been applied: when it names a
 * target (has_command: it gave a command after --), the earlier sources'
 * target options it did not set are dropped, so a config may carry a
 * default target that `-p 1234` or `-- cmd` replaces whole.
 */
void record_opts_source_target(struct record_opts *o, bool has_command);
/* True when option `name` was set explicitly (config or CLI). */
bool record_opt_is_set(const struct record_opts *o, const char *name);
/* The text option `name` was last set from; NULL when it is not set. */
const char *record_opt_text(const struct record_opts *o, const char *name);

/*
 * The ring size when -m was not given: 512 KiB (perf's, which fits the
 * default perf_event_mlock_kb of unprivileged users), or 2 MiB for root
 * on machines with up to PRIVILEGED_RING_MAX_CPUS online CPUs: a ring
 * that holds ~7 ms of a 1 M events/s tracepoint storm instead of ~2 ms
 * loses nothing where the small one loses 1-15 % (docs/BENCHMARKS.md).
 */
#define PRIVILEGED_RING_MAX_CPUS 32
void record_opts_default_ring(struct record_opts *o);

/* Checks that need all options together (-p with -a, ...). */
int record_opts_check(const struct record_opts *o, char *err, size_t errlen);

#endif
