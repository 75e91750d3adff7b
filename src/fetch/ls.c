/* `perfsink ls`: hosts and sessions of a collector; see fetch.h. */
#include "fetch/collector.h"
#include "fetch/fetch.h"
#include "base/log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int part_name_seq(const char *name, uint64_t *seq)
{
	size_t n = strlen(name);
	if (n < 10 || n > 19 || strspn(name, "0123456789") != n || (n > 10 && name[0] == '0'))
		return -1;
	*seq = strtoull(name, NULL, 10);
	return 0;
}

/* The number after "key": in a small JSON object, or -1. */
static int64_t json_number(const char *text, size_t len, const char *key)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%.*s", (int)(len < sizeof(buf) - 1 ? len : sizeof(buf) - 1), text);
	const char *p = strstr(buf, key);
	if (!p)
		return -1;
	p += strlen(key);
	while (*p == ' ' || *p == ':' || *p == '\t')
		p++;
	if (*p < '0' || *p > '9')
		return -1;
	return (int64_t)strtoull(p, NULL, 10);
}

int64_t end_marker_parts(const char *text, size_t len)
{
	return json_number(text, len, "\"parts\"");
}

/* What the sink wrote in buildid/sessions/{host}/{session} (the symbol bytes shipped). */
static void symbols_note(struct collector *c, struct session_info *si)
{
	char rel[1024];
	struct bytes b;

	si->symbol_bytes = -1;
	if (!si->has_symbols)
		return;
	bytes_init(&b);
	snprintf(rel, sizeof(rel), "buildid/sessions/%s/%s", si->host, si->session);
	if (collector_get(c, rel, &b, END_MARKER_MAX) == 0)
		si->symbol_bytes = json_number((const char *)b.p, b.len, "\"bytes\"");
	bytes_free(&b);
}

/*
 * When a session without times in an end marker began, on the recording
 * host's clock: the engine names it YYYYmmddTHHMMSSZ-XXXXXXXXXXXX (UTC, at
 * its start).  A rotated segment's name adds local time; not used: 0.
 */
static int64_t session_name_start(const char *name)
{
	struct tm tm = { 0 };
	const char *rest = strptime(name, "%Y%m%dT%H%M%SZ-", &tm);

	if (!rest || strlen(name) != 29 || strspn(rest, "0123456789abcdef") != 12)
		return 0;
	return (int64_t)timegm(&tm);
}

/* The end marker {"parts": N, "start_ns": S, "end_ns": E} into si. */
static void end_marker_read(struct session_info *si, const struct bytes *b)
{
	int64_t n = end_marker_parts((const char *)b->p, b->len);
	int64_t t0 = json_number((const char *)b->p, b->len, "\"start_ns\"");
	int64_t t1 = json_number((const char *)b->p, b->len, "\"end_ns\"");

	si->end_parts = n > 0 ? (uint64_t)n : 0;
	if (t0 > 0 && t1 >= t0) { /* a sink before 2026-12 wrote no times */
		si->start = t0 / 1000000000;
		si->end = t1 / 1000000000;
	}
}

static int by_name(const void *a, const void *b)
{
	const struct perfsink_coll_entry *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* The parts of host/session into si. */
static int session_scan(struct collector *c, struct session_info *si)
{
	struct perfsink_coll_list l = { 0 };
	char rel[1024];
	snprintf(rel, sizeof(rel), "%s/%s/", si->host, si->session);
	int rc = collector_list(c, rel, &l);
	for (size_t i = 0; !rc && i < l.nr; i++) {
		uint64_t seq;
		if (l.e[i].is_dir || part_name_seq(l.e[i].name, &seq))
			continue;
		if (!si->parts || seq > si->max_seq)
			si->max_seq = seq;
		si->parts++;
		si->bytes += l.e[i].size;
		if (l.e[i].mtime && (!si->first || l.e[i].mtime < si->first))
			si->first = l.e[i].mtime;
		if (l.e[i].mtime > si->last)
			si->last = l.e[i].mtime;
	}
	perfsink_coll_list_free(&l);
	if (!rc && si->ended) {
		struct bytes b;
		bytes_init(&b);
		snprintf(rel, sizeof(rel), "%s/%s.end", si->host, si->session);
		if (collector_get(c, rel, &b, END_MARKER_MAX) == 0)
			end_marker_read(si, &b);
		bytes_free(&b);
	}
	if (!si->start) /* open, or an older sink's marker: only the start is known */
		si->start = session_name_start(si->session);
	return rc;
}

static void time_fmt(int64_t t, char *out, size_t n)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (!t || !gmtime_r(&tt, &tm) || !strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(out, n, "-");
}

/* "ended", "open" (no end marker yet) or "incomplete" (gaps against the marker). */
static const char *state_of(const struct session_info *si)
{
	if (!si->ended)
		return "open";
	return si->parts == si->end_parts && (!si->parts || si->max_seq + 1 == si->parts) ? "ended"
											     : "incomplete";
}

static void print_text(FILE *out, const struct session_info *si, size_t n)
{
	fprintf(out, "%-16s %-34s %-20s %-20s %7s %12s %12s %s\n", "HOST", "SESSION", "START (UTC)",
		"END (UTC)", "PARTS", "BYTES", "SYMBOLS", "STATE");
	for (size_t i = 0; i < n; i++) {
		char a[32], b[32], sym[24] = "-";
		time_fmt(si[i].start, a, sizeof(a));
		time_fmt(si[i].end, b, sizeof(b));
		if (si[i].symbol_bytes >= 0)
			snprintf(sym, sizeof(sym), "%" PRId64, si[i].symbol_bytes);
		fprintf(out, "%-16s %-34s %-20s %-20s %7" PRIu64 " %12" PRIu64 " %12s %s\n", si[i].host,
			si[i].session, a, b, si[i].parts, si[i].bytes, sym, state_of(&si[i]));
	}
}

static void print_json(FILE *out, const struct session_info *si, size_t n)
{
	fputs("[", out);
	for (size_t i = 0; i < n; i++) {
		char a[32], b[32], t0[32], t1[32];
		time_fmt(si[i].first, a, sizeof(a));
		time_fmt(si[i].last, b, sizeof(b));
		time_fmt(si[i].start, t0, sizeof(t0));
		time_fmt(si[i].end, t1, sizeof(t1));
		/* Names are [A-Za-z0-9._-] (the sink's layout): no escaping needed. */
		fprintf(out, "%s\n  {\"host\": \"%s\", \"session\": \"%s\", \"start\": \"%s\", "
			"\"end\": \"%s\", \"first\": \"%s\", \"last\": \"%s\", \"parts\": %" PRIu64 ", "
			"\"bytes\": %" PRIu64 ", \"symbol_bytes\": %" PRId64 ", \"ended\": %s, "
			"\"state\": \"%s\"}", i ? "," : "",
			si[i].host, si[i].session, t0, t1, a, b, si[i].parts, si[i].bytes, si[i].symbol_bytes,
			si[i].ended ? "true" : "false", state_of(&si[i]));
	}
	fputs(n ? "\n]\n" : "]\n", out);
}

/* A name we can put in a path and in JSON as it is. */
static int name_ok(const char *s)
{
	return *s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") ==
			     strlen(s) && strcmp(s, ".") && strcmp(s, "..");
}

/* The sessions of one host appended to *si. */
static int host_scan(struct collector *c, const char *host, struct session_info **si, size_t *n)
{
	struct perfsink_coll_list l = { 0 }, notes = { 0 };
	char rel[512];
	/* The sink's notes of what each session shipped (none: no column). */
	snprintf(rel, sizeof(rel), "buildid/sessions/%s/", host);
	if (collector_list(c, rel, &notes) < 0)
		perfsink_coll_list_free(&notes);
	snprintf(rel, sizeof(rel), "%s/", host);
	int rc = collector_list(c, rel, &l);
	if (rc == 0)
		qsort(l.e, l.nr, sizeof(*l.e), by_name);
	for (size_t i = 0; !rc && i < l.nr; i++) {
		if (!l.e[i].is_dir || !name_ok(l.e[i].name))
			continue;
		struct session_info *v = realloc(*si, (*n + 1) * sizeof(**si));
		if (!v) {
			rc = -ENOMEM;
			break;
		}
		*si = v;
		struct session_info *s = &v[*n];
		memset(s, 0, sizeof(*s));
		s->host = strdup(host);
		s->session = strdup(l.e[i].name);
		(*n)++;
		if (!s->host || !s->session) {
			rc = -ENOMEM;
			break;
		}
		char end[1024];
		snprintf(end, sizeof(end), "%s.end", s->session);
		for (size_t k = 0; k < l.nr; k++)
			if (!l.e[k].is_dir && !strcmp(l.e[k].name, end))
				s->ended = 1;
		for (size_t k = 0; k < notes.nr; k++)
			if (!notes.e[k].is_dir && !strcmp(notes.e[k].name, s->session))
				s->has_symbols = 1;
		rc = session_scan(c, s);
		symbols_note(c, s);
	}
	perfsink_coll_list_free(&l);
	perfsink_coll_list_free(&notes);
	return rc;
}

int ls_run(struct collector *c, int json, FILE *out)
{
	struct perfsink_coll_list hosts = { 0 };
	struct session_info *si = NULL;
	size_t n = 0;
	int rc = collector_list(c, "", &hosts);
	if (rc == 0)
		qsort(hosts.e, hosts.nr, sizeof(*hosts.e), by_name);
	for (size_t i = 0; !rc && i < hosts.nr; i++)
		if (hosts.e[i].is_dir && strcmp(hosts.e[i].name, "buildid") && name_ok(hosts.e[i].name))
			rc = host_scan(c, hosts.e[i].name, &si, &n);
	if (rc == 0) {
		if (json)
			print_json(out, si, n);
		else
			print_text(out, si, n);
	} else {
		pr_err("ls: %s", rc == -ENOMEM ? "out of memory" : c->err);
	}
	for (size_t i = 0; i < n; i++) {
		free(si[i].host);
		free(si[i].session);
	}
	free(si);
	perfsink_coll_list_free(&hosts);
	return rc ? 1 : 0;
}
