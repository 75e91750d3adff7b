/*
 * The summary perfsink record prints at the end, in perf record's words
 * where perf has them ("Captured", "LOST"), with one prefix each
 * ("[ perfsink record: ...", "[ sink NAME (plugin): ...").  No "Woken up"
 * line: the engine reads the rings on its poll timer as well as when a ring
 * wakes it, so poll wake-ups (often 0 with data read) say nothing useful.
 */
#include <config.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "cli/summary.h"

/* The sinks' finishing time after the stop is said when it is this long. */
#define DRAIN_SHOWN_S 0.1

/* The failed sink that lost the most samples: its index, or -1 when none lost any. */
static int worst_sink(const struct record_report *r)
{
	int which = -1;

	for (unsigned i = 0; i < r->nr_sinks; i++)
		if (r->sinks[i].lost_records &&
		    (which < 0 || r->sinks[i].lost_samples > r->sinks[which].lost_samples))
			which = (int)i;
	return which;
}

/*
 * The headline counts what reached the outputs: samples read from the
 * rings minus what the worst failed sink did not write, and as lost both
 * the kernel's loss and that sink's.
 */
static void print_loss(const struct record_report *r, int sink)
{
	const struct record_sink_report *sl = sink >= 0 ? &r->sinks[sink] : NULL;
	uint64_t kernel_lost = r->kernel_lost, lost = kernel_lost + (sl ? sl->lost_samples : 0);
	double pct = lost ? 100.0 * (double)lost / (double)(kernel_lost + r->samples) : 0;
	char per_cpu[256] = "", by_sink[256] = "";
	size_t k = 0;

	if (!lost && !sl) {
		log_summary(LOG_INFO, "[ perfsink record: lost 0 samples ]");
		return;
	}
	for (unsigned c = 0; c < r->nr_rings && k < sizeof(per_cpu); c++)
		if (r->rings[c].lost)
			k += (size_t)snprintf(per_cpu + k, sizeof(per_cpu) - k, "%sCPU %d: %llu",
					      k ? ", " : "; by ring, ", r->rings[c].cpu,
					      (unsigned long long)r->rings[c].lost);
	if (sl)
		snprintf(by_sink, sizeof(by_sink), "%s%llu not written by failed sink '%s' (%llu "
			 "records, %llu bytes)", kernel_lost ? "; " : "",
			 (unsigned long long)sl->lost_samples, sl->name,
			 (unsigned long long)sl->lost_records, (unsigned long long)sl->lost_bytes);
	if (kernel_lost) {
		char why[256] = "the rings filled up; try a larger -m, a lower -F, fewer events, or -r";
		if (r->pool_waits) /* no buffer to drain into: the outputs, not the rings, were too slow */
			snprintf(why, sizeof(why), "the rings filled up while the sinks held every pooled buffer "
				 "(waited %llu times for one): an output slower than the events; try more buffers "
				 "(--aio=16), a file sink through the page cache (plugin = aio_file), or fewer events",
				 (unsigned long long)r->pool_waits);
		log_summary(LOG_WARN, "[ perfsink record: LOST %llu samples (%.1f%%): %llu in %llu LOST records%s: "
			"%s%s ]", (unsigned long long)lost, pct, (unsigned long long)kernel_lost,
			(unsigned long long)r->lost_records, per_cpu, why, by_sink);
	} else {
		log_summary(LOG_WARN, "[ perfsink record: LOST %llu samples (%.1f%%): %s ]",
			(unsigned long long)lost, pct, by_sink);
	}
}

static double mb(uint64_t bytes)
{
	return (double)bytes / (1024.0 * 1024.0);
}

static void human(char *out, size_t n, uint64_t bytes)
{
	snprintf(out, n, "%.3f MB", mb(bytes));
}

/* Appends to a fixed line; stops quietly when it is full. */
struct line {
	char s[1024];
	size_t k;
};

static void say(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->k >= sizeof(l->s))
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->s + l->k, sizeof(l->s) - l->k, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->k += (size_t)n;
}

/* Outputs that still exist: begun or done, not removed. */
static unsigned outputs_kept(const struct record_sink_report *s, const struct record_output **last)
{
	unsigned n = 0;

	for (unsigned k = 0; k < s->nr_outputs; k++)
		if (s->outputs[k].event != PERFSINK_OUTPUT_REMOVED) {
			n++;
			*last = &s->outputs[k];
		}
	return n;
}

static bool is_url(const char *where)
{
	return where && strstr(where, "://");
}

/*
 * "written to PATH", "sent to URL in N parts", or "written to N outputs"
 * (those kept listed after).  Sent: the sink's outputs are URLs (a remote
 * stream).  The amount is the sink's written (engine.h): every output's
 * size, so the outputs listed add up to it unless some were removed.
 */
static void say_where(struct line *l, const struct record_sink_report *s, unsigned kept,
		      const struct record_output *one)
{
	const struct perfsink_sink_stats *st = &s->st;
	char out[32];

	human(out, sizeof(out), s->written);
	if (one && is_url(one->where)) {
		say(l, ", %s sent to %s", out, kept == 1 ? one->where : "");
		if (kept > 1)
			say(l, "%u streams", kept);
		if (st->files)
			say(l, " in %llu parts", (unsigned long long)st->files);
		if (st->backlog_sent_bytes)
			say(l, " (%.3f MB of it earlier runs' backlog)", mb(st->backlog_sent_bytes));
	} else if (kept == 1 && s->nr_outputs == 1) {
		say(l, ", %s written to %s", out, one->where);
	} else {
		say(l, ", %s written%s", out, kept || !s->nr_outputs ? "" : " (no output kept)");
		if (s->nr_outputs)
			say(l, " to %u outputs", s->nr_outputs);
	}
	if (s->nr_outputs > kept)
		say(l, " (%u removed: empty, or older than --switch-max-files)", s->nr_outputs - kept);
}

/* The spool: this run's part left for later, and the earlier runs' backlog. */
static void say_spool(struct line *l, const struct perfsink_sink_stats *st)
{
	uint64_t other = st->pending_bytes > st->spooled_bytes + st->backlog_bytes
		? st->pending_bytes - st->spooled_bytes - st->backlog_bytes : 0;

	if (st->spooled_bytes)
		say(l, ", this run's %llu bytes (%llu parts) left in the spool to send later",
		    (unsigned long long)st->spooled_bytes, (unsigned long long)st->spooled_parts);
	if (st->backlog_bytes)
		say(l, ", earlier runs' backlog of %llu bytes (%llu parts) still in the spool",
		    (unsigned long long)st->backlog_bytes, (unsigned long long)st->backlog_parts);
	/* A sink before ABI 1.4 says only how much waits, not whose. */
	if (other)
		say(l, ", %llu bytes left to send later", (unsigned long long)other);
}

/* Symbol files shipped beside the data (sink ABI 1.8), and those not. */
static void say_symbols(struct line *l, const struct perfsink_sink_stats *st)
{
	if (!st->symbols_files && !st->symbols_skipped && !st->symbols_unsampled)
		return;
	say(l, ", symbols: %llu files (%llu bytes) shipped", (unsigned long long)st->symbols_files,
	    (unsigned long long)st->symbols_bytes);
	if (st->symbols_skipped)
		say(l, ", %llu skipped (%llu bytes; symbols_budget, symbols_max)",
		    (unsigned long long)st->symbols_skipped, (unsigned long long)st->symbols_skipped_bytes);
	if (st->symbols_unsampled)
		say(l, ", %llu mapped but not sampled", (unsigned long long)st->symbols_unsampled);
}

/* One line per sink with stats, naming where its data went; a failed one also says what it lost. */
static void print_sink(const struct record_sink_report *s)
{
	const struct perfsink_sink_stats *st = &s->st;
	const struct record_output *one = NULL;
	unsigned kept = outputs_kept(s, &one);
	struct line l = { .k = 0 };
	char in[32];

	human(in, sizeof(in), st->bytes_in);
	say(&l, "[ sink %s (%s): %s in", s->name, s->plugin, in);
	say_where(&l, s, kept, one);
	if (st->retries)
		say(&l, ", %llu retries", (unsigned long long)st->retries);
	say_spool(&l, st);
	say_symbols(&l, st);
	if ((st->dropped_bytes || st->dropped_records) && st->lost_parts)
		say(&l, ", LOST %llu bytes (%llu records in %llu parts)", (unsigned long long)st->dropped_bytes,
		    (unsigned long long)st->dropped_records, (unsigned long long)st->lost_parts);
	else if (st->dropped_bytes || st->dropped_records)
		say(&l, ", LOST %llu bytes (%llu records)", (unsigned long long)st->dropped_bytes,
		    (unsigned long long)st->dropped_records);
	/* A failed sink also lost what it was no longer given. */
	if (s->failed)
		say(&l, ", FAILED: lost %llu records (%llu samples, %llu bytes) in all",
		    (unsigned long long)s->lost_records, (unsigned long long)s->lost_samples,
		    (unsigned long long)s->lost_bytes);
	log_summary(st->dropped_bytes || s->failed ? LOG_WARN : LOG_INFO, "%s ]", l.s);
	if (s->nr_outputs > 1)
		for (unsigned k = 0; k < s->nr_outputs; k++)
			if (s->outputs[k].event != PERFSINK_OUTPUT_REMOVED)
				log_summary(LOG_INFO, "[ sink %s: %s (%.3f MB) ]", s->name,
					    s->outputs[k].where, mb(s->outputs[k].bytes));
}

/*
 * A full copy means the stack above the sample was larger than SIZE; the
 * frames the unwinder needs may still all be inside it (the top holds the
 * environment, auxv and a random ASLR gap of up to 8 KiB, so a whole run
 * can fill every copy and still unwind).  Said with -v, as a hint when
 * perf report's chains stop short, never as a warning.
 */
static void print_stack_cut(const struct record_report *r)
{
	uint32_t more = r->stack_user >= 65528 / 4 ? 65528 : r->stack_user * 4;
	char hint[64] = "";

	if (!r->stack_cut || !r->samples)
		return;
	if (more > r->stack_user)
		snprintf(hint, sizeof(hint), "; try --call-graph dwarf,%u", (unsigned)more);
	log_summary(LOG_DEBUG, "[ perfsink record: %llu of %llu samples (%.1f%%) filled the %u-byte DWARF stack "
		"copy: if their call chains stop short%s ]",
		(unsigned long long)r->stack_cut, (unsigned long long)r->samples,
		100.0 * (double)r->stack_cut / (double)r->samples, (unsigned)r->stack_user, hint);
}

uint64_t summary_samples_written(const struct record_report *r)
{
	int sink = worst_sink(r);
	uint64_t not_written = sink >= 0 ? r->sinks[sink].lost_samples : 0;

	return r->samples > not_written ? r->samples - not_written : 0;
}

void summary_print(const struct record_report *r)
{
	int sink = worst_sink(r);
	uint64_t written = summary_samples_written(r);
	char of[64] = "";

	if (sink >= 0)
		snprintf(of, sizeof(of), " written of %llu read", (unsigned long long)r->samples);
	/* The MB each sink was handed ("in"), the recording time (--duration's). */
	log_summary(LOG_INFO, "[ perfsink record: Captured %.3f MB in %.2f s (%llu samples%s, %llu buffers; "
		"%.3f MB from %u rings) ]", mb(r->bytes), r->secs, (unsigned long long)written, of,
		(unsigned long long)r->buffers, mb(r->ring_bytes), r->nr_rings);
	if (r->drain_secs >= DRAIN_SHOWN_S)
		log_summary(LOG_INFO, "[ perfsink record: the sinks finished %.2f s after the recording stopped ]",
			r->drain_secs);
	print_loss(r, sink);
	print_stack_cut(r);
	if (r->overruns)
		log_summary(LOG_WARN, "[ perfsink record: the kernel overwrote unread ring data %llu times ]",
			(unsigned long long)r->overruns);
	if (r->unread_bytes)
		log_summary(LOG_WARN, "[ perfsink record: LOST %llu bytes left in the rings: a sink held every buffer "
			"when the second interrupt came ]", (unsigned long long)r->unread_bytes);
	if (r->pool_waits)
		log_summary(LOG_INFO, "[ perfsink record: waited %llu times for a sink to return a buffer ]",
			(unsigned long long)r->pool_waits);
	if (r->rotations)
		log_summary(LOG_INFO, "[ perfsink record: %llu outputs (rotated %llu times) ]",
			(unsigned long long)r->rotations + 1, (unsigned long long)r->rotations);
	if (r->files_refused)
		log_summary(LOG_WARN, "[ perfsink record: %u mapped files left out of the build-ids, "
			"the build-id cache and the symbols shipped: %s ]", r->files_refused,
			r->files_refused_names);
	for (unsigned i = 0; i < r->nr_sinks; i++)
		if (r->sinks[i].has_stats)
			print_sink(&r->sinks[i]);
}
