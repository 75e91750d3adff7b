/*
 * The sample filters perfsink pprof and perfsink flamegraph share: --pid,
 * --comm, --time, parsed once here into a pprof/pp_filter.h filter, so the
 * two verbs cannot drift apart.
 */
#ifndef PS_CLI_PROFILE_OPTS_H
#define PS_CLI_PROFILE_OPTS_H
#include "pprof/pp_filter.h"

enum { PROFILE_OPT_PID = 0x1001, PROFILE_OPT_COMM, PROFILE_OPT_TIME };

/* For a verb's getopt_long table. */
#define PROFILE_FILTER_OPTIONS                                          \
	{ "pid", required_argument, NULL, PROFILE_OPT_PID },            \
	{ "comm", required_argument, NULL, PROFILE_OPT_COMM },          \
	{ "time", required_argument, NULL, PROFILE_OPT_TIME }

/* For its usage text. */
#define PROFILE_FILTER_USAGE                                                            \
	"  --pid PID[,PID...]   only the samples of these processes (repeatable)\n"     \
	"  --comm NAME[,NAME...] only the samples of threads with these names\n"        \
	"  --time START,END     only the samples in this time range: seconds of the\n"  \
	"                       sample clock as perf script prints them; either side\n" \
	"                       may be left empty (\"100.5,\")\n"

#ifdef PS_HAVE_PPROF
#include "pprof/pp_convert.h"

/* Where a verb's model goes: fn is handed this struct as its ctx, with f
 * open on the output. */
struct profile_out {
	pp_model_fn fn;
	void *arg;
	FILE *f;
};

/* Read in[0..n) with o into one profile and hand it to po->fn with
 * po->f open on out ("-": standard output; a file is written whole or
 * not at all).  Prints the error naming verb; 0, or an exit status. */
int profile_convert(const char *verb, char *const *in, unsigned n, const char *out, struct pp_convert_opts *o,
		    struct profile_out *po, struct pp_convert_report *rep);
#endif

/* 1: c is a filter option and arg was added to f; 0: c is not one; -1:
 * a bad value (said on stderr, naming verb). */
int profile_filter_opt(const char *verb, int c, const char *arg, struct pp_filter *f);

#endif
