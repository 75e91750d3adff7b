/*
 * The recorder: opens the events, maps one ring per CPU, drains the rings
 * into pooled buffers, ends every full pass with FINISHED_ROUND, counts what
 * the kernel lost, and hands every buffer to every sink.  Runs on the
 * calling thread; sinks run their own I/O threads.
 */
#ifndef PS_ENGINE_H
#define PS_ENGINE_H

struct record_opts;
struct bound_sinks;

/* Exit codes of `perfsink record` besides the workload's own status. */
enum {
	EXIT_RECORD_FAILED = 1, /* a runtime failure: sink error, event error */
	EXIT_BAD_INPUT = 2,     /* bad CLI, config, plugin, event, or any failure
				   before recording began: nothing recorded */
};

/*
 * Record until the workload exits, a signal (SIGINT/SIGTERM) or the
 * duration.  argc/argv: perfsink's own command line (CMDLINE feature).
 * Returns the process exit code: the workload's status when there is one
 * and the recording succeeded, 127 when it could not be executed, else 0
 * or an EXIT_* code.
 */
int engine_record(const struct record_opts *o, const struct bound_sinks *c, int argc, char **argv);

#endif
