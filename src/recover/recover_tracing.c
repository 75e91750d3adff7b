/*
 * rc_tracing_ok: TRACING_DATA as perf 6.1's trace_report walks it
 * (tools/perf/util/trace-event-read.c): magic, "tracing", version string,
 * endianness, long and page size, header_page, header_event, the ftrace
 * formats, the event formats by system, kallsyms, printk formats and (0.6
 * on) saved cmdlines.  perf reads strings byte by byte into an 8 KiB buffer
 * on its stack and lengths as they come, so each must end inside the
 * section; and every tracepoint event of the file needs its format ("ID:").
 * The format texts themselves are libtraceevent's to parse: only their
 * framing and IDs are checked here.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "recover/recover_feat.h"

#define STRING_MAX 8191 /* perf's read_string: char buf[BUFSIZ] */

struct tw {
	const uint8_t *p;
	uint64_t left;
	bool bad;
};

static const uint8_t *take(struct tw *w, uint64_t n)
{
	const uint8_t *at = w->p;

	if (w->bad || n > w->left) {
		w->bad = true;
		return NULL;
	}
	w->p += n;
	w->left -= n;
	return at;
}

static uint64_t num(struct tw *w, unsigned bytes)
{
	const uint8_t *at = take(w, bytes);
	uint64_t v = 0;

	if (at)
		memcpy(&v, at, bytes); /* little-endian files only (checked) */
	return v;
}

static const char *str(struct tw *w)
{
	uint64_t max = w->left < STRING_MAX + 1 ? w->left : STRING_MAX + 1;
	const uint8_t *nul = w->bad ? NULL : memchr(w->p, '\0', max);

	if (!nul) {
		w->bad = true;
		return NULL;
	}
	return (const char *)take(w, (uint64_t)(nul - w->p) + 1);
}

/* A block perf reads whole: its size (int in perf: below 2 GiB), then the bytes. */
static const uint8_t *block(struct tw *w, unsigned size_bytes, uint64_t *len)
{
	*len = num(w, size_bytes);
	if (*len > INT32_MAX)
		w->bad = true;
	return take(w, *len);
}

/* Whether an event format text says "ID: id" on a line of its own. */
static bool format_has_id(const uint8_t *text, uint64_t len, uint64_t id)
{
	for (uint64_t i = 0; i + 4 < len; i++) {
		if ((i && text[i - 1] != '\n') || memcmp(text + i, "ID: ", 4))
			continue;
		uint64_t v = 0, j = i + 4;
		while (j < len && text[j] >= '0' && text[j] <= '9')
			v = v * 10 + (uint64_t)(text[j++] - '0');
		if (j > i + 4 && v == id)
			return true;
	}
	return false;
}

/* The event files, noting which tracepoints of ev they describe. */
static void event_files(struct tw *w, const struct rc_events *ev, bool *found)
{
	for (uint32_t sys = (uint32_t)num(w, 4); sys && !w->bad; sys--) {
		str(w);
		for (uint32_t cnt = (uint32_t)num(w, 4); cnt && !w->bad; cnt--) {
			uint64_t len;
			const uint8_t *text = block(w, 8, &len);
			for (unsigned i = 0; text && i < ev->nr; i++)
				if (ev->a[i].type == PERF_TYPE_TRACEPOINT &&
				    format_has_id(text, len, ev->a[i].config))
					found[i] = true;
		}
	}
}

bool rc_tracing_ok(const uint8_t *p, uint64_t len, const struct rc_events *ev)
{
	static const uint8_t magic[] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct tw w = { p, len, false };
	const uint8_t *m = take(&w, sizeof(magic));
	const char *version = m && !memcmp(m, magic, sizeof(magic)) ? str(&w) : NULL;
	bool *found = calloc(ev->nr, sizeof(*found)), ok;
	uint64_t n;

	if (!version || !found || num(&w, 1) != 0 /* little-endian */) {
		free(found);
		return false;
	}
	uint64_t long_size = num(&w, 1);
	if ((long_size != 4 && long_size != 8) || !num(&w, 4)) /* page size */
		w.bad = true;
	const uint8_t *tag = take(&w, 12);
	if (!tag || memcmp(tag, "header_page", 12))
		w.bad = true;
	block(&w, 8, &n);
	tag = take(&w, 13);
	if (!tag || memcmp(tag, "header_event", 13))
		w.bad = true;
	block(&w, 8, &n);
	for (uint32_t cnt = (uint32_t)num(&w, 4); cnt && !w.bad; cnt--)
		block(&w, 8, &n); /* ftrace formats */
	event_files(&w, ev, found);
	block(&w, 4, &n); /* kallsyms */
	block(&w, 4, &n); /* printk formats */
	if (atof(version) >= 0.6)
		block(&w, 8, &n); /* saved cmdlines */
	ok = !w.bad;
	for (unsigned i = 0; i < ev->nr; i++)
		if (ev->a[i].type == PERF_TYPE_TRACEPOINT && !found[i])
			ok = false; /* "cannot find event format": perf refuses the file */
	free(found);
	return ok;
}
