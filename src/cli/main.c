#include <stdio.h>
#include <string.h>
#include "cli/cli.h"
#include "engine/engine.h"
#include "base/log.h"
#include <perfsink/sink.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage_main();
		return EXIT_BAD_INPUT;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("perfsink %s (sink ABI %d.%d)\n", PACKAGE_VERSION, PERFSINK_ABI_MAJOR, PERFSINK_ABI_MINOR);
		return 0;
	}
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		usage_main();
		return 0;
	}
	if (!strcmp(cmd, "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(cmd, "sinks"))
		return cmd_sinks(argc - 1, argv + 1);
	if (!strcmp(cmd, "upload"))
		return cmd_upload(argc - 1, argv + 1);
	if (!strcmp(cmd, "ls") || !strcmp(cmd, "fetch")) {
#ifdef PS_HAVE_FETCH
		return (cmd[0] == 'l' ? cmd_ls : cmd_fetch)(argc - 1, argv + 1);
#else
		pr_err("%s: this perfsink was built without libcurl (configure --with-curl)", cmd);
		return EXIT_BAD_INPUT;
#endif
	}
	if (!strcmp(cmd, "check"))
		return cmd_check(argc - 1, argv + 1);
	if (!strcmp(cmd, "recover"))
		return cmd_recover(argc - 1, argv + 1);
	if (!strcmp(cmd, "pprof"))
		return cmd_pprof(argc - 1, argv + 1);
	if (!strcmp(cmd, "archive"))
		return cmd_archive(argc - 1, argv + 1);
	pr_err("unknown command '%s' (perfsink --help lists them)", cmd);
	return EXIT_BAD_INPUT;
}
