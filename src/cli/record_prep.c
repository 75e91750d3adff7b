/*
 * What `record` and `check` resolve before anything is opened: the
 * options (record_args.c), the config, the sinks bound and selected, the
 * command line applied over the config, the whole checked (cli.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/atomic_file.h"
#include "cli/cli.h"
#include "config/config_file.h"
#include "loader/bind.h"
#include "base/log.h"
#include "config/opts.h"

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
	int r = record_args_parse(argc, argv, o, &p->sets, &p->nsets);
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
