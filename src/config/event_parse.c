/*
 * A recursive-descent parser for perf's event syntax; the grammar is in
 * event_spec.h.  Every error names the column (1-based) it was found at.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/event_lex.h"
#include "config/event_spec.h"

#define MOD_LETTERS "ukhGHpPSDIWeb"
#define COMMON_TERMS "config, config1, config2, name, period, freq, time, call-graph, " \
	"stack-size, max-stack, inherit, no-inherit, overwrite, no-overwrite, nr, percore, metric-id"
#define TRACEPOINT_TERMS "call-graph, stack-size, max-stack, inherit, no-inherit, " \
	"overwrite, no-overwrite, nr"

struct parser {
	const char *text;
	size_t pos;
	struct ev_list *out;
	char *err;
	size_t errlen;
	int ret;
};

static int fail(struct parser *p, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct parser *p, size_t pos, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	if (p->ret)
		return p->ret;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(p->err, p->errlen, "'%s' at column %zu: %s", p->text, pos + 1, what);
	p->ret = -EINVAL;
	return p->ret;
}

static int oom(struct parser *p)
{
	snprintf(p->err, p->errlen, "out of memory");
	p->ret = -ENOMEM;
	return p->ret;
}

static struct ev_token peek(const struct parser *p, enum ev_lex_mode mode)
{
	return ev_lex(p->text, p->pos, mode);
}

static void take(struct parser *p, struct ev_token t)
{
	p->pos = t.pos + t.len;
}

/* What the token at t is, for messages. */
static const char *tok_what(const struct parser *p, struct ev_token t, char *buf, size_t n)
{
	if (t.type == TOK_END)
		return "the end";
	snprintf(buf, n, "'%.*s'", (int)(t.len > 40 ? 40 : t.len), p->text + t.pos);
	return buf;
}

static int expect(struct parser *p, int type, const char *what)
{
	struct ev_token t = peek(p, LEX_EVENT);
	char buf[64];

	if (t.type != type)
		return fail(p, t.pos, "%s expected, found %s", what, tok_what(p, t, buf, sizeof(buf)));
	take(p, t);
	return 0;
}

static char *tok_dup(const struct parser *p, struct ev_token t)
{
	if (t.type == TOK_QUOTED)
		return strndup(p->text + t.pos + 1, t.len - 2);
	return strndup(p->text + t.pos, t.len);
}

static bool tok_is(const struct parser *p, struct ev_token t, const char *s)
{
	return t.type == TOK_NAME && t.len == strlen(s) && !strncmp(p->text + t.pos, s, t.len);
}

/* --------------------------------------------------------- modifiers */

/* perf's check_modifier and precise limit, one reason each. */
static int mods_take(struct parser *p, struct ev_token t, char *dst)
{
	const char *s = p->text + t.pos;
	unsigned precise = 0;

	for (size_t i = 0; i < t.len; i++) {
		if (!strchr(MOD_LETTERS, s[i]))
			return fail(p, t.pos + i, "unknown modifier '%c'; modifiers: u (user), "
				    "k (kernel), h (hypervisor), G (guest), H (host), I (not idle), "
				    "p, pp, ppp (precise), P (most precise), S (read the group), "
				    "D (pinned), e (exclusive), W (weak group), b (BPF counter)", s[i]);
		if (s[i] == 'p' && ++precise > 3)
			return fail(p, t.pos + i, "at most 3 p (precise_ip is 0 to 3)");
		if (s[i] != 'p' && memchr(s + i + 1, s[i], t.len - i - 1))
			return fail(p, t.pos + i, "modifier '%c' given twice", s[i]);
	}
	if (t.len >= EV_MODS_MAX)
		return fail(p, t.pos, "too many modifiers");
	memcpy(dst, s, t.len);
	dst[t.len] = '\0';
	take(p, t);
	return 0;
}

/* [':'] MODS after an event; colon says whether the ':' is required. */
static int mods_opt(struct parser *p, char *dst, bool colon)
{
	struct ev_token t = peek(p, LEX_EVENT);

	if (t.type == ':') {
		take(p, t);
		t = peek(p, LEX_EVENT);
		if (t.type != TOK_NAME) {
			char buf[64];
			return fail(p, t.pos, "modifiers expected after ':', found %s",
				    tok_what(p, t, buf, sizeof(buf)));
		}
		return mods_take(p, t, dst);
	}
	if (!colon && t.type == TOK_NAME)
		return mods_take(p, t, dst);
	return 0;
}

/* ------------------------------------------------------------- terms */

static int term_number(struct parser *p, struct ev_token key, struct ev_token v, uint64_t *out)
{
	if (v.type != TOK_NUMBER || v.overflow)
		return fail(p, v.pos, "'%.*s' takes a number (decimal or 0x hex)", (int)key.len,
			    p->text + key.pos);
	*out = v.num;
	return 0;
}

static int term_flag(struct parser *p, struct ev_token key, struct ev_token v, bool has_v, int *out)
{
	uint64_t n = 1;

	if (has_v && term_number(p, key, v, &n))
		return p->ret;
	*out = n != 0;
	return 0;
}

static int term_callgraph(struct parser *p, struct ev_token v, struct ev_terms *t)
{
	if (tok_is(p, v, "fp"))
		t->callgraph = EV_CG_FP;
	else if (tok_is(p, v, "dwarf"))
		t->callgraph = EV_CG_DWARF;
	else if (tok_is(p, v, "no"))
		t->callgraph = EV_CG_NO;
	else if (tok_is(p, v, "lbr"))
		return fail(p, v.pos, "call-graph=lbr needs a hardware PMU with last branch records; "
			    "use fp or dwarf");
	else
		return fail(p, v.pos, "call-graph takes fp, dwarf or no (the size goes in "
			    "stack-size=N: call-graph=dwarf,stack-size=4096)");
	return 0;
}

static int term_refused(struct parser *p, struct ev_token key)
{
	if (tok_is(p, key, "branch_type"))
		return fail(p, key.pos, "branch_type (branch stack sampling) needs a hardware PMU "
			    "with branch stacks; perfsink records none");
	if (tok_is(p, key, "aux-output") || tok_is(p, key, "aux-sample-size"))
		return fail(p, key.pos, "%.*s needs a PMU with an AUX area (such as Intel PT); "
			    "perfsink records no AUX data", (int)key.len, p->text + key.pos);
	return 0;
}

/* One KEY[=VALUE] into t. */
static int term_one(struct parser *p, struct ev_terms *t)
{
	struct ev_token key = peek(p, LEX_EVENT), v = { 0 };
	bool has_v = false;
	uint32_t *u32 = NULL;
	uint64_t *u64 = NULL, n = 0;
	bool *has = NULL;

	if (key.type != TOK_NAME) {
		char buf[64];
		if (p->text[key.pos] == '@')
			return fail(p, key.pos, "driver config terms (@...) are for hardware tracer "
				    "PMUs; none is supported");
		return fail(p, key.pos, "a term expected, found %s", tok_what(p, key, buf, sizeof(buf)));
	}
	take(p, key);
	if (peek(p, LEX_EVENT).type == '=') {
		take(p, peek(p, LEX_EVENT));
		v = peek(p, LEX_TERM_VALUE);
		if (v.type != TOK_NUMBER && v.type != TOK_NAME && v.type != TOK_QUOTED) {
			char buf[64];
			return fail(p, v.pos, "a value expected after '=', found %s",
				    tok_what(p, v, buf, sizeof(buf)));
		}
		take(p, v);
		has_v = true;
	}
	if (term_refused(p, key))
		return p->ret;
	if (tok_is(p, key, "period")) { u64 = &t->period; has = &t->has_period; }
	else if (tok_is(p, key, "freq")) { u64 = &t->freq; has = &t->has_freq; }
	else if (tok_is(p, key, "config")) { u64 = &t->config; has = &t->has_config; }
	else if (tok_is(p, key, "config1")) { u64 = &t->config1; has = &t->has_config1; }
	else if (tok_is(p, key, "config2")) { u64 = &t->config2; has = &t->has_config2; }
	else if (tok_is(p, key, "max-stack")) { u32 = &t->max_stack; has = &t->has_max_stack; }
	else if (tok_is(p, key, "stack-size")) { u32 = &t->stack_size; }
	else if (tok_is(p, key, "nr")) { u64 = &n; }
	if (u64 || u32) {
		if (!has_v)
			return fail(p, key.pos, "'%.*s' needs a value: %.*s=N", (int)key.len,
				    p->text + key.pos, (int)key.len, p->text + key.pos);
		if (term_number(p, key, v, &n))
			return p->ret;
		if (u32 && n > UINT32_MAX)
			return fail(p, v.pos, "%" PRIu64 " is too large", n);
		if (u64)
			*u64 = n;
		else
			*u32 = (uint32_t)n;
		if (has)
			*has = true;
		return 0;
	}
	if (tok_is(p, key, "time"))
		return term_flag(p, key, v, has_v, &t->time);
	if (tok_is(p, key, "inherit") || tok_is(p, key, "no-inherit")) {
		int r = term_flag(p, key, v, has_v, &t->inherit);
		if (!r && p->text[key.pos] == 'n')
			t->inherit = !t->inherit;
		return r;
	}
	if (tok_is(p, key, "overwrite") || tok_is(p, key, "no-overwrite")) {
		int r = term_flag(p, key, v, has_v, &t->overwrite);
		if (!r && p->text[key.pos] == 'n')
			t->overwrite = !t->overwrite;
		return r;
	}
	if (tok_is(p, key, "call-graph")) {
		if (!has_v)
			return fail(p, key.pos, "call-graph needs a value: fp, dwarf or no");
		return term_callgraph(p, v, t);
	}
	if (tok_is(p, key, "name") || tok_is(p, key, "metric-id")) {
		if (!has_v || v.type == TOK_NUMBER)
			return fail(p, key.pos, "'%.*s' takes a name: %.*s=NAME or '...'",
				    (int)key.len, p->text + key.pos, (int)key.len, p->text + key.pos);
		if (p->text[key.pos] == 'm')
			return 0; /* perf stat's metric id: nothing for record */
		free(t->name);
		t->name = tok_dup(p, v);
		return t->name ? 0 : oom(p);
	}
	if (tok_is(p, key, "percore"))
		return 0; /* perf stat's per-core aggregation: nothing for record */
	return fail(p, key.pos, "unknown term '%.*s'; terms: " COMMON_TERMS, (int)key.len,
		    p->text + key.pos);
}

/* '/' [term (',' term)*] '/' */
static int terms_parse(struct parser *p, struct ev_terms *t)
{
	if (expect(p, '/', "'/'"))
		return p->ret;
	if (peek(p, LEX_EVENT).type == '/') {
		take(p, peek(p, LEX_EVENT));
		return 0;
	}
	for (;;) {
		if (term_one(p, t))
			return p->ret;
		struct ev_token s = peek(p, LEX_EVENT);
		if (s.type == '/') {
			take(p, s);
			return 0;
		}
		if (s.type != ',') {
			char buf[64];
			return fail(p, s.pos, "',' or the closing '/' expected, found %s",
				    tok_what(p, s, buf, sizeof(buf)));
		}
		take(p, s);
	}
}

/* Terms a tracepoint takes (perf's config_term_tracepoint). */
static int tracepoint_terms_check(struct parser *p, const struct ev_spec *e, size_t at)
{
	const struct ev_terms *t = &e->terms;

	if (t->has_period || t->has_freq || t->has_config || t->has_config1 ||
	    t->has_config2 || t->name || t->time >= 0)
		return fail(p, at, "a tracepoint takes only the terms " TRACEPOINT_TERMS);
	return 0;
}

/* ------------------------------------------------------------ events */

/* perf's default name: the event's text up to , { } or /, or through /terms/. */
static char *default_name(const char *text, size_t start)
{
	size_t end = start + strcspn(text + start, ",{}/");

	if (text[end] == '/') {
		const char *second = strchr(text + end + 1, '/');
		if (second)
			end = (size_t)(second + 1 - text) + strcspn(second + 1, ",{}/");
	}
	return strndup(text + start, end - start);
}

static bool is_raw(const struct parser *p, struct ev_token t)
{
	const char *s = p->text + t.pos;

	if (t.len < 2 || s[0] != 'r')
		return false;
	for (size_t i = 1; i < t.len; i++)
		if (!strchr("0123456789abcdefABCDEF", s[i]))
			return false;
	return true;
}

static int raw_config(struct parser *p, struct ev_token t, uint64_t *out)
{
	if (t.len > 17)
		return fail(p, t.pos, "raw config '%.*s' does not fit in 64 bits", (int)t.len,
			    p->text + t.pos);
	*out = strtoull(p->text + t.pos + 1, NULL, 16);
	return 0;
}

/* mem:ADDR[/LEN][:rwx]; the 'mem' is taken. */
static int breakpoint_parse(struct parser *p, struct ev_spec *e)
{
	struct ev_token t;

	if (expect(p, ':', "':' after mem"))
		return p->ret;
	t = peek(p, LEX_EVENT);
	if (t.type != TOK_NUMBER || t.overflow)
		return fail(p, t.pos, "an address expected after mem: (e.g. mem:0x1000)");
	take(p, t);
	e->bp_addr = t.num;
	t = peek(p, LEX_EVENT);
	if (t.type == '/') {
		take(p, t);
		t = peek(p, LEX_EVENT);
		if (t.type != TOK_NUMBER || !t.num || t.num > 8)
			return fail(p, t.pos, "a length of 1 to 8 bytes expected after '/'");
		take(p, t);
		e->bp_len = (uint32_t)t.num;
		t = peek(p, LEX_EVENT);
	}
	if (t.type != ':')
		return 0;
	struct ev_token m = ev_lex(p->text, t.pos + 1, LEX_EVENT);
	if (m.type != TOK_NAME || strspn(p->text + m.pos, "rwx") < m.len)
		return 0; /* event modifiers, not an access type */
	for (size_t i = 0; i < m.len; i++) {
		unsigned bit = p->text[m.pos + i] == 'r' ? 1 : p->text[m.pos + i] == 'w' ? 2 : 4;
		if (e->bp_type & bit)
			return fail(p, m.pos + i, "access type '%c' given twice", p->text[m.pos + i]);
		e->bp_type |= bit;
	}
	take(p, m);
	return 0;
}

static int tracepoint_parse(struct parser *p, struct ev_spec *e, struct ev_token sys)
{
	struct ev_token name;

	take(p, sys);
	take(p, peek(p, LEX_EVENT)); /* ':' */
	name = peek(p, LEX_EVENT);
	if (name.type != TOK_NAME)
		return fail(p, name.pos, "a tracepoint name expected after '%.*s:'", (int)sys.len,
			    p->text + sys.pos);
	take(p, name);
	e->kind = EV_TRACEPOINT;
	e->tp_sys = tok_dup(p, sys);
	e->tp_name = tok_dup(p, name);
	return e->tp_sys && e->tp_name ? 0 : oom(p);
}

static int numeric_parse(struct parser *p, struct ev_spec *e, struct ev_token type)
{
	struct ev_token c;

	take(p, type);
	if (expect(p, ':', "':' after the event type (TYPE:CONFIG)"))
		return p->ret;
	c = peek(p, LEX_EVENT);
	if (c.type != TOK_NUMBER || c.overflow)
		return fail(p, c.pos, "a config number expected after TYPE:");
	if (type.num > UINT32_MAX || type.overflow)
		return fail(p, type.pos, "event type %" PRIu64 " does not fit in 32 bits", type.num);
	take(p, c);
	e->kind = EV_NUMERIC;
	e->type = (uint32_t)type.num;
	e->config = c.num;
	return 0;
}

/* The event's definition, before its terms and modifiers. */
static int def_parse(struct parser *p, struct ev_spec *e)
{
	struct ev_token t = peek(p, LEX_EVENT), after;
	char buf[64];

	if (t.type == TOK_NUMBER)
		return numeric_parse(p, e, t);
	if (t.type != TOK_NAME)
		return fail(p, t.pos, "an event expected, found %s", tok_what(p, t, buf, sizeof(buf)));
	after = ev_lex(p->text, t.pos + t.len, LEX_EVENT);
	if (tok_is(p, t, "mem") && after.type == ':') {
		take(p, t);
		e->kind = EV_BREAKPOINT;
		return breakpoint_parse(p, e);
	}
	char *name = tok_dup(p, t);
	if (!name)
		return oom(p);
	bool sym = ev_symbol_find(name, &e->type, &e->config);
	free(name);
	if (sym) {
		take(p, t);
		e->kind = EV_SYMBOL;
		return 0;
	}
	if (is_raw(p, t)) {
		take(p, t);
		e->kind = EV_RAW;
		return raw_config(p, t, &e->config);
	}
	if (after.type == ':')
		return tracepoint_parse(p, e, t);
	if (after.type == '/') {
		take(p, t);
		e->kind = EV_PMU;
		e->pmu = tok_dup(p, t);
		return e->pmu ? 0 : oom(p);
	}
	return fail(p, t.pos, "unknown event '%.*s'; give a name such as cpu-clock (perf list), "
		    "a tracepoint SYSTEM:NAME, mem:ADDR, rHEX, TYPE:CONFIG or PMU/TERMS/",
		    (int)t.len, p->text + t.pos);
}

static struct ev_spec *spec_new(struct parser *p)
{
	struct ev_spec *v = realloc(p->out->ev, (p->out->nr + 1) * sizeof(*v));

	if (!v)
		return NULL;
	p->out->ev = v;
	v += p->out->nr++;
	memset(v, 0, sizeof(*v));
	v->terms.time = v->terms.inherit = v->terms.overwrite = -1;
	v->group = -1;
	return v;
}

static int event_parse(struct parser *p, int group)
{
	size_t start = p->pos;
	struct ev_spec *e = spec_new(p);
	bool had_terms = false;

	if (!e)
		return oom(p);
	e->col = (unsigned)start + 1;
	e->group = group;
	/* e may move as the list grows: index it. */
	unsigned idx = p->out->nr - 1;
	if (def_parse(p, &p->out->ev[idx]))
		return p->ret;
	e = &p->out->ev[idx];
	if (e->kind != EV_BREAKPOINT && peek(p, LEX_EVENT).type == '/') {
		size_t at = p->pos;
		if (terms_parse(p, &e->terms))
			return p->ret;
		if (e->kind == EV_TRACEPOINT && tracepoint_terms_check(p, e, at))
			return p->ret;
		had_terms = true;
	} else if (e->kind == EV_PMU) {
		return fail(p, p->pos, "'/' expected");
	}
	if (mods_opt(p, e->mods, !had_terms))
		return p->ret;
	e->text = default_name(p->text, start);
	return e->text ? 0 : oom(p);
}

static int group_parse(struct parser *p, struct ev_token name)
{
	struct ev_group *g = realloc(p->out->groups, (p->out->nr_groups + 1) * sizeof(*g));
	int gi = (int)p->out->nr_groups;

	if (!g)
		return oom(p);
	p->out->groups = g;
	g += p->out->nr_groups++;
	memset(g, 0, sizeof(*g));
	g->first = p->out->nr;
	if (name.len && !(g->name = tok_dup(p, name)))
		return oom(p);
	take(p, peek(p, LEX_EVENT)); /* '{' */
	for (;;) {
		struct ev_token t = peek(p, LEX_EVENT);
		if (t.type == '{')
			return fail(p, t.pos, "groups do not nest");
		if (t.type == '}' && p->out->nr == p->out->groups[gi].first)
			return fail(p, t.pos, "empty group: give {EVENT,EVENT...}");
		if (event_parse(p, gi))
			return p->ret;
		t = peek(p, LEX_EVENT);
		if (t.type == '}') {
			take(p, t);
			break;
		}
		if (t.type != ',') {
			char buf[64];
			return fail(p, t.pos, "',' or '}' expected, found %s",
				    tok_what(p, t, buf, sizeof(buf)));
		}
		take(p, t);
	}
	g = &p->out->groups[gi];
	g->nr = p->out->nr - g->first;
	return mods_opt(p, g->mods, true);
}

static int item_parse(struct parser *p)
{
	struct ev_token t = peek(p, LEX_EVENT), none = { 0 };

	if (t.type == '{')
		return group_parse(p, none);
	if (t.type == TOK_NAME && ev_lex(p->text, t.pos + t.len, LEX_EVENT).type == '{') {
		take(p, t);
		return group_parse(p, t);
	}
	return event_parse(p, -1);
}

int ev_list_parse(const char *text, struct ev_list *out, char *err, size_t errlen)
{
	struct parser p = { .text = text, .out = out, .err = err, .errlen = errlen };

	memset(out, 0, sizeof(*out));
	for (;;) {
		if (item_parse(&p))
			return p.ret;
		struct ev_token t = peek(&p, LEX_EVENT);
		if (t.type == TOK_END)
			return 0;
		if (t.type != ',') {
			char buf[64];
			return fail(&p, t.pos, "',' or the end expected, found %s",
				    tok_what(&p, t, buf, sizeof(buf)));
		}
		take(&p, t);
	}
}

void ev_list_free(struct ev_list *l)
{
	for (unsigned i = 0; i < l->nr; i++) {
		struct ev_spec *e = &l->ev[i];
		free(e->text);
		free(e->tp_sys);
		free(e->tp_name);
		free(e->pmu);
		free(e->terms.name);
	}
	for (unsigned i = 0; i < l->nr_groups; i++)
		free(l->groups[i].name);
	free(l->ev);
	free(l->groups);
	memset(l, 0, sizeof(*l));
}
