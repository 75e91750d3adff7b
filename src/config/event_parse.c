/*
 * A recursive-descent parser for perf's event syntax; the grammar is in
 * event_spec.h.  Events, groups and lists here; modifiers and terms in
 * event_terms.c; the cursor and errors in event_cursor.c.  Every error
 * names the column (1-based) it was found at.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "config/event_lex.h"
#include "config/event_parse_priv.h"
#include "config/event_spec.h"

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
		return evp_fail(p, t.pos, "raw config '%.*s' does not fit in 64 bits", (int)t.len,
			    p->text + t.pos);
	*out = strtoull(p->text + t.pos + 1, NULL, 16);
	return 0;
}

/* mem:ADDR[/LEN][:rwx]; the 'mem' is taken. */
static int breakpoint_parse(struct parser *p, struct ev_spec *e)
{
	struct ev_token t;

	if (evp_expect(p, ':', "':' after mem"))
		return p->ret;
	t = evp_peek(p, LEX_EVENT);
	if (t.type != TOK_NUMBER || t.overflow)
		return evp_fail(p, t.pos, "an address expected after mem: (e.g. mem:0x1000)");
	evp_take(p, t);
	e->bp_addr = t.num;
	t = evp_peek(p, LEX_EVENT);
	if (t.type == '/') {
		evp_take(p, t);
		t = evp_peek(p, LEX_EVENT);
		if (t.type != TOK_NUMBER || !t.num || t.num > 8)
			return evp_fail(p, t.pos, "a length of 1 to 8 bytes expected after '/'");
		evp_take(p, t);
		e->bp_len = (uint32_t)t.num;
		t = evp_peek(p, LEX_EVENT);
	}
	if (t.type != ':')
		return 0;
	struct ev_token m = ev_lex(p->text, t.pos + 1, LEX_EVENT);
	if (m.type != TOK_NAME || strspn(p->text + m.pos, "rwx") < m.len)
		return 0; /* event modifiers, not an access type */
	for (size_t i = 0; i < m.len; i++) {
		unsigned bit = p->text[m.pos + i] == 'r' ? 1 : p->text[m.pos + i] == 'w' ? 2 : 4;
		if (e->bp_type & bit)
			return evp_fail(p, m.pos + i, "access type '%c' given twice", p->text[m.pos + i]);
		e->bp_type |= bit;
	}
	evp_take(p, m);
	return 0;
}

static int tracepoint_parse(struct parser *p, struct ev_spec *e, struct ev_token sys)
{
	struct ev_token name;

	evp_take(p, sys);
	evp_take(p, evp_peek(p, LEX_EVENT)); /* ':' */
	name = evp_peek(p, LEX_EVENT);
	if (name.type != TOK_NAME)
		return evp_fail(p, name.pos, "a tracepoint name expected after '%.*s:'", (int)sys.len,
			    p->text + sys.pos);
	evp_take(p, name);
	e->kind = EV_TRACEPOINT;
	e->tp_sys = evp_tok_dup(p, sys);
	e->tp_name = evp_tok_dup(p, name);
	return e->tp_sys && e->tp_name ? 0 : evp_oom(p);
}

static int numeric_parse(struct parser *p, struct ev_spec *e, struct ev_token type)
{
	struct ev_token c;

	evp_take(p, type);
	if (evp_expect(p, ':', "':' after the event type (TYPE:CONFIG)"))
		return p->ret;
	c = evp_peek(p, LEX_EVENT);
	if (c.type != TOK_NUMBER || c.overflow)
		return evp_fail(p, c.pos, "a config number expected after TYPE:");
	if (type.num > UINT32_MAX || type.overflow)
		return evp_fail(p, type.pos, "event type %" PRIu64 " does not fit in 32 bits", type.num);
	evp_take(p, c);
	e->kind = EV_NUMERIC;
	e->type = (uint32_t)type.num;
	e->config = c.num;
	return 0;
}

/* The event's definition, before its terms and modifiers. */
static int def_parse(struct parser *p, struct ev_spec *e)
{
	struct ev_token t = evp_peek(p, LEX_EVENT), after;
	char buf[64];

	if (t.type == TOK_NUMBER)
		return numeric_parse(p, e, t);
	if (t.type != TOK_NAME)
		return evp_fail(p, t.pos, "an event expected, found %s", evp_tok_what(p, t, buf, sizeof(buf)));
	after = ev_lex(p->text, t.pos + t.len, LEX_EVENT);
	if (evp_tok_is(p, t, "mem") && after.type == ':') {
		evp_take(p, t);
		e->kind = EV_BREAKPOINT;
		return breakpoint_parse(p, e);
	}
	char *name = evp_tok_dup(p, t);
	if (!name)
		return evp_oom(p);
	bool sym = ev_symbol_find(name, &e->type, &e->config);
	free(name);
	if (sym) {
		evp_take(p, t);
		e->kind = EV_SYMBOL;
		return 0;
	}
	if (is_raw(p, t)) {
		evp_take(p, t);
		e->kind = EV_RAW;
		return raw_config(p, t, &e->config);
	}
	if (after.type == ':')
		return tracepoint_parse(p, e, t);
	if (after.type == '/') {
		evp_take(p, t);
		e->kind = EV_PMU;
		e->pmu = evp_tok_dup(p, t);
		return e->pmu ? 0 : evp_oom(p);
	}
	return evp_fail(p, t.pos, "unknown event '%.*s'; give a name such as cpu-clock (perf list), "
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
		return evp_oom(p);
	e->col = (unsigned)start + 1;
	e->group = group;
	/* e may move as the list grows: index it. */
	unsigned idx = p->out->nr - 1;
	if (def_parse(p, &p->out->ev[idx]))
		return p->ret;
	e = &p->out->ev[idx];
	if (e->kind != EV_BREAKPOINT && evp_peek(p, LEX_EVENT).type == '/') {
		size_t at = p->pos;
		if (evp_terms_parse(p, &e->terms))
			return p->ret;
		if (e->kind == EV_TRACEPOINT && evp_tracepoint_terms_check(p, e, at))
			return p->ret;
		had_terms = true;
	} else if (e->kind == EV_PMU) {
		return evp_fail(p, p->pos, "'/' expected");
	}
	if (evp_mods_opt(p, e->mods, !had_terms))
		return p->ret;
	e->text = default_name(p->text, start);
	return e->text ? 0 : evp_oom(p);
}

static int group_parse(struct parser *p, struct ev_token name)
{
	struct ev_group *g = realloc(p->out->groups, (p->out->nr_groups + 1) * sizeof(*g));
	int gi = (int)p->out->nr_groups;

	if (!g)
		return evp_oom(p);
	p->out->groups = g;
	g += p->out->nr_groups++;
	memset(g, 0, sizeof(*g));
	g->first = p->out->nr;
	if (name.len && !(g->name = evp_tok_dup(p, name)))
		return evp_oom(p);
	evp_take(p, evp_peek(p, LEX_EVENT)); /* '{' */
	for (;;) {
		struct ev_token t = evp_peek(p, LEX_EVENT);
		if (t.type == '{')
			return evp_fail(p, t.pos, "groups do not nest");
		if (t.type == '}' && p->out->nr == p->out->groups[gi].first)
			return evp_fail(p, t.pos, "empty group: give {EVENT,EVENT...}");
		if (event_parse(p, gi))
			return p->ret;
		t = evp_peek(p, LEX_EVENT);
		if (t.type == '}') {
			evp_take(p, t);
			break;
		}
		if (t.type != ',') {
			char buf[64];
			return evp_fail(p, t.pos, "',' or '}' expected, found %s",
				    evp_tok_what(p, t, buf, sizeof(buf)));
		}
		evp_take(p, t);
	}
	g = &p->out->groups[gi];
	g->nr = p->out->nr - g->first;
	return evp_mods_opt(p, g->mods, true);
}

static int item_parse(struct parser *p)
{
	struct ev_token t = evp_peek(p, LEX_EVENT), none = { 0 };

	if (t.type == '{')
		return group_parse(p, none);
	if (t.type == TOK_NAME && ev_lex(p->text, t.pos + t.len, LEX_EVENT).type == '{') {
		evp_take(p, t);
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
		struct ev_token t = evp_peek(&p, LEX_EVENT);
		if (t.type == TOK_END)
			return 0;
		if (t.type != ',') {
			char buf[64];
			return evp_fail(&p, t.pos, "',' or the end expected, found %s",
				    evp_tok_what(&p, t, buf, sizeof(buf)));
		}
		evp_take(&p, t);
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
