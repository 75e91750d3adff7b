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
	/*
	 * A sink's reader went away (-EPIPE: `perfsink record -o - | head`):
	 * the status a shell shows for perf record, which SIGPIPE kills there.
	 */
	EXIT_READER_GONE = 128 + 13,
};

/* One ring's kernel loss. */
struct record_ring_loss {
	int cpu;
	uint64_t lost;               /* samples */
};

/* One output a sink reported through host->output (sink ABI 1.4). */
struct record_output {
	char *where;                 /* path or URL */
	uint64_t bytes;              /* its size when it was done (also once removed), else 0 */
	int event;                   /* the last enum perfsink_output_event for it */
};

/* One sink instance at the end of the run (or now, in a progress report). */
struct record_sink_report {
	const char *name, *plugin;   /* instance and plugin names */
	const struct record_output *outputs; /* in the order begun */
	unsigned nr_outputs;
	bool has_stats;              /* opened, with a stats call: st is set */
	struct perfsink_sink_stats st;
	/*
	 * What it wrote (the summary's "written", JSON bytes_out, Prometheus
	 * perfsink_sink_out_bytes_total): at the end, when every output it
	 * named is a finished file, their sizes as finished (header, records,
	 * features; removed ones too); else, and while recording, its own
	 * st.bytes_out (a network sink's part bodies sent).
	 */
	uint64_t written;
	bool failed;
	/* What a failed instance did not write (zero for one that did not fail). */
	uint64_t lost_records, lost_samples, lost_bytes;
};

/*
 * What a recording did, for the summary the caller prints.  Each number
 * has one meaning wherever it is shown (perfsink(1), SUMMARY AND LOSS).
 */
struct record_report {
	/*
	 * The recording time: from the start (events enabled, the command
	 * started) to the stop (its end, --duration, a signal, an error),
	 * what --duration counts; and the time since the stop: the sinks
	 * finishing (their last data, a network sink's drain, the files'
	 * features), up to their close.  stopped: the stop has come.
	 */
	double secs, drain_secs;
	bool stopped;
	/*
	 * bytes, buffers: what each sink was handed, the ring data and the
	 * records perfsink writes itself (each output's kernel and task
	 * maps, ...): a sink that took everything says the same "in".
	 * ring_bytes: of bytes, what was read from the kernel's rings.
	 */
	uint64_t bytes, buffers;
	uint64_t wakeups, ring_bytes, samples;
	uint64_t kernel_lost;        /* samples the kernel dropped */
	uint64_t lost_records;       /* LOST records they came in */
	uint32_t stack_user;         /* --call-graph dwarf,SIZE: SIZE, else 0 */
	uint64_t stack_cut;          /* of the samples, those whose stack copy filled SIZE */
	unsigned nr_rings;
	const struct record_ring_loss *rings; /* nr_rings */
	uint64_t overruns, unread_bytes, pool_waits, rotations;
	const struct record_sink_report *sinks;
	unsigned nr_sinks;
	/*
	 * Mapped files left out of the build-ids, the cache and the sinks'
	 * symbols: not the file the process mapped, or one it could not read
	 * itself; the first few named as "PATH (why), ..." ("" when none).
	 */
	unsigned files_refused;
	const char *files_refused_names;
};

/*
 * Called once at the end of a recording that ran, on the engine thread,
 * after the sinks closed (their stats were read after their drain() and
 * before close(), so they are final; what they said when closing comes
 * before).  r and what it points to live for the call only.
 */
typedef void record_report_fn(const struct record_report *r, void *arg);

/*
 * While recording, about every progress_ms, on the engine thread, and once
 * more when recording stops (before the sinks drain): the counters so far
 * (secs, bytes, buffers, ring_bytes, samples, kernel_lost, lost_records,
 * rotations; rings is NULL) and every sink's current stats and outputs.
 * p lives for the call only.
 */
typedef void record_progress_fn(const struct record_report *p, void *arg);

/* Who hears about a recording; any member may be NULL. */
struct record_observer {
	record_report_fn *report;
	record_progress_fn *progress;
	unsigned progress_ms;        /* 0: 1000 */
	void *arg;
};

/*
 * Record until the workload exits, a signal (SIGINT/SIGTERM) or the
 * duration.  argc/argv: perfsink's own command line (CMDLINE feature).
 * Returns the process exit code: the workload's status when there is one
 * and the recording succeeded, 127 when it could not be executed, else 0
 * or an EXIT_* code.  obs (NULL: none) hears what the recording does.
 */
int engine_record(const struct record_opts *o, const struct bound_sinks *c, int argc, char **argv,
		  const struct record_observer *obs);

#endif
