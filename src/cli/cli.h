/* Command line of `perfsink`: subcommands and their options. */
#ifndef PS_CLI_H
#define PS_CLI_H
#include "config/config_file.h"
#include "config/opts.h"
#include "loader/bind.h"

/* Options are applied after the config, so the CLI wins: keep them in order. */
struct cli_set {
	const char *name;
	const char *value;
};

/* What record and check resolve before anything is opened. */
struct record_prep {
	struct record_opts o;
	struct config cfg;
	struct bound_sinks sinks;
	struct cli_set *sets;
	unsigned nsets;
};

/*
 * Parse `record` options (argv[0] is the verb), read the config, bind the
 * sinks, apply the command line, check the whole: 0, 1 for --help (printed),
 * or -EINVAL with the one-line reason logged.  record_prep_free in every case.
 */
int record_prepare(int argc, char **argv, struct record_prep *p);
void record_prep_free(struct record_prep *p);

/*
 * The record options in argv (record_args.c): into sets, applied after the
 * config; config path, sinks, verbosity and argv straight into o.  0, 1
 * for --help (printed), or a negative errno with its line logged.
 */
int record_args_parse(int argc, char **argv, struct record_opts *o, struct cli_set **sets,
		      unsigned *nsets);
/* --sink NAME (record, upload): one more instance to select. */
int cli_add_sink(struct record_opts *o, const char *name);

/*
 * The verbs, one file each (cli_<verb>.c), listed in main.c's commands[].
 * argv[0] is the verb; each returns the process exit code.
 */
int cmd_record(int argc, char **argv);
int cmd_sinks(int argc, char **argv);
int cmd_upload(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_ls(int argc, char **argv);      /* cli_fetch.c */
int cmd_fetch(int argc, char **argv);   /* cli_fetch.c */
int cmd_archive(int argc, char **argv);
int cmd_pprof(int argc, char **argv);
int cmd_flamegraph(int argc, char **argv);
/* pprof, flamegraph: run perfsink-profile with argv (profile_exec.c); returns only on failure. */
int cmd_profile_exec(int argc, char **argv);

#endif
