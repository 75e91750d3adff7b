/*
 * perfsink-profile VERB [options]: the verbs that read recordings into
 * profiles, in a program of their own so that their libraries load only
 * when they run (profile_exec.c).  `perfsink pprof|flamegraph` runs it as
 * `perfsink VERB ...`; run by hand it is the same.
 */
#include <stdio.h>
#include <string.h>
#include "cli/cli.h"
#include "engine/engine.h"
#include "base/log.h"

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "pprof"))
		return cmd_pprof(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "flamegraph"))
		return cmd_flamegraph(argc - 1, argv + 1);
	pr_err("usage: perfsink pprof|flamegraph [options] (perfsink(1))");
	return EXIT_BAD_INPUT;
}
