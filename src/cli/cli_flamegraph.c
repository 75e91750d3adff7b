/* `perfsink flamegraph IN... -o OUT.svg|OUT.html`: see src/flame/flame.h and perfsink(1). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/profile_opts.h"
#include "engine/engine.h"
#include "base/log.h"
#ifdef PS_HAVE_PPROF
#include "flame/flame.h"
#endif

static const char flamegraph_usage[] =
	"usage: perfsink flamegraph [--reverse] [--pid ..] [--comm ..] [--time ..] -o OUT.svg|OUT.html IN...\n"
	"\n"
	"Draw recordings (what perfsink pprof reads: perf.data files of perfsink or\n"
	"perf record, zstd-compressed or not, perf's pipe format; \"-\" reads standard\n"
	"input) as one interactive flame graph: a self-contained SVG or HTML file\n"
	"(no network) to open in a browser.  Click a frame to zoom, Search (or\n"
	"Ctrl-F) highlights the frames a regular expression matches and shows\n"
	"their share, Reset (or Escape) undoes both.  Frames are coloured by kind:\n"
	"user, kernel, JIT, unknown.  Widths are the last value perfsink pprof\n"
	"writes (what go tool pprof shows by default: cpu nanoseconds for\n"
	"cpu-clock and task-clock).\n"
	"\n"
	"  -o, --output OUT   the page to write: OUT.svg (an SVG document) or\n"
	"                     OUT.html (a page with the SVG inline)\n"
	"  --reverse          an icicle graph of callers: the functions that were\n"
	"                     running at the top, what called them below\n"
	PROFILE_FILTER_USAGE
	"  -h, --help         this text\n"
	"\n"
	"Exit status: 0 written, 1 an input could not be read, 2 bad usage.\n";

/* 1 for OUT.svg, 0 for OUT.html or OUT.htm, -1 otherwise. */
static int svg_of(const char *out)
{
	const char *dot = strrchr(out, '.');
	if (!dot || strchr(dot, '/'))
		return -1;
	if (!strcasecmp(dot, ".svg"))
		return 1;
	return !strcasecmp(dot, ".html") || !strcasecmp(dot, ".htm") ? 0 : -1;
}

#ifdef PS_HAVE_PPROF
struct draw {
	struct flame_opts fo;
	struct flame_stats st;
};

/* profile_out's fn: the model as the page. */
static int draw(void *ctx, const struct pp_profile *prof, const struct pp_convert_report *rep, char *err,
		size_t errlen)
{
	const struct profile_out *po = ctx;
	struct draw *d = po->arg;
	d->fo.host = rep->host;
	d->fo.event = rep->event;
	d->fo.samples = rep->samples;
	d->fo.t0 = rep->first_time;
	d->fo.t1 = rep->last_time;
	int rc = flame_write(prof, &d->fo, po->f, &d->st);
	if (rc)
		snprintf(err, errlen, "writing the flame graph: %s", strerror(-rc));
	return rc;
}

static int flamegraph(char *const *in, unsigned n, const char *out, int reverse, const struct pp_filter *filter)
{
	struct pp_convert_opts o = { 0, NULL, pp_filter_any(filter) ? filter : NULL };
	struct pp_convert_report rep;
	struct draw d = { .fo = { .reverse = reverse, .svg = svg_of(out) == 1 } };
	struct profile_out po = { draw, &d, NULL };
	int rc = profile_convert("flamegraph", in, n, out, &o, &po, &rep);
	if (rc)
		return rc;
	pr_info("flamegraph: %llu samples, %u frames (%u deep), %llu %s in %s", (unsigned long long)rep.samples,
		d.st.frames, d.st.depth, (unsigned long long)d.st.total, d.st.unit, out);
	if (rep.filtered)
		pr_info("flamegraph: %llu samples left out by --pid/--comm/--time", (unsigned long long)rep.filtered);
	return 0;
}
#endif

int cmd_flamegraph(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "reverse", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		PROFILE_FILTER_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	struct pp_filter filter = { .npid = 0 };
	int c, reverse = 0, f;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:h", lo, NULL)) != -1) {
		if ((f = profile_filter_opt("flamegraph", c, optarg, &filter))) {
			if (f < 0)
				return EXIT_BAD_INPUT;
		} else if (c == 'o') {
			out = optarg;
		} else if (c == 'r') {
			reverse = 1;
		} else if (c == 'h') {
			fputs(flamegraph_usage, stdout);
			return 0;
		} else {
			pr_err("flamegraph: %s '%s' (see perfsink flamegraph --help)",
			       c == ':' ? "option needs a value:" : "unknown option", argv[optind - 1]);
			return EXIT_BAD_INPUT;
		}
	}
	if (optind >= argc || !out) {
		pr_err("flamegraph: %s (see perfsink flamegraph --help)", !out ? "no -o OUT given" : "no input given");
		return EXIT_BAD_INPUT;
	}
	if (svg_of(out) < 0) {
		pr_err("flamegraph: -o %s: the page's name must end in .svg or .html", out);
		return EXIT_BAD_INPUT;
	}
#ifdef PS_HAVE_PPROF
	return flamegraph(argv + optind, (unsigned)(argc - optind), out, reverse, &filter);
#else
	(void)reverse;
	pr_err("flamegraph: this perfsink was built without pprof support (configure --without-pprof, or "
	       "libprotobuf-c, libdw, zlib or protoc-c missing: libprotobuf-c-dev libdw-dev zlib1g-dev "
	       "protobuf-c-compiler)");
	return EXIT_BAD_INPUT;
#endif
}
