/*
 * --summary-json: every counter of the closing summary, per sink, with the
 * output paths, as one JSON object.  Field names and meanings: perfsink(1),
 * SUMMARY JSON.  Counts are integers; names and paths are strings.
 */
#include <inttypes.h>
#include <stdio.h>
#include "cli/atomic_file.h"
#include "cli/report_files.h"
#include "cli/status.h"
#include "cli/summary.h"

static void str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void num(FILE *f, const char *key, uint64_t v, const char *sep)
{
	fprintf(f, "\"%s\": %" PRIu64 "%s", key, v, sep);
}

static const char *output_state(int ev)
{
	return ev == PERFSINK_OUTPUT_DONE ? "done" : ev == PERFSINK_OUTPUT_REMOVED ? "removed" : "open";
}

static void outputs(FILE *f, const struct record_sink_report *s)
{
	fputs("\"outputs\": [", f);
	for (unsigned k = 0; k < s->nr_outputs; k++) {
		fputs(k ? ", {\"path\": " : "{\"path\": ", f);
		str(f, s->outputs[k].where);
		fprintf(f, ", \"state\": \"%s\", ", output_state(s->outputs[k].event));
		num(f, "bytes", s->outputs[k].bytes, "}");
	}
	fputs("]", f);
}

static void sink(FILE *f, const struct record_sink_report *s)
{
	const struct perfsink_sink_stats *st = &s->st;

	fputs("    {\"name\": ", f);
	str(f, s->name);
	fputs(", \"plugin\": ", f);
	str(f, s->plugin);
	fprintf(f, ", \"state\": \"%s\", \"failed\": %s,\n     ", sink_state_name(s),
		s->failed ? "true" : "false");
	num(f, "bytes_in", st->bytes_in, ", ");
	num(f, "bytes_out", s->written, ", ");
	num(f, "buffers", st->buffers, ", ");
	num(f, "retries", st->retries, ", ");
	num(f, "outputs_done", st->files, ",\n     ");
	num(f, "dropped_bytes", st->dropped_bytes, ", ");
	num(f, "dropped_records", st->dropped_records, ", ");
	num(f, "lost_parts", st->lost_parts, ", ");
	num(f, "pending_bytes", st->pending_bytes, ",\n     ");
	num(f, "spooled_bytes", st->spooled_bytes, ", ");
	num(f, "spooled_parts", st->spooled_parts, ", ");
	num(f, "backlog_bytes", st->backlog_bytes, ", ");
	num(f, "backlog_parts", st->backlog_parts, ", ");
	num(f, "backlog_sent_bytes", st->backlog_sent_bytes, ",\n     ");
	fputs("\"symbols\": {", f);
	num(f, "files", st->symbols_files, ", ");
	num(f, "bytes", st->symbols_bytes, ", ");
	num(f, "skipped", st->symbols_skipped, ", ");
	num(f, "skipped_bytes", st->symbols_skipped_bytes, ", ");
	num(f, "unsampled", st->symbols_unsampled, "},\n     ");
	num(f, "not_written_records", s->lost_records, ", ");
	num(f, "not_written_samples", s->lost_samples, ", ");
	num(f, "not_written_bytes", s->lost_bytes, ",\n     ");
	outputs(f, s);
	fputs("}", f);
}

int summary_json_write(const char *path, const struct record_report *r, char *why, size_t n)
{
	struct atomic_file a;
	int e = atomic_file_open(&a, path);
	uint64_t overruns = r->overruns;

	if (e < 0) {
		snprintf(why, n, "%s", a.why);
		return e;
	}
	FILE *f = a.f;
	fprintf(f, "{\n  \"duration_s\": %.3f,\n  \"drain_s\": %.3f,\n  ", r->secs, r->drain_secs);
	num(f, "samples", r->samples, ",\n  ");
	num(f, "samples_written", summary_samples_written(r), ",\n  ");
	num(f, "bytes", r->bytes, ",\n  ");
	num(f, "ring_bytes", r->ring_bytes, ",\n  ");
	num(f, "buffers", r->buffers, ",\n  ");
	num(f, "rings", r->nr_rings, ",\n  ");
	num(f, "lost_samples", r->kernel_lost, ",\n  ");
	num(f, "lost_records", r->lost_records, ",\n  ");
	num(f, "overruns", overruns, ",\n  ");
	num(f, "unread_bytes", r->unread_bytes, ",\n  ");
	num(f, "pool_waits", r->pool_waits, ",\n  ");
	num(f, "rotations", r->rotations, ",\n  ");
	num(f, "stack_cut_samples", r->stack_cut, ",\n  ");
	num(f, "mapped_files_refused", r->files_refused, ",\n  ");
	fputs("\"lost_by_cpu\": {", f);
	for (unsigned c = 0, k = 0; c < r->nr_rings; c++)
		if (r->rings[c].lost)
			fprintf(f, "%s\"%d\": %" PRIu64, k++ ? ", " : "", r->rings[c].cpu, r->rings[c].lost);
	fputs("},\n  \"sinks\": [\n", f);
	for (unsigned i = 0; i < r->nr_sinks; i++) {
		sink(f, &r->sinks[i]);
		fputs(i + 1 < r->nr_sinks ? ",\n" : "\n", f);
	}
	fputs("  ]\n}\n", f);
	if ((e = atomic_file_commit(&a)) < 0)
		snprintf(why, n, "%s", a.why);
	return e;
}
