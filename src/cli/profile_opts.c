/* --pid, --comm, --time of pprof and flamegraph; see profile_opts.h. */
#include "cli/profile_opts.h"
#include "base/log.h"

#include <errno.h>
#include <string.h>
#ifdef PS_HAVE_PPROF
#include "cli/atomic_file.h"
#include "cli/cli.h"
#include "engine/engine.h"
#include <perfsink/kit.h>
#endif

int profile_filter_opt(const char *verb, int c, const char *arg, struct pp_filter *f)
{
	const char *what;
	if (c != PROFILE_OPT_PID && c != PROFILE_OPT_COMM && c != PROFILE_OPT_TIME)
		return 0;
#ifdef PS_HAVE_PPROF
	int rc = c == PROFILE_OPT_PID ? pp_filter_pids(f, arg) : c == PROFILE_OPT_COMM ? pp_filter_comms(f, arg)
										: pp_filter_time(f, arg);
	if (!rc)
		return 1;
	what = c == PROFILE_OPT_PID ? "--pid wants process ids: PID[,PID...]"
	       : c == PROFILE_OPT_COMM ? "--comm wants names: NAME[,NAME...]"
				       : "--time wants START,END in seconds (123.5,130), either side may be empty";
	pr_err("%s: %s%s, not '%s'", verb, what, rc == -E2BIG ? " (at most 64)" : "", arg);
	return -1;
#else
	(void)what;
	(void)f;
	(void)arg;
	(void)verb;
	return 1;
#endif
}

#ifdef PS_HAVE_PPROF
int profile_convert(const char *verb, char *const *in, unsigned n, const char *out, struct pp_convert_opts *o,
		    struct profile_out *po, struct pp_convert_report *rep)
{
	char cache[4096], err[1024] = "";
	struct atomic_file af;
	if (perfsink_kit_buildid_cache_dir(cache, sizeof(cache)))
		snprintf(cache, sizeof(cache), ".debug");
	o->cache_dir = cache;
	po->f = stdout;
	if (strcmp(out, "-")) {
		if (atomic_file_open(&af, out)) {
			pr_err("%s: %s: %s", verb, out, af.why);
			return EXIT_RECORD_FAILED;
		}
		po->f = af.f;
	}
	int rc = pp_convert_model(in, n, o, po->fn, po, rep, err, sizeof(err));
	if (po->f == stdout) {
		rc = rc ? rc : fflush(stdout) ? -EIO : 0;
	} else if (rc) {
		fclose(af.f);
		perfsink_kit_output_discard(&af.o);
	} else if (atomic_file_commit(&af)) {
		pr_err("%s: %s: %s", verb, out, af.why);
		return EXIT_RECORD_FAILED;
	}
	if (rc) {
		pr_err("%s: %s", verb, err[0] ? err : strerror(-rc));
		return EXIT_RECORD_FAILED;
	}
	return 0;
}
#endif
