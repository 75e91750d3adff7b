/* `perfsink recover [-o OUT] [-v] FILE...`: see recover.h and perfsink(1). */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <perfsink/kit.h>
#include "cli/cli.h"
#include "engine/engine.h"
#include "base/log.h"
#include "recover/recover.h"

static const char recover_usage[] =
	"usage: perfsink recover [-o OUT] [-v] FILE...\n"
	"\n"
	"Repair perf.data files a killed recorder left behind: keep the records up\n"
	"to the last whole one, rewrite data.size and rebuild the feature section\n"
	"(event names, build-ids, TRACING_DATA, COMPRESSED, ...).  Run it on the\n"
	"machine that recorded the files.  A complete file is left alone.\n"
	"\n"
	"  -o, --output OUT   write the repaired copy to OUT (one FILE only);\n"
	"                     FILE stays as it is\n"
	"  -v, --verbose      say where the data ended and why\n"
	"  -h, --help         this text\n"
	"\n"
	"Exit status: 0 all repaired or complete, 1 a file could not be repaired,\n"
	"2 bad usage.\n";

static void report(const char *path, const char *out, const struct recover_report *r, bool verbose)
{
	if (r->complete) {
		if (out)
			printf("%s: complete, copied unchanged to %s\n", path, out);
		else
			printf("%s: complete, left alone\n", path);
		return;
	}
	printf("%s: repaired%s%s: %llu records kept, %llu bytes cut, %u features written\n", path,
	       out ? " into " : "", out ? out : "", (unsigned long long)r->records,
	       (unsigned long long)r->bytes_cut, r->features);
	if (!verbose)
		return;
	printf("  not complete: %s\n", r->not_complete);
	printf("  data.size %llu -> %llu; the data ended at %s; %llu samples",
	       (unsigned long long)r->data_size_before, (unsigned long long)r->data_size, r->stop,
	       (unsigned long long)r->samples);
	if (!r->records)
		printf(" (no record survived: one FINISHED_ROUND stands in, so perf reads it)");
	if (r->compressed)
		printf("; %llu COMPRESSED records, the largest %llu bytes decompressed",
		       (unsigned long long)r->compressed, (unsigned long long)r->max_decomp);
	putchar('\n');
}

/* What a killed recover (or record) left beside target: its temporary files. */
static void sweep(const char *target)
{
	char note[512];
	int n = perfsink_kit_output_sweep(target, "PERFILE2", note, sizeof(note));

	if (n > 0)
		pr_warn("recover: removed %d temporary file%s of an earlier run that was killed "
			"before it finished: %s", n, n == 1 ? "" : "s", note);
}

int cmd_recover(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	bool verbose = false;
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:vh", lo, NULL)) != -1) {
		if (c == 'o') {
			out = optarg;
		} else if (c == 'v') {
			verbose = true;
		} else if (c == 'h') {
			fputs(recover_usage, stdout);
			return 0;
		} else {
			pr_err("recover: %s '%s' (see perfsink recover --help)",
			       c == ':' ? "option needs a value:" : "unknown option", argv[optind - 1]);
			return EXIT_BAD_INPUT;
		}
	}
	int nfiles = argc - optind;
	if (nfiles < 1 || (out && nfiles > 1)) {
		pr_err("recover: %s (see perfsink recover --help)",
		       nfiles < 1 ? "no FILE given" : "-o takes one FILE");
		return EXIT_BAD_INPUT;
	}
	int code = 0;
	for (int i = optind; i < argc; i++) {
		struct recover_report rep;
		char err[512] = "";
		sweep(out ? out : argv[i]);
		if (recover_file(argv[i], out, &rep, err, sizeof(err)) < 0) {
			pr_err("recover: %s: cannot repair: %s", argv[i], err);
			code = 1;
			continue;
		}
		report(argv[i], out, &rep, verbose);
	}
	fflush(stdout);
	return code;
}
