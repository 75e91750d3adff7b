/* perf record's options that perfsink accepts without effect or refuses, and why. */
#include <config.h>

#include <getopt.h>
#include <stdio.h>

#include "cli/perf_compat.h"
#include "probe/pmu.h"

/* "X need(s) a hardware PMU; none on this machine (...)" or, with one, what perfsink lacks. */
static void needs_core_pmu(const char *what, const char *lacking, char *buf, size_t len)
{
	char found[256];

	if (pmu_core_present(found, sizeof(found)))
		snprintf(buf, len, "%s: this machine has a hardware PMU (%s), but %s", what, found,
			 lacking);
	else
		snprintf(buf, len, "%s need a hardware PMU; none on this machine (%s)", what, found);
}

static void why_branch(char *buf, size_t len)
{
	needs_core_pmu("branch stacks", "perfsink does not record branch stacks "
		       "(PERF_SAMPLE_BRANCH_STACK); use perf record -b/-j", buf, len);
}

static void why_transaction(char *buf, size_t len)
{
	needs_core_pmu("transaction flags", "perfsink does not record them "
		       "(PERF_SAMPLE_TRANSACTION); use perf record --transaction", buf, len);
}

static void why_aux(char *buf, size_t len)
{
	char found[256];

	if (pmu_aux_present(found, sizeof(found)))
		snprintf(buf, len, "AUX area tracing: this machine has %s, but perfsink maps no "
			 "AUX area; use perf record", found);
	else
		snprintf(buf, len, "AUX area tracing needs an AUX PMU (Intel PT, CoreSight, SPE); "
			 "none on this machine (%s)", found);
}

static void why_cgroup(char *buf, size_t len)
{
	char found[256];

	if (cgroup_perf_event_present(found, sizeof(found)))
		snprintf(buf, len, "perfsink does not open cgroup-bound events "
			 "(PERF_FLAG_PID_CGROUP), although this machine has %s; use perf record -G",
			 found);
	else
		snprintf(buf, len, "cgroup-bound events need the perf_event cgroup controller; "
			 "%s", found);
}

#define ACCEPT(n, l, a, w) { n, l, a, true, w, NULL }
#define REFUSE(n, l, a, w) { n, l, a, false, w, NULL }
#define DETECT(n, l, a, fn) { n, l, a, false, NULL, fn }

const struct perf_only_opt perf_only_opts[] = {
	/* Always so in perfsink: accepted. */
	ACCEPT("timestamp", 'T', no_argument,
	       "perfsink samples always carry TIME (it orders the rings by it)"),
	ACCEPT("sample-cpu", 0, no_argument,
	       "perfsink samples always carry CPU"),
	ACCEPT("strict-freq", 0, no_argument,
	       "perfsink always refuses an -F above perf_event_max_sample_rate instead of "
	       "lowering it"),
	ACCEPT("timestamp-boundary", 0, no_argument,
	       "perfsink always writes the SAMPLE_TIME feature (first and last sample time)"),
	ACCEPT("buildid-all", 0, no_argument,
	       "perfsink's BUILD_ID always lists every file the recording mapped, hit or not"),
	ACCEPT("tail-synthesize", 0, no_argument,
	       "every perfsink output (each --switch-output file, each --overwrite dump) "
	       "begins with the task and map records it needs"),
	/* perf's internals: accepted, nothing to tune in perfsink. */
	ACCEPT("mmap-flush", 0, required_argument,
	       "perf's write batching; perfsink copies whatever a ring holds on each pass"),
	ACCEPT("affinity", 0, required_argument,
	       "perf's reader-thread CPU affinity; perfsink's drain thread reads every ring "
	       "and is not moved"),
	ACCEPT("threads", 0, optional_argument,
	       "perf's parallel writer threads (a perf.data directory); perfsink already "
	       "drains on its own thread and writes through its sinks"),
	ACCEPT("num-thread-synthesize", 0, required_argument,
	       "perf's synthesis threads; perfsink reads /proc on one thread within a time "
	       "budget"),
	/* Refused, with the reason. */
	DETECT("branch-any", 'b', no_argument, why_branch),
	DETECT("branch-filter", 'j', required_argument, why_branch),
	DETECT("transaction", 0, no_argument, why_transaction),
	DETECT("snapshot", 'S', optional_argument, why_aux),
	DETECT("aux-sample", 0, optional_argument, why_aux),
	DETECT("cgroup", 'G', required_argument, why_cgroup),
	REFUSE("uid", 'u', required_argument,
	       "perfsink does not follow a user's tasks (perf opens one event per task of "
	       "the user found at the start); record -a, -p or -t"),
	REFUSE("all-cgroups", 0, no_argument,
	       "perfsink writes no PERF_RECORD_CGROUP records (nor synthesizes them for "
	       "existing cgroups), so cgroup ids in samples could not be named"),
	REFUSE("per-thread", 0, no_argument,
	       "perfsink keeps one ring per CPU and orders them by sample time; per-thread "
	       "rings have samples without TIME or CPU"),
	REFUSE("group", 0, no_argument,
	       "perfsink opens no counter groups with --group; group events with perf's "
	       "-e '{a,b}' syntax"),
	REFUSE("buildid-mmap", 0, no_argument,
	       "perfsink reads build-ids from the mapped files into the BUILD_ID feature; "
	       "it does not put them in MMAP2 records"),
	REFUSE("kcore", 0, no_argument,
	       "copying /proc/kcore makes a perf.data directory, which no perfsink sink writes"),
	REFUSE("clang-path", 0, required_argument,
	       "perfsink compiles no BPF scriptlets (-e prog.c); this only serves them"),
	REFUSE("clang-opt", 0, required_argument,
	       "perfsink compiles no BPF scriptlets (-e prog.c); this only serves them"),
	REFUSE("vmlinux", 0, required_argument,
	       "perfsink reads no vmlinux while recording; give --vmlinux to perf report"),
	REFUSE("debuginfod", 0, optional_argument,
	       "perfsink fetches no debug info while recording; perf report --debuginfod "
	       "does it when reading"),
	REFUSE("no-buffering", 0, no_argument,
	       "perfsink copies the rings in whole passes (at least every 100 ms); it has no "
	       "write per event"),
	REFUSE("off-cpu", 0, no_argument,
	       "off-CPU analysis is a BPF program of perf's (BUILD_BPF_SKEL); perfsink has none"),
	REFUSE("switch-output-event", 0, required_argument,
	       "perfsink rotates on SIGUSR2, a size or a time (--switch-output); an event as "
	       "the trigger is not supported"),
	REFUSE("synth", 0, required_argument,
	       "perfsink always synthesizes the task and map records of running processes "
	       "(perf's --synth=all); it cannot leave them out"),
};

const unsigned nr_perf_only_opts = sizeof(perf_only_opts) / sizeof(perf_only_opts[0]);

void perf_only_reason(const struct perf_only_opt *p, char *buf, size_t len)
{
	if (p->reason)
		p->reason(buf, len);
	else
		snprintf(buf, len, "%s", p->why);
}
