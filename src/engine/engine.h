/*
 * The recorder: opens the events, maps one ring per CPU, drains the rings
 * into pooled buffers, ends every full pass with FINISHED_ROUND, counts what
 * the kernel lost, and hands every buffer to every sink.  Runs on the
 * calling thread; sinks run their own I/O threads.  engine_record is the
 * session (session.c), which runs the drainer (drain.h) and the output
 * (output.h); see the README here.
 */
#ifndef PS_ENGINE_H
#define PS_ENGINE_H
#include <stdbool.h>
#include <stdint.h>
#include <perfsink/sink.h>

struct record_opts;
struct bound_sinks;

/* Exit codes of `perfsink record` besides the workload's own status. */
enum {
	EXIT_RECORD_FAILED = 1, /* a runtime failure: sink error, event error */
	EXIT_BAD_INPUT = 2,     /* bad CLI, config, plugin, event, or any failure
				   before recording began: nothing recorded */
};

/* One ring's kernel loss. */
struct record_ring_loss {
	int cpu;
	uint64_t lost;               /* samples */
};

/* One sink instance at the end of the run. */
struct record_sink_report {
	const char *name, *plugin;   /* instance and plugin names */
	bool has_stats;              /* opened, with a stats call: st is set */
	struct perfsink_sink_stats st;
	bool failed;
	/* What a failed instance did not write (zero for one that did not fail). */
	uint64_t lost_records, lost_samples, lost_bytes;
};

/* What a recording did, for the summary the caller prints. */
struct record_report {
	double secs;
	uint64_t wakeups, ring_bytes, samples, buffers;
	uint64_t kernel_lost;        /* samples the kernel dropped */
	uint64_t lost_records;       /* LOST records they came in */
	uint32_t stack_user;         /* --call-graph dwarf,SIZE: SIZE, else 0 */
	uint64_t stack_cut;          /* of the samples, those whose stack copy filled SIZE */
	unsigned nr_rings;
	const struct record_ring_loss *rings; /* nr_rings */
	uint64_t overruns, unread_bytes, pool_waits, rotations;
	const struct record_sink_report *sinks;
	unsigned nr_sinks;
};

/*
 * Called once at the end of a recording that ran, on the engine thread,
 * after the last data and before the sinks close (their stats are final; what
 * they say when closing comes after).  r and what it points to live for the
 * call only.
 */
typedef void record_report_fn(const struct record_report *r);

/*
 * Record until the workload exits, a signal (SIGINT/SIGTERM) or the
 * duration.  argc/argv: perfsink's own command line (CMDLINE feature).
 * Returns the process exit code: the workload's status when there is one
 * and the recording succeeded, 127 when it could not be executed, else 0
 * or an EXIT_* code.  report (NULL: none) gets what the recording did.
 */
int engine_record(const struct record_opts *o, const struct bound_sinks *c, int argc, char **argv,
		  record_report_fn *report);

#endif
