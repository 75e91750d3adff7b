/*
 * --stats-file: the counters in Prometheus text exposition format (0.0.4),
 * for node_exporter's textfile collector.  Names and meanings are listed in
 * perfsink(1), STATS FILE; counters end in _total, sizes in _bytes.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include "cli/atomic_file.h"
#include "cli/report_files.h"

static void metric(FILE *f, const char *name, const char *type, const char *help, double v)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n%s %.15g\n", name, help, name, type, name, v);
}

/* A label value with \, " and newline escaped, as the format wants. */
static void label(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', f);
		if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

struct sink_metric {
	const char *name, *type, *help;
	size_t off;  /* of a uint64_t in perfsink_sink_stats; or one of: */
};
#define M_STATE SIZE_MAX          /* the state */
#define M_WRITTEN (SIZE_MAX - 1)  /* record_sink_report.written */

#define ST(field) offsetof(struct perfsink_sink_stats, field)
static const struct sink_metric sink_metrics[] = {
	{ "perfsink_sink_in_bytes_total", "counter", "Bytes the sink accepted from the engine.", ST(bytes_in) },
	{ "perfsink_sink_out_bytes_total", "counter", "Bytes the sink wrote or sent, compressed: at the end its files' sizes.", M_WRITTEN },
	{ "perfsink_sink_buffers_total", "counter", "Buffers the sink accepted.", ST(buffers) },
	{ "perfsink_sink_retries_total", "counter", "I/O the sink retried (short write, EAGAIN, HTTP 5xx, timeouts).", ST(retries) },
	{ "perfsink_sink_dropped_bytes_total", "counter", "Bytes the sink accepted and lost.", ST(dropped_bytes) },
	{ "perfsink_sink_dropped_records_total", "counter", "perf records in the dropped bytes.", ST(dropped_records) },
	{ "perfsink_sink_pending_bytes", "gauge", "Bytes not yet sent, not lost (queue and spool, earlier runs too).", ST(pending_bytes) },
	{ "perfsink_sink_outputs_total", "counter", "Outputs completed: files, segments or parts sent.", ST(files) },
	{ "perfsink_sink_spooled_bytes", "gauge", "This run's bytes waiting in the spool.", ST(spooled_bytes) },
	{ "perfsink_sink_backlog_bytes", "gauge", "Earlier runs' bytes still waiting in the spool.", ST(backlog_bytes) },
	{ "perfsink_sink_lost_parts_total", "counter", "Parts replaced by a LOST marker.", ST(lost_parts) },
	{ "perfsink_symbols_shipped_files_total", "counter", "Symbol files shipped beside the data.", ST(symbols_files) },
	{ "perfsink_symbols_shipped_bytes_total", "counter", "Bytes of the symbol files shipped.", ST(symbols_bytes) },
	{ "perfsink_symbols_skipped_files_total", "counter", "Symbol files not shipped: over symbols_budget or symbols_max.", ST(symbols_skipped) },
	{ "perfsink_symbols_skipped_bytes_total", "counter", "Bytes of the symbol files skipped.", ST(symbols_skipped_bytes) },
	{ "perfsink_symbols_unsampled_files_total", "counter", "Files mapped that no sample fell in, not shipped (symbols = sampled).", ST(symbols_unsampled) },
	{ "perfsink_sink_state", "gauge", "0 ok, 1 retrying, 2 spooling, 3 failed.", M_STATE },
};

static void sink_values(FILE *f, const struct sink_metric *m, const struct record_report *r)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", m->name, m->help, m->name, m->type);
	for (unsigned i = 0; i < r->nr_sinks; i++) {
		const struct record_sink_report *s = &r->sinks[i];
		uint64_t v = 0;

		if (m->off == M_STATE)
			v = s->failed ? PERFSINK_STATE_FAILED : s->st.state;
		else if (m->off == M_WRITTEN)
			v = s->written;
		else if (s->has_stats)
			v = *(const uint64_t *)((const char *)&s->st + m->off);
		fprintf(f, "%s{sink=\"", m->name);
		label(f, s->name);
		fputs("\",plugin=\"", f);
		label(f, s->plugin);
		fprintf(f, "\"} %" PRIu64 "\n", v);
	}
}

int stats_file_write(const char *path, const struct record_report *r, bool final, char *why,
		     size_t n)
{
	struct atomic_file a;
	int e = atomic_file_open(&a, path);

	if (e < 0) {
		snprintf(why, n, "%s", a.why);
		return e;
	}
	metric(a.f, "perfsink_recording", "gauge", "1 while recording, 0 once the run ended.", final ? 0 : 1);
	metric(a.f, "perfsink_last_update_timestamp_seconds", "gauge", "When this file was written (Unix time).",
	       (double)time(NULL));
	metric(a.f, "perfsink_duration_seconds", "gauge", "Recording time: from the start to the stop, or now.",
	       r->secs);
	metric(a.f, "perfsink_drain_seconds", "gauge", "Seconds since the recording stopped (the sinks finishing).",
	       r->drain_secs);
	metric(a.f, "perfsink_samples_total", "counter", "Samples read from the rings.", (double)r->samples);
	metric(a.f, "perfsink_bytes_total", "counter", "Bytes handed to each sink: ring data and perfsink's own records.",
	       (double)r->bytes);
	metric(a.f, "perfsink_ring_bytes_total", "counter", "Of those bytes, what was read from the rings.",
	       (double)r->ring_bytes);
	metric(a.f, "perfsink_buffers_total", "counter", "Buffers handed to each sink.", (double)r->buffers);
	metric(a.f, "perfsink_lost_samples_total", "counter", "Samples the kernel dropped (rings full).",
	       (double)r->kernel_lost);
	metric(a.f, "perfsink_lost_records_total", "counter", "PERF_RECORD_LOST records they came in.",
	       (double)r->lost_records);
	metric(a.f, "perfsink_rotations_total", "counter", "Outputs rotated (--switch-output, SIGUSR2).",
	       (double)r->rotations);
	for (size_t i = 0; i < sizeof(sink_metrics) / sizeof(sink_metrics[0]); i++)
		sink_values(a.f, &sink_metrics[i], r);
	if ((e = atomic_file_commit(&a)) < 0)
		snprintf(why, n, "%s", a.why);
	return e;
}
