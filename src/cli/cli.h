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

/* Each returns the process exit code. */
int cmd_record(int argc, char **argv);
int cmd_sinks(int argc, char **argv);
int cmd_upload(int argc, char **argv);
int cmd_recover(int argc, char **argv); /* cli_recover.c */
int cmd_ls(int argc, char **argv);      /* cli_fetch.c */
int cmd_fetch(int argc, char **argv);   /* cli_fetch.c */
int cmd_archive(int argc, char **argv); /* cli_archive.c */
int cmd_check(int argc, char **argv);   /* cli_check.c */
int cmd_pprof(int argc, char **argv);   /* cli_pprof.c */
void usage_main(void);

#endif
