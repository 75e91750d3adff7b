/* Event modifiers (:ukp...) and terms (/period=N,.../) as perf 6.1 takes them. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "config/event_lex.h"
#include "config/event_parse_priv.h"
#include "config/event_spec.h"

#define MOD_LETTERS "ukhGHpPSDIWeb"
#define COMMON_TERMS "config, config1, config2, name, period, freq, time, call-graph, " \
	"stack-size, max-stack, inherit, no-inherit, overwrite, no-overwrite, nr, percore, metric-id"
#define TRACEPOINT_TERMS "call-graph, stack-size, max-stack, inherit, no-inherit, " \
	"overwrite, no-overwrite, nr"

/* --------------------------------------------------------- modifiers */

/* perf's check_modifier and precise limit, one reason each. */
static int mods_take(struct parser *p, struct ev_token t, char *dst)
{
	const char *s = p->text + t.pos;
	unsigned precise = 0;

	for (size_t i = 0; i < t.len; i++) {
		if (!strchr(MOD_LETTERS, s[i]))
			return evp_fail(p, t.pos + i, "unknown modifier '%c'; modifiers: u (user), "
				    "k (kernel), h (hypervisor), G (guest), H (host), I (not idle), "
				    "p, pp, ppp (precise), P (most precise), S (read the group), "
				    "D (pinned), e (exclusive), W (weak group), b (BPF counter)", s[i]);
		if (s[i] == 'p' && ++precise > 3)
			return evp_fail(p, t.pos + i, "at most 3 p (precise_ip is 0 to 3)");
		if (s[i] != 'p' && memchr(s + i + 1, s[i], t.len - i - 1))
			return evp_fail(p, t.pos + i, "modifier '%c' given twice", s[i]);
	}
	if (t.len >= EV_MODS_MAX)
		return evp_fail(p, t.pos, "too many modifiers");
	memcpy(dst, s, t.len);
	dst[t.len] = '\0';
	evp_take(p, t);
	return 0;
}

/* [':'] MODS after an event; colon says whether the ':' is required. */
int evp_mods_opt(struct parser *p, char *dst, bool colon)
{
	struct ev_token t = evp_peek(p, LEX_EVENT);

	if (t.type == ':') {
		evp_take(p, t);
		t = evp_peek(p, LEX_EVENT);
		if (t.type != TOK_NAME) {
			char buf[64];
			return evp_fail(p, t.pos, "modifiers expected after ':', found %s",
				    evp_tok_what(p, t, buf, sizeof(buf)));
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
		return evp_fail(p, v.pos, "'%.*s' takes a number (decimal or 0x hex)", (int)key.len,
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
	if (evp_tok_is(p, v, "fp"))
		t->callgraph = EV_CG_FP;
	else if (evp_tok_is(p, v, "dwarf"))
		t->callgraph = EV_CG_DWARF;
	else if (evp_tok_is(p, v, "no"))
		t->callgraph = EV_CG_NO;
	else if (evp_tok_is(p, v, "lbr"))
		return evp_fail(p, v.pos, "call-graph=lbr needs a hardware PMU with last branch records; "
			    "use fp or dwarf");
	else
		return evp_fail(p, v.pos, "call-graph takes fp, dwarf or no (the size goes in "
			    "stack-size=N: call-graph=dwarf,stack-size=4096)");
	return 0;
}

static int term_refused(struct parser *p, struct ev_token key)
{
	if (evp_tok_is(p, key, "branch_type"))
		return evp_fail(p, key.pos, "branch_type (branch stack sampling) needs a hardware PMU "
			    "with branch stacks; perfsink records none");
	if (evp_tok_is(p, key, "aux-output") || evp_tok_is(p, key, "aux-sample-size"))
		return evp_fail(p, key.pos, "%.*s needs a PMU with an AUX area (such as Intel PT); "
			    "perfsink records no AUX data", (int)key.len, p->text + key.pos);
	return 0;
}

/* One KEY[=VALUE] into t. */
static int term_one(struct parser *p, struct ev_terms *t)
{
	struct ev_token key = evp_peek(p, LEX_EVENT), v = { 0 };
	bool has_v = false;
	uint32_t *u32 = NULL;
	uint64_t *u64 = NULL, n = 0;
	bool *has = NULL;

	if (key.type != TOK_NAME) {
		char buf[64];
		if (p->text[key.pos] == '@')
			return evp_fail(p, key.pos, "driver config terms (@...) are for hardware tracer "
				    "PMUs; none is supported");
		return evp_fail(p, key.pos, "a term expected, found %s", evp_tok_what(p, key, buf, sizeof(buf)));
	}
	evp_take(p, key);
	if (evp_peek(p, LEX_EVENT).type == '=') {
		evp_take(p, evp_peek(p, LEX_EVENT));
		v = evp_peek(p, LEX_TERM_VALUE);
		if (v.type != TOK_NUMBER && v.type != TOK_NAME && v.type != TOK_QUOTED) {
			char buf[64];
			return evp_fail(p, v.pos, "a value expected after '=', found %s",
				    evp_tok_what(p, v, buf, sizeof(buf)));
		}
		evp_take(p, v);
		has_v = true;
	}
	if (term_refused(p, key))
		return p->ret;
	if (evp_tok_is(p, key, "period")) { u64 = &t->period; has = &t->has_period; }
	else if (evp_tok_is(p, key, "freq")) { u64 = &t->freq; has = &t->has_freq; }
	else if (evp_tok_is(p, key, "config")) { u64 = &t->config; has = &t->has_config; }
	else if (evp_tok_is(p, key, "config1")) { u64 = &t->config1; has = &t->has_config1; }
	else if (evp_tok_is(p, key, "config2")) { u64 = &t->config2; has = &t->has_config2; }
	else if (evp_tok_is(p, key, "max-stack")) { u32 = &t->max_stack; has = &t->has_max_stack; }
	else if (evp_tok_is(p, key, "stack-size")) { u32 = &t->stack_size; }
	else if (evp_tok_is(p, key, "nr")) { u64 = &n; }
	if (u64 || u32) {
		if (!has_v)
			return evp_fail(p, key.pos, "'%.*s' needs a value: %.*s=N", (int)key.len,
				    p->text + key.pos, (int)key.len, p->text + key.pos);
		if (term_number(p, key, v, &n))
			return p->ret;
		if (u32 && n > UINT32_MAX)
			return evp_fail(p, v.pos, "%" PRIu64 " is too large", n);
		if (u64)
			*u64 = n;
		else
			*u32 = (uint32_t)n;
		if (has)
			*has = true;
		return 0;
	}
	if (evp_tok_is(p, key, "time"))
		return term_flag(p, key, v, has_v, &t->time);
	if (evp_tok_is(p, key, "inherit") || evp_tok_is(p, key, "no-inherit")) {
		int r = term_flag(p, key, v, has_v, &t->inherit);
		if (!r && p->text[key.pos] == 'n')
			t->inherit = !t->inherit;
		return r;
	}
	if (evp_tok_is(p, key, "overwrite") || evp_tok_is(p, key, "no-overwrite")) {
		int r = term_flag(p, key, v, has_v, &t->overwrite);
		if (!r && p->text[key.pos] == 'n')
			t->overwrite = !t->overwrite;
		return r;
	}
	if (evp_tok_is(p, key, "call-graph")) {
		if (!has_v)
			return evp_fail(p, key.pos, "call-graph needs a value: fp, dwarf or no");
		return term_callgraph(p, v, t);
	}
	if (evp_tok_is(p, key, "name") || evp_tok_is(p, key, "metric-id")) {
		if (!has_v || v.type == TOK_NUMBER)
			return evp_fail(p, key.pos, "'%.*s' takes a name: %.*s=NAME or '...'",
				    (int)key.len, p->text + key.pos, (int)key.len, p->text + key.pos);
		if (p->text[key.pos] == 'm')
			return 0; /* perf stat's metric id: nothing for record */
		free(t->name);
		t->name = evp_tok_dup(p, v);
		return t->name ? 0 : evp_oom(p);
	}
	if (evp_tok_is(p, key, "percore"))
		return 0; /* perf stat's per-core aggregation: nothing for record */
	return evp_fail(p, key.pos, "unknown term '%.*s'; terms: " COMMON_TERMS, (int)key.len,
		    p->text + key.pos);
}

/* '/' [term (',' term)*] '/' */
int evp_terms_parse(struct parser *p, struct ev_terms *t)
{
	if (evp_expect(p, '/', "'/'"))
		return p->ret;
	if (evp_peek(p, LEX_EVENT).type == '/') {
		evp_take(p, evp_peek(p, LEX_EVENT));
		return 0;
	}
	for (;;) {
		if (term_one(p, t))
			return p->ret;
		struct ev_token s = evp_peek(p, LEX_EVENT);
		if (s.type == '/') {
			evp_take(p, s);
			return 0;
		}
		if (s.type != ',') {
			char buf[64];
			return evp_fail(p, s.pos, "',' or the closing '/' expected, found %s",
				    evp_tok_what(p, s, buf, sizeof(buf)));
		}
		evp_take(p, s);
	}
}

/* Terms a tracepoint takes (perf's config_term_tracepoint). */
int evp_tracepoint_terms_check(struct parser *p, const struct ev_spec *e, size_t at)
{
	const struct ev_terms *t = &e->terms;

	if (t->has_period || t->has_freq || t->has_config || t->has_config1 ||
	    t->has_config2 || t->name || t->time >= 0)
		return evp_fail(p, at, "a tracepoint takes only the terms " TRACEPOINT_TERMS);
	return 0;
}
