/*
 * The live status line: the recording time (against --duration), events/s
 * and MB/s since the last line, the totals so far (samples, MB captured),
 * what the kernel lost, and each sink's state, e.g.
 *
 *   [ 12s/60s  3987 ev/s  0.52 MB/s  47k samples  6.1 MB  lost 0 | default: ok | up: retrying in 3s, spooling 1.2 MB ]
 *
 * and once recording stopped, while the sinks finish, the drain's
 * countdown of the sink that drains ("drain 57s left"), e.g.
 *
 *   [ 60s/60s  stopped 2s ago  235k samples  30.4 MB  lost 0 | up: retrying in 1s, spooling 4.3 MB, drain 58s left ]
 *
 * It fits the terminal's width without cutting a piece: the rates go
 * first, then the sinks say it shorter ("retry 3s, spool 1.2M"), then the
 * totals go, then the last sinks give way to "+N more".
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "cli/status.h"

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

static double mb(uint64_t bytes)
{
	return (double)bytes / (1024.0 * 1024.0);
}

const char *sink_state_name(const struct record_sink_report *s)
{
	static const char *const names[] = { "ok", "retrying", "spooling", "failed" };

	if (s->failed)
		return "failed";
	return s->st.state < 4 ? names[s->st.state] : "ok";
}

/* A count in at most 5 characters or so: 73412, 523k, 12.4M. */
static size_t count(char *out, size_t n, size_t k, uint64_t v)
{
	if (v < 100000)
		return add(out, n, k, "%llu", (unsigned long long)v);
	if (v < 1000000)
		return add(out, n, k, "%.0fk", (double)v / 1e3);
	if (v < 1000000000)
		return add(out, n, k, "%.1fM", (double)v / 1e6);
	return add(out, n, k, "%.1fG", (double)v / 1e9);
}

/* One sink's piece, " | name: ...", in full words or short ones. */
static size_t sink_piece(char *out, size_t n, size_t k, const struct record_sink_report *s,
			 bool stopped, bool brief)
{
	const struct perfsink_sink_stats *st = &s->st;
	double spool = mb(st->spooled_bytes);

	k = add(out, n, k, " | %s: ", s->name);
	if (s->failed || !s->has_stats)
		return add(out, n, k, "%s", sink_state_name(s));
	if (st->state == PERFSINK_STATE_RETRYING)
		k = add(out, n, k, brief ? "retry %us" : "retrying in %us",
			(unsigned)((st->retry_in_ms + 999) / 1000));
	else if (st->state == PERFSINK_STATE_SPOOLING)
		k = add(out, n, k, brief ? "spool %.1fM" : "spooling %.1f MB", spool);
	else
		k = add(out, n, k, "%s", sink_state_name(s));
	if (st->state != PERFSINK_STATE_SPOOLING && st->spooled_bytes)
		k = add(out, n, k, brief ? ", spool %.1fM" : ", spooling %.1f MB", spool);
	if (stopped && st->drain_left_ms)
		k = add(out, n, k, brief ? ", %us left" : ", drain %us left",
			(unsigned)((st->drain_left_ms + 999) / 1000));
	return k;
}

/* How much of the line to show: each level gives up more than the one before. */
enum status_level { L_ALL, L_NO_RATES, L_BRIEF, L_NO_TOTALS, L_LEVELS };

/* The line at level, with the first `sinks` sinks and "+N more" for the rest. */
static size_t status_at(const struct status_ctx *c, const struct record_report *p, enum status_level level,
			unsigned sinks, char *out, size_t n)
{
	double dt = p->secs - c->last_secs;
	size_t k = add(out, n, 0, "[ %.0fs", p->secs);

	if (c->duration_ms)
		k = add(out, n, k, "/%gs", (double)c->duration_ms / 1000.0);
	if (p->stopped && level == L_ALL)
		k = add(out, n, k, "  stopped %.0fs ago", p->drain_secs);
	else if (level == L_ALL && dt > 0)
		k = add(out, n, k, "  %.0f ev/s  %.2f MB/s", (double)(p->samples - c->last_samples) / dt,
			mb(p->ring_bytes - c->last_bytes) / dt);
	if (level < L_NO_TOTALS) {
		k = add(out, n, k, "  ");
		k = count(out, n, k, p->samples);
		k = add(out, n, k, " samples  %.1f MB", mb(p->bytes));
	}
	k = add(out, n, k, "  lost %llu", (unsigned long long)p->kernel_lost);
	for (unsigned i = 0; i < sinks && i < p->nr_sinks; i++)
		k = sink_piece(out, n, k, &p->sinks[i], p->stopped, level >= L_BRIEF);
	if (sinks < p->nr_sinks)
		k = add(out, n, k, " | +%u more", p->nr_sinks - sinks);
	return add(out, n, k, " ]");
}

void status_format(const struct status_ctx *c, const struct record_report *p, unsigned width,
		   char *out, size_t n)
{
	enum status_level level;
	unsigned sinks = p->nr_sinks;

	/* Shorter levels first drop pieces, then the last sinks, one at a time. */
	for (level = L_ALL; level < L_LEVELS; level++)
		if (status_at(c, p, level, sinks, out, n) < width)
			return;
	while (sinks-- > 0)
		if (status_at(c, p, L_NO_TOTALS, sinks, out, n) < width)
			return;
}
