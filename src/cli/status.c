/*
 * The live status line: elapsed, events/s and MB/s since the last line,
 * what the kernel lost so far, and each sink's state, e.g.
 *
 *   [ 12s  3987 ev/s  0.52 MB/s  lost 0 | default: ok | up: retrying in 3s, spooling 1.2 MB ]
 */
#include <stdarg.h>
#include <stdio.h>
#include "cli/watch.h"

static size_t add(char *out, size_t n, size_t k, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static size_t add(char *out, size_t n, size_t k, const char *fmt, ...)
{
	va_list ap;
	int m;

	if (k >= n)
		return k;
	va_start(ap, fmt);
	m = vsnprintf(out + k, n - k, fmt, ap);
	va_end(ap);
	return m < 0 ? k : k + (size_t)m;
}

static size_t sink_state(char *out, size_t n, size_t k, const struct record_sink_report *s)
{
	const struct perfsink_sink_stats *st = &s->st;
	double mb = (double)st->spooled_bytes / (1024.0 * 1024.0);

	k = add(out, n, k, " | %s: %s", s->name, sink_state_name(s));
	if (s->failed || !s->has_stats)
		return k;
	if (st->state == PERFSINK_STATE_RETRYING)
		k = add(out, n, k, " in %us", (unsigned)((st->retry_in_ms + 999) / 1000));
	if (st->state == PERFSINK_STATE_SPOOLING)
		k = add(out, n, k, " %.1f MB", mb);
	else if (st->spooled_bytes)
		k = add(out, n, k, ", spooling %.1f MB", mb);
	return k;
}

void status_format(const struct watch *w, const struct record_report *p, char *out, size_t n)
{
	double dt = p->secs - w->last_secs;
	double evs = dt > 0 ? (double)(p->samples - w->last_samples) / dt : 0;
	double mbs = dt > 0 ? (double)(p->ring_bytes - w->last_bytes) / dt / (1024.0 * 1024.0) : 0;
	size_t k = 0;

	k = add(out, n, k, "[ %.0fs  %.0f ev/s  %.2f MB/s  lost %llu", p->secs, evs, mbs,
		(unsigned long long)p->kernel_lost);
	for (unsigned i = 0; i < p->nr_sinks; i++)
		k = sink_state(out, n, k, &p->sinks[i]);
	add(out, n, k, " ]");
}
