/*
 * perfsink VERB [options]: one table of the verbs, from which both the
 * dispatch and `perfsink --help` come.  Each verb is a cmd_<verb> in its
 * own cli_<verb>.c and gets argv from the verb on (argv[0] is its name).
 */
#include <stdio.h>
#include <string.h>
#include "cli/cli.h"
#include "engine/engine.h"
#include "base/log.h"
#include <perfsink/sink.h>

#ifndef PS_HAVE_FETCH
/* ls and fetch read a collector with libcurl: say how to get them. */
static int cmd_no_fetch(int argc, char **argv)
{
	(void)argc;
	pr_err("%s: this perfsink was built without libcurl (configure --with-curl)", argv[0]);
	return EXIT_BAD_INPUT;
}
#define cmd_ls cmd_no_fetch
#define cmd_fetch cmd_no_fetch
#endif

#ifdef PS_HAVE_PPROF
/* pprof and flamegraph are perfsink-profile's (profile_exec.c). */
#define cmd_pprof cmd_profile_exec
#define cmd_flamegraph cmd_profile_exec
#endif

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help; /* one line of `perfsink --help` */
} commands[] = {
	{ "record", cmd_record, "record perf events into sinks (perfsink record --help)" },
	{ "sinks", cmd_sinks, "list the sink plugins and their config keys" },
	{ "upload", cmd_upload, "send what earlier runs left in a sink's spool" },
	{ "check", cmd_check, "validate a config and record options; print the result" },
	{ "recover", cmd_recover, "repair perf.data files a killed recorder left behind" },
	{ "ls", cmd_ls, "list the hosts and sessions on a collector (http, s3)" },
	{ "fetch", cmd_fetch, "get a session back from a collector as a perf.data file" },
	{ "archive", cmd_archive, "FILE.symbols.tar.zst: a recording's binaries for another machine" },
	{ "pprof", cmd_pprof, "recordings to one pprof profile (go tool pprof, Pyroscope, Parca)" },
	{ "flamegraph", cmd_flamegraph, "recordings to one interactive flame graph (SVG or HTML)" },
};

static void usage(void)
{
	fputs("usage: perfsink <command> [options]\n\n", stdout);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		printf("  %-11s %s\n", commands[i].name, commands[i].help);
	fputs("\n  perfsink --version | --help\n", stdout);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage();
		return EXIT_BAD_INPUT;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("perfsink %s (sink ABI %d.%d)\n", PACKAGE_VERSION, PERFSINK_ABI_MAJOR, PERFSINK_ABI_MINOR);
		return 0;
	}
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		usage();
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(cmd, commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	pr_err("unknown command '%s' (perfsink --help lists them)", cmd);
	return EXIT_BAD_INPUT;
}
