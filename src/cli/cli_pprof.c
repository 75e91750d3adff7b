/* `perfsink pprof IN... -o OUT.pb.gz`: see src/pprof/pp_convert.h and perfsink(1). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "cli/cli.h"
#include "engine/engine.h"
#include "base/log.h"
#include "cli/profile_opts.h"
#ifdef PS_HAVE_PPROF
#include "pprof/pp_write.h"
#endif

static const char pprof_usage[] =
	"usage: perfsink pprof [--no-labels] [--pid ..] [--comm ..] [--time ..] -o OUT.pb.gz IN...\n"
	"\n"
	"Convert recordings (perf.data files of perfsink or perf record, zstd-\n"
	"compressed or not, or perf's pipe format; \"-\" reads standard input) into\n"
	"one gzipped pprof profile, for go tool pprof, Pyroscope, Parca...\n"
	"Symbols come from perf's build-id cache (~/.debug) first, then the\n"
	"files at their recorded paths; kernel frames from the recording's kallsyms.\n"
	"\n"
	"  -o, --output OUT   the profile to write (\"-\": standard output)\n"
	"  --no-labels        leave out the pid, tid, comm and cpu labels\n"
	"                     (smaller profiles: samples of one stack merge)\n"
	PROFILE_FILTER_USAGE
	"  -h, --help         this text\n"
	"\n"
	"Exit status: 0 written, 1 an input could not be read, 2 bad usage.\n";

#ifdef PS_HAVE_PPROF
/* One line on stderr: what went in, what came out. */
static void summary(const char *out, const struct pp_convert_report *r)
{
	double unk = r->frames ? 100.0 * (double)r->unknown / (double)r->frames : 0;
	pr_info("pprof: %llu samples, %llu frames (%.2f%% [unknown]) -> %llu pprof samples, %llu locations, "
		"%llu functions, %llu mappings in %s", (unsigned long long)r->samples,
		(unsigned long long)r->frames, unk, (unsigned long long)r->pprof_samples,
		(unsigned long long)r->locations, (unsigned long long)r->functions,
		(unsigned long long)r->mappings, out);
	if (r->filtered)
		pr_info("pprof: %llu samples left out by --pid/--comm/--time", (unsigned long long)r->filtered);
	if (r->dwarf)
		pr_info("pprof: %llu DWARF samples, %llu unwound past their first frame",
			(unsigned long long)r->dwarf, (unsigned long long)r->unwound);
}

/* profile_out's fn: the model as a gzipped profile.proto. */
static int write_pprof(void *ctx, const struct pp_profile *prof, const struct pp_convert_report *rep, char *err,
		       size_t errlen)
{
	const struct profile_out *po = ctx;
	(void)rep;
	int rc = pp_write(prof, po->f);
	if (rc)
		snprintf(err, errlen, "writing the profile: %s", strerror(-rc));
	return rc;
}

static int convert(char *const *in, unsigned n, const char *out, int labels, const struct pp_filter *filter)
{
	struct pp_convert_opts o = { labels, NULL, pp_filter_any(filter) ? filter : NULL };
	struct pp_convert_report rep;
	struct profile_out po = { write_pprof, NULL, NULL };
	int rc = profile_convert("pprof", in, n, out, &o, &po, &rep);
	if (!rc)
		summary(out, &rep);
	return rc;
}
#endif

int cmd_pprof(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "no-labels", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		PROFILE_FILTER_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	struct pp_filter filter = { .npid = 0 };
	int c, labels = 1, f;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:h", lo, NULL)) != -1) {
		if ((f = profile_filter_opt("pprof", c, optarg, &filter))) {
			if (f < 0)
				return EXIT_BAD_INPUT;
		} else if (c == 'o') {
			out = optarg;
		} else if (c == 'L') {
			labels = 0;
		} else if (c == 'h') {
			fputs(pprof_usage, stdout);
			return 0;
		} else {
			pr_err("pprof: %s '%s' (see perfsink pprof --help)",
			       c == ':' ? "option needs a value:" : "unknown option", argv[optind - 1]);
			return EXIT_BAD_INPUT;
		}
	}
	if (optind >= argc || !out) {
		pr_err("pprof: %s (see perfsink pprof --help)", !out ? "no -o OUT given" : "no input given");
		return EXIT_BAD_INPUT;
	}
#ifdef PS_HAVE_PPROF
	return convert(argv + optind, (unsigned)(argc - optind), out, labels, &filter);
#else
	pr_err("pprof: this perfsink was built without pprof support (configure --without-pprof, or "
	       "libprotobuf-c, libdw, zlib or protoc-c missing: libprotobuf-c-dev libdw-dev zlib1g-dev "
	       "protobuf-c-compiler)");
	return EXIT_BAD_INPUT;
#endif
}
