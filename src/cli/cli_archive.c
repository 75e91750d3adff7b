/*
 * perfsink archive FILE...: FILE.symbols.tar.zst beside each recording,
 * the files behind its build-ids in perf's ~/.debug layout (what `perf
 * archive` gathers), written by the sink kit's archive writer, which the
 * zstd sink's `symbols = true` uses for every output too.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <perfsink/kit.h>
#include "base/log.h"
#include "cli/cli.h"
#include "engine/engine.h"

static void usage_archive(FILE *to)
{
	fputs("usage: perfsink archive FILE...\n"
	      "\n"
	      "Write FILE.symbols.tar.zst beside each perf.data FILE: for every build-id the\n"
	      "recording lists, the file (the kernel's: a copy of /proc/kallsyms), its separate\n"
	      "debug file when /usr/lib/debug/.build-id has one (else the one its\n"
	      ".gnu_debuglink names, as gdb finds it), and the .build-id link, laid out as\n"
	      "perf's build-id cache.  On the machine that reads the recording:\n"
	      "\n"
	      "    mkdir -p ~/.debug && tar -I zstd -xf FILE.symbols.tar.zst -C ~/.debug\n",
	      to);
}

int cmd_archive(int argc, char **argv)
{
	int code = 0;

	if (argc < 2) {
		usage_archive(stderr);
		return EXIT_BAD_INPUT;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage_archive(stdout);
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		struct perfsink_kit_symarchive_stats st;
		char out[4096], why[512];

		if (snprintf(out, sizeof(out), "%s.symbols.tar.zst", argv[i]) >= (int)sizeof(out)) {
			pr_err("%s: name too long", argv[i]);
			code = 1;
			continue;
		}
		if (perfsink_kit_symarchive_of_file(argv[i], out, &st, why, sizeof(why))) {
			pr_err("%s", why);
			code = 1;
			continue;
		}
		printf("%s: %u build-ids: %u files and %u debug files (%.2f MB) in %.2f MB", out, st.entries,
		       st.files, st.debug, st.bytes / 1048576.0, st.out_bytes / 1048576.0);
		if (st.missing || st.changed)
			printf("; left out: %u gone or unreadable, %u rebuilt since recorded", st.missing,
			       st.changed);
		putchar('\n');
	}
	return code;
}
