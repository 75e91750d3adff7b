/*
 * perf's event syntax: a table of good -e strings and what they parse to,
 * a table of bad ones and their exact message (with the column), and the
 * modifier semantics against what perf 6.1 writes into its attrs.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "config/event_spec.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *const kinds[] = { "sym", "tp", "raw", "num", "mem", "pmu" };
static const char *const cgs[] = { "", "no", "fp", "dwarf" };

static void add(char *buf, size_t n, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + len, n - len, fmt, ap);
	va_end(ap);
}

static void describe_terms(char *b, size_t n, const struct ev_terms *t)
{
	if (t->has_period) add(b, n, " period=%" PRIu64, t->period);
	if (t->has_freq) add(b, n, " freq=%" PRIu64, t->freq);
	if (t->has_config) add(b, n, " config=%" PRIu64, t->config);
	if (t->has_max_stack) add(b, n, " max-stack=%u", t->max_stack);
	if (t->callgraph) add(b, n, " cg=%s", cgs[t->callgraph]);
	if (t->stack_size) add(b, n, " stack=%u", t->stack_size);
	if (t->time >= 0) add(b, n, " time=%d", t->time);
	if (t->inherit >= 0) add(b, n, " inherit=%d", t->inherit);
	if (t->overwrite >= 0) add(b, n, " overwrite=%d", t->overwrite);
	if (t->name) add(b, n, " name=%s", t->name);
}

/* One line per event: kind, what it names, terms, modifiers, group. */
static void describe(char *b, size_t n, const struct ev_list *l)
{
	b[0] = '\0';
	for (unsigned i = 0; i < l->nr; i++) {
		const struct ev_spec *e = &l->ev[i];
		add(b, n, "%s%s '%s'", i ? "; " : "", kinds[e->kind], e->text);
		if (e->kind == EV_SYMBOL || e->kind == EV_NUMERIC)
			add(b, n, " %u:%" PRIu64, e->type, e->config);
		else if (e->kind == EV_RAW)
			add(b, n, " 0x%" PRIx64, e->config);
		else if (e->kind == EV_TRACEPOINT)
			add(b, n, " %s/%s", e->tp_sys, e->tp_name);
		else if (e->kind == EV_BREAKPOINT)
			add(b, n, " 0x%" PRIx64 "/%u/%u", e->bp_addr, e->bp_len, e->bp_type);
		else
			add(b, n, " %s", e->pmu);
		describe_terms(b, n, &e->terms);
		if (e->mods[0])
			add(b, n, " :%s", e->mods);
		if (e->group >= 0) {
			const struct ev_group *g = &l->groups[e->group];
			add(b, n, " g%d%s%s%s%s", e->group, g->name ? "=" : "", g->name ? g->name : "",
			    g->mods[0] ? ":" : "", g->mods);
		}
	}
}

static void test_good(void **state)
{
	static const struct { const char *in, *want; } good[] = {
		{ "cpu-clock", "sym 'cpu-clock' 1:0" },
		{ "cs,faults", "sym 'cs' 1:3; sym 'faults' 1:2" },
		{ "cpu-clock:u", "sym 'cpu-clock:u' 1:0 :u" },
		{ "cpu-clock:ppp", "sym 'cpu-clock:ppp' 1:0 :ppp" },
		{ "task-clock:ukhGHIPSDeWb", "sym 'task-clock:ukhGHIPSDeWb' 1:1 :ukhGHIPSDeWb" },
		{ "cycles", "sym 'cycles' 0:0" },
		{ "L1-dcache-load-misses", "sym 'L1-dcache-load-misses' 3:65536" },
		{ "dTLB-stores", "sym 'dTLB-stores' 3:259" },
		{ "{cpu-clock,task-clock}", "sym 'cpu-clock' 1:0 g0; sym 'task-clock' 1:1 g0" },
		{ "{cpu-clock:u,task-clock}:S",
		  "sym 'cpu-clock:u' 1:0 :u g0:S; sym 'task-clock' 1:1 g0:S" },
		{ "grp{cpu-clock,cs},faults",
		  "sym 'cpu-clock' 1:0 g0=grp; sym 'cs' 1:3 g0=grp; sym 'faults' 1:2" },
		{ "cpu-clock/period=10000/", "sym 'cpu-clock/period=10000/' 1:0 period=10000" },
		{ "cpu-clock/period=0x10,freq=100/", "sym 'cpu-clock/period=0x10,freq=100/' 1:0 period=16 freq=100" },
		{ "cpu-clock/call-graph=dwarf,stack-size=4096/",
		  "sym 'cpu-clock/call-graph=dwarf,stack-size=4096/' 1:0 cg=dwarf stack=4096" },
		{ "cpu-clock/call-graph=no/", "sym 'cpu-clock/call-graph=no/' 1:0 cg=no" },
		{ "cpu-clock/name=foo/", "sym 'cpu-clock/name=foo/' 1:0 name=foo" },
		{ "cpu-clock/name='a,b:c'/", "sym 'cpu-clock/name='a,b:c'/' 1:0 name=a,b:c" },
		{ "cpu-clock/name=x.y:z/", "sym 'cpu-clock/name=x.y:z/' 1:0 name=x.y:z" },
		{ "cpu-clock/time,inherit=0,no-overwrite/",
		  "sym 'cpu-clock/time,inherit=0,no-overwrite/' 1:0 time=1 inherit=0 overwrite=0" },
		{ "cpu-clock/no-inherit,overwrite/", "sym 'cpu-clock/no-inherit,overwrite/' 1:0 inherit=0 overwrite=1" },
		{ "cpu-clock/max-stack=3,nr=2,percore,metric-id=m/",
		  "sym 'cpu-clock/max-stack=3,nr=2,percore,metric-id=m/' 1:0 max-stack=3" },
		{ "cpu-clock/period=100/u", "sym 'cpu-clock/period=100/u' 1:0 period=100 :u" },
		{ "cpu-clock//", "sym 'cpu-clock//' 1:0" },
		{ "sched:sched_switch", "tp 'sched:sched_switch' sched/sched_switch" },
		{ "sched:sched_*", "tp 'sched:sched_*' sched/sched_*" },
		{ "sched:sched_switch:u", "tp 'sched:sched_switch:u' sched/sched_switch :u" },
		{ "sched:sched_switch/call-graph=fp,max-stack=4/",
		  "tp 'sched:sched_switch/call-graph=fp,max-stack=4/' sched/sched_switch max-stack=4 cg=fp" },
		{ "*:sys_enter_?read", "tp '*:sys_enter_?read' */sys_enter_?read" },
		{ "r1a8", "raw 'r1a8' 0x1a8" },
		{ "r003c:u", "raw 'r003c:u' 0x3c :u" },
		{ "1:0", "num '1:0' 1:0" },
		{ "1:3/period=7/", "num '1:3/period=7/' 1:3 period=7" },
		{ "mem:0x1000", "mem 'mem:0x1000' 0x1000/0/0" },
		{ "mem:4096:rw", "mem 'mem:4096:rw' 0x1000/0/3" },
		{ "mem:0x1000/8:w", "mem 'mem:0x1000' 0x1000/8/2" },
		{ "mem:0x1000:x:u", "mem 'mem:0x1000:x:u' 0x1000/0/4 :u" },
		{ "mem:0x1000:u", "mem 'mem:0x1000:u' 0x1000/0/0 :u" },
		{ "software/config=1/", "pmu 'software/config=1/' software config=1" },
		{ "{sched:sched_switch,cpu-clock}:k",
		  "tp 'sched:sched_switch' sched/sched_switch g0:k; sym 'cpu-clock' 1:0 g0:k" },
	};
	char err[512], got[1024];

	for (size_t i = 0; i < N(good); i++) {
		struct ev_list l;
		int r = ev_list_parse(good[i].in, &l, err, sizeof(err));
		if (r)
			fail_msg("'%s' refused: %s", good[i].in, err);
		describe(got, sizeof(got), &l);
		if (strcmp(got, good[i].want))
			fail_msg("'%s':\n got  %s\n want %s", good[i].in, got, good[i].want);
		ev_list_free(&l);
	}
}

static void test_bad(void **state)
{
	static const struct { const char *in, *want; } bad[] = {
		{ "", "'' at column 1: an event expected, found the end" },
		{ "cpu-clock,", "'cpu-clock,' at column 11: an event expected, found the end" },
		{ "cpu-clock,,task-clock", "'cpu-clock,,task-clock' at column 11: an event expected, found ','" },
		{ "cpu-clock:x", "'cpu-clock:x' at column 11: unknown modifier 'x'; modifiers: u (user), "
		  "k (kernel), h (hypervisor), G (guest), H (host), I (not idle), p, pp, ppp (precise), "
		  "P (most precise), S (read the group), D (pinned), e (exclusive), W (weak group), "
		  "b (BPF counter)" },
		{ "cpu-clock:pppp", "'cpu-clock:pppp' at column 14: at most 3 p (precise_ip is 0 to 3)" },
		{ "cpu-clock:uu", "'cpu-clock:uu' at column 11: modifier 'u' given twice" },
		{ "cpu-clock:", "'cpu-clock:' at column 11: modifiers expected after ':', found the end" },
		{ "cpu-clock:u:k", "'cpu-clock:u:k' at column 12: ',' or the end expected, found ':'" },
		{ "cpu-clok", "'cpu-clok' at column 1: unknown event 'cpu-clok'; give a name such as "
		  "cpu-clock (perf list), a tracepoint SYSTEM:NAME, mem:ADDR, rHEX, TYPE:CONFIG or PMU/TERMS/" },
		{ "cpu-clock/foo=1/", "'cpu-clock/foo=1/' at column 11: unknown term 'foo'; terms: config, "
		  "config1, config2, name, period, freq, time, call-graph, stack-size, max-stack, inherit, "
		  "no-inherit, overwrite, no-overwrite, nr, percore, metric-id" },
		{ "cpu-clock/period=abc/", "'cpu-clock/period=abc/' at column 18: 'period' takes a number (decimal or 0x hex)" },
		{ "cpu-clock/period/", "'cpu-clock/period/' at column 11: 'period' needs a value: period=N" },
		{ "cpu-clock/period=1", "'cpu-clock/period=1' at column 19: ',' or the closing '/' expected, found the end" },
		{ "cpu-clock/name=a b/", "'cpu-clock/name=a b/' at column 17: ',' or the closing '/' expected, found ' '" },
		{ "cpu-clock/name='ab/", "'cpu-clock/name='ab/' at column 16: a value expected after '=', found ''ab/'" },
		{ "cpu-clock/call-graph=dwarf,4096/", "'cpu-clock/call-graph=dwarf,4096/' at column 28: a term expected, found '4096'" },
		{ "cpu-clock/call-graph=lbr/", "'cpu-clock/call-graph=lbr/' at column 22: call-graph=lbr needs a "
		  "hardware PMU with last branch records; use fp or dwarf" },
		{ "cpu-clock/call-graph=xx/", "'cpu-clock/call-graph=xx/' at column 22: call-graph takes fp, dwarf "
		  "or no (the size goes in stack-size=N: call-graph=dwarf,stack-size=4096)" },
		{ "cpu-clock/branch_type=any/", "'cpu-clock/branch_type=any/' at column 11: branch_type (branch "
		  "stack sampling) needs a hardware PMU with branch stacks; perfsink records none" },
		{ "cpu-clock/aux-output/", "'cpu-clock/aux-output/' at column 11: aux-output needs a PMU with an "
		  "AUX area (such as Intel PT); perfsink records no AUX data" },
		{ "cpu-clock/@cfg/", "'cpu-clock/@cfg/' at column 11: driver config terms (@...) are for "
		  "hardware tracer PMUs; none is supported" },
		{ "cpu-clock/period=100/:u:k", "'cpu-clock/period=100/:u:k' at column 24: ',' or the end expected, found ':'" },
		{ "sched:sched_switch/period=2/", "'sched:sched_switch/period=2/' at column 19: a tracepoint takes "
		  "only the terms call-graph, stack-size, max-stack, inherit, no-inherit, overwrite, no-overwrite, nr" },
		{ "sched:", "'sched:' at column 7: a tracepoint name expected after 'sched:'" },
		{ "{cpu-clock,task-clock", "'{cpu-clock,task-clock' at column 22: ',' or '}' expected, found the end" },
		{ "{}", "'{}' at column 2: empty group: give {EVENT,EVENT...}" },
		{ "{cpu-clock,{task-clock}}", "'{cpu-clock,{task-clock}}' at column 12: groups do not nest" },
		{ "{cpu-clock}:q", "'{cpu-clock}:q' at column 13: unknown modifier 'q'; modifiers: u (user), "
		  "k (kernel), h (hypervisor), G (guest), H (host), I (not idle), p, pp, ppp (precise), "
		  "P (most precise), S (read the group), D (pinned), e (exclusive), W (weak group), "
		  "b (BPF counter)" },
		{ "mem:", "'mem:' at column 5: an address expected after mem: (e.g. mem:0x1000)" },
		{ "mem:0x1000/9", "'mem:0x1000/9' at column 12: a length of 1 to 8 bytes expected after '/'" },
		{ "mem:0x1000:rr", "'mem:0x1000:rr' at column 13: access type 'r' given twice" },
		{ "r12345678901234567", "'r12345678901234567' at column 1: raw config 'r12345678901234567' does not fit in 64 bits" },
		{ "1:", "'1:' at column 3: a config number expected after TYPE:" },
		{ "1a", "'1a' at column 1: an event expected, found '1a'" },
		{ "software", "'software' at column 1: unknown event 'software'; give a name such as "
		  "cpu-clock (perf list), a tracepoint SYSTEM:NAME, mem:ADDR, rHEX, TYPE:CONFIG or PMU/TERMS/" },
		{ "cpu-clock task-clock", "'cpu-clock task-clock' at column 10: ',' or the end expected, found ' '" },
	};
	char err[512];

	for (size_t i = 0; i < N(bad); i++) {
		struct ev_list l;
		err[0] = '\0';
		int r = ev_list_parse(bad[i].in, &l, err, sizeof(err));
		ev_list_free(&l);
		if (r != -EINVAL)
			fail_msg("'%s' accepted (%d)", bad[i].in, r);
		if (strcmp(err, bad[i].want))
			fail_msg("'%s':\n got  %s\n want %s", bad[i].in, err, bad[i].want);
	}
}

/* What perf 6.1 writes for these modifiers (perf evlist -v of its own files). */
static void test_mods(void **state)
{
	static const struct { const char *own, *group; bool leader; const char *want; } cases[] = {
		{ "", "", true, "G" },
		{ "u", "", true, "khG" },
		{ "k", "", true, "uh" },
		{ "h", "", true, "uk" },
		{ "uk", "", true, "hG" },
		{ "p", "", true, "G p1" },
		{ "ppp", "", true, "G p3" },
		{ "P", "", true, "P" },
		{ "G", "", true, "H" },
		{ "H", "", true, "G" },
		{ "I", "", true, "I" },
		{ "S", "", true, "S" },
		{ "D", "", true, "D" },
		{ "", "u", true, "khG" },
		{ "u", "k", true, "hG" },
		{ "k", "k", false, "uh" },
		{ "", "S", false, "GS" },
		{ "S", "u", false, "khG" },
		{ "D", "u", false, "khGD" },
		{ "", "D", false, "G" },
		{ "", "D", true, "GD" },
	};
	for (size_t i = 0; i < N(cases); i++) {
		struct ev_mods m = ev_mods_default();
		char got[32] = "";
		if (cases[i].own[0])
			ev_mods_apply(&m, cases[i].own, false, true);
		if (cases[i].group[0])
			ev_mods_apply(&m, cases[i].group, true, cases[i].leader);
		snprintf(got, sizeof(got), "%s%s%s%s%s%s%s%s%s%s", m.exclude_user ? "u" : "",
			 m.exclude_kernel ? "k" : "", m.exclude_hv ? "h" : "",
			 m.exclude_guest ? "G" : "", m.exclude_host ? "H" : "",
			 m.exclude_idle ? "I" : "", m.precise_max ? "P" : "", m.sample_read ? "S" : "",
			 m.pinned ? "D" : "", m.precise == 1 ? " p1" : m.precise == 3 ? " p3" : "");
		if (strcmp(got, cases[i].want))
			fail_msg("own '%s' group '%s': got '%s', want '%s'", cases[i].own, cases[i].group,
				 got, cases[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_mods),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
