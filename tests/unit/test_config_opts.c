/* record_opts: defaults, a table of option values, and the whole-set checks. */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "config/opts.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void assert_contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("'%s' does not contain '%s'", hay, needle);
}

static void test_defaults(void **state)
{
	struct record_opts o;
	char err[256];

	(void)state;
	record_opts_init(&o);
	assert_int_equal(o.nr_events, 1);
	assert_string_equal(o.events[0], "cpu-clock");
	assert_int_equal(o.freq, 4000);
	assert_int_equal(o.period, 0);
	assert_int_equal(o.mmap_pages, 128);
	assert_int_equal(o.aio, 4);
	assert_int_equal(o.dwarf_stack, 8192);
	assert_int_equal(o.callgraph, CG_NONE);
	assert_false(o.all_cpus);
	assert_null(o.output);
	assert_int_equal(o.set_mask, 0);
	assert_int_equal(record_opts_check(&o, err, sizeof(err)), 0);
	record_opts_free(&o);
}

/* Every bad value: the error says what is accepted. */
static void test_bad_values(void **state)
{
	static const struct { const char *name, *value; int ret; const char *why; } bad[] = {
		{ "bogus", "1", -ENOENT, "unknown option 'bogus'" },
		{ "freq", "abc", -EINVAL, "'abc' is not a sampling frequency" },
		{ "freq", "0", -EINVAL, "from 1" },
		{ "freq", "-1", -EINVAL, "'-1'" },
		{ "count", "12x", -EINVAL, "'12x' is not a sample period" },
		{ "call-graph", "lbr", -EINVAL, "fp, dwarf[,SIZE], no" },
		{ "call-graph", "dwarfx", -EINVAL, "fp, dwarf[,SIZE], no" },
		{ "call-graph", "dwarf,12", -EINVAL, "multiple of 8" },
		{ "call-graph", "dwarf,65536", -EINVAL, "65528" },
		{ "call-graph", "dwarf,0", -EINVAL, "multiple of 8" },
		{ "call-graph", "dwarf,", -EINVAL, "multiple of 8" },
		{ "mmap-pages", "100", -EINVAL, "power-of-two" },
		{ "mmap-pages", "0", -EINVAL, "power-of-two" },
		{ "mmap-pages", "500K", -EINVAL, "512K" },
		{ "aio", "0", -EINVAL, "1 to 32" },
		{ "aio", "33", -EINVAL, "1 to 32" },
		{ "all-cpus", "maybe", -EINVAL, "true, false" },
		{ "cpu", "1-0", -EINVAL, "ascending" },
		{ "cpu", "", -EINVAL, "not a CPU list" },
		{ "cpu", "8000", -EINVAL, "not online; online CPUs:" },
		{ "cpu", "0-9000", -EINVAL, "not a CPU list" },
		{ "pid", "0", -EINVAL, "not a process id" },
		{ "tid", "x", -EINVAL, "not a thread id" },
		{ "output", "", -EINVAL, "empty output path" },
		{ "duration", "0", -EINVAL, "positive" },
		{ "duration", "1e99", -EINVAL, "250ms" },
		{ "duration", "5d", -EINVAL, "ms, s, m or h" },
		{ "plugin-dir", "", -EINVAL, "empty plugin directory" },
		{ "verbose", "10", -EINVAL, "-1 (quiet) to 9" },
		{ "event", "", -EINVAL, "at column 1: an event expected, found the end" },
		{ "event", "cpu-clock,", -EINVAL, "at column 11: an event expected, found the end" },
		{ "event", "a,,b", -EINVAL, "at column 1: unknown event 'a'" },
		{ "event", "{cpu-clock", -EINVAL, "at column 11: ',' or '}' expected" },
		{ "filter", "prev_pid == 1", -EINVAL, "--filter must come after the -e (event)" },
		{ "filter", "", -EINVAL, "empty filter" },
		{ "exclude-perf", "true", -EINVAL, "--exclude-perf must come after the -e (event)" },
		{ "exclude-perf", "maybe", -EINVAL, "not a boolean" },
		{ "switch-output", "sometimes", -EINVAL, "give signal, a size" },
		{ "switch-output", "1K", -EINVAL, "at least 4K" },
		{ "switch-output", "50ms", -EINVAL, "at least 100ms" },
		{ "switch-output", "100", -EINVAL, "a unit B, K, M or G" },
		{ "switch-output", "0d", -EINVAL, "a time with a unit" },
		{ "switch-max-files", "-1", -EINVAL, "0 (all) to 1000000" },
		{ "switch-max-files", "lots", -EINVAL, "how many segments" },
		{ "overwrite", "perhaps", -EINVAL, "true, false" },
	};
	struct record_opts o;
	char err[512];

	(void)state;
	for (size_t i = 0; i < N(bad); i++) {
		record_opts_init(&o);
		err[0] = '\0';
		assert_int_equal(record_opt_set(&o, bad[i].name, bad[i].value, err, sizeof(err)),
				 bad[i].ret);
		assert_contains(err, bad[i].why);
		assert_int_equal(o.set_mask, 0);
		record_opts_free(&o);
	}
}

static void test_good_values(void **state)
{
	struct record_opts o;
	char err[256];

	(void)state;
	record_opts_init(&o);
#define SET(n, v) assert_int_equal(record_opt_set(&o, n, v, err, sizeof(err)), 0)
	SET("event", "sched:sched_switch,task-clock");
	SET("filter", "prev_pid == 1");
	SET("filter", "next_pid != 0");
	SET("event", "{cpu-clock,task-clock}:u");
	SET("exclude-perf", "true");
	assert_int_equal(o.nr_events, 2);
	assert_string_equal(o.events[0], "sched:sched_switch,task-clock");
	assert_string_equal(o.events[1], "{cpu-clock,task-clock}:u");
	/* perf's rule: filters combine with && on the -e just before them */
	assert_string_equal(o.filters[0].text, "(prev_pid == 1) && (next_pid != 0)");
	assert_true(o.filters[0].by_filter && !o.filters[0].by_exclude_perf);
	char self[48];
	snprintf(self, sizeof(self), "common_pid != %d", (int)getpid());
	assert_string_equal(o.filters[1].text, self);
	assert_true(o.filters[1].by_exclude_perf && !o.filters[1].by_filter);
	record_opts_source_begin(&o); /* the CLI's list replaces the config's */
	SET("event", "page-faults");
	SET("event", "task-clock");
	assert_int_equal(o.nr_events, 2);
	assert_string_equal(o.events[0], "page-faults");
	assert_string_equal(o.events[1], "task-clock");
	SET("freq", "999");
	assert_int_equal(o.freq, 999);
	SET("count", "0x10");
	assert_int_equal(o.period, 16);
	assert_int_equal(o.freq, 0);
	SET("call-graph", "dwarf,16K");
	assert_int_equal(o.callgraph, CG_DWARF);
	assert_int_equal(o.dwarf_stack, 16384);
	SET("call_graph", "dwarf");
	assert_int_equal(o.dwarf_stack, 8192);
	SET("call-graph", "fp");
	assert_int_equal(o.callgraph, CG_FP);
	SET("mmap_pages", "1M");
	assert_int_equal(o.mmap_pages, 256);
	SET("mmap-pages", "64");
	assert_int_equal(o.mmap_pages, 64);
	SET("aio", "32");
	assert_int_equal(o.aio, 32);
	SET("all-cpus", NULL);
	assert_true(o.all_cpus);
	SET("all_cpus", "off");
	assert_false(o.all_cpus);
	SET("cpu", "0");
	assert_string_equal(o.cpu_list, "0");
	SET("pid", "1");
	assert_int_equal(o.pid, 1);
	SET("tid", "0x10");
	assert_int_equal(o.tid, 16);
	SET("output", "x.data");
	SET("output", "y.data");
	assert_string_equal(o.output, "y.data");
	SET("duration", "1.5s");
	assert_int_equal(o.duration_ms, 1500);
	SET("plugin-dir", "/tmp");
	assert_string_equal(o.plugin_dir, "/tmp");
	SET("verbose", "-1");
	assert_int_equal(o.verbose, -1);
	assert_true(record_opt_is_set(&o, "mmap_pages"));
	assert_true(record_opt_is_set(&o, "call-graph"));
	SET("switch-output", "signal");
	assert_int_equal(o.switch_output, SWITCH_SIGNAL);
	SET("switch-output", "100M");
	assert_int_equal(o.switch_output, SWITCH_SIZE);
	assert_int_equal(o.switch_size, 100ULL << 20);
	SET("switch-output", "30s");
	assert_int_equal(o.switch_output, SWITCH_TIME);
	assert_int_equal(o.switch_ms, 30000);
	SET("switch-output", "10m");
	assert_int_equal(o.switch_ms, 600000);
	SET("switch-output", "2d");
	assert_int_equal(o.switch_ms, 2ULL * 86400000);
	SET("switch_max_files", "24");
	assert_int_equal(o.switch_max_files, 24);
	SET("overwrite", "yes");
	assert_true(o.overwrite);
#undef SET
	record_opts_free(&o);
}

static void test_names(void **state)
{
	struct record_opts o;
	char err[256];
	unsigned n = 0;

	(void)state;
	/* every listed name is accepted by record_opt_set */
	for (; record_opt_names[n]; n++) {
		record_opts_init(&o);
		assert_int_not_equal(record_opt_set(&o, record_opt_names[n], "x", err, sizeof(err)),
				     -ENOENT);
		record_opts_free(&o);
	}
	/* and the list is not cut short (17 when rotation came) */
	assert_true(n >= 17);
}

static unsigned long long read_max_rate(void)
{
	unsigned long long v = 0;
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");

	assert_non_null(f);
	assert_int_equal(fscanf(f, "%llu", &v), 1);
	fclose(f);
	return v;
}

static void test_check(void **state)
{
	static char *cmd[] = { "true", NULL };
	struct record_opts o;
	char err[512], val[32], want[64];
	unsigned long long max = read_max_rate();

	(void)state;
#define CHECK_FAILS(setup, why) do {                                          \
		record_opts_init(&o);                                             \
		setup;                                                            \
		err[0] = '\0';                                                    \
		assert_int_equal(record_opts_check(&o, err, sizeof(err)), -EINVAL); \
		assert_contains(err, why);                                        \
		o.argv = NULL;                                                    \
		record_opts_free(&o);                                             \
	} while (0)
	CHECK_FAILS((o.pid = 1, o.all_cpus = true), "-p/--pid and -a/--all-cpus");
	CHECK_FAILS((o.tid = 1, o.all_cpus = true), "-t/--tid and -a/--all-cpus");
	CHECK_FAILS((o.pid = 1, o.tid = 2), "-p/--pid and -t/--tid");
	CHECK_FAILS((o.pid = 1, o.argv = cmd), "-p/--pid and a command");
	CHECK_FAILS((record_opt_set(&o, "freq", "100", err, sizeof(err)),
		     record_opt_set(&o, "count", "100", err, sizeof(err))),
		    "-F/--freq and -c/--count");
	snprintf(val, sizeof(val), "%llu", max + 1);
	snprintf(want, sizeof(want), "kernel's limit %llu", max);
	CHECK_FAILS(record_opt_set(&o, "freq", val, err, sizeof(err)), want);
#undef CHECK_FAILS
	/* a later source's -c undoes an earlier -F, and the other way round */
	record_opts_init(&o);
	assert_int_equal(record_opt_set(&o, "freq", "100", err, sizeof(err)), 0);
	record_opts_source_begin(&o);
	assert_int_equal(record_opt_set(&o, "count", "1000", err, sizeof(err)), 0);
	assert_int_equal(record_opts_check(&o, err, sizeof(err)), 0);
	assert_false(record_opt_is_set(&o, "freq"));
	record_opts_source_begin(&o);
	assert_int_equal(record_opt_set(&o, "freq", "200", err, sizeof(err)), 0);
	assert_int_equal(record_opts_check(&o, err, sizeof(err)), 0);
	assert_int_equal(o.freq, 200);
	assert_int_equal(o.period, 0);
	record_opts_free(&o);
	/* at the limit, and a period alone, are fine */
	record_opts_init(&o);
	snprintf(val, sizeof(val), "%llu", max);
	assert_int_equal(record_opt_set(&o, "freq", val, err, sizeof(err)), 0);
	assert_int_equal(record_opts_check(&o, err, sizeof(err)), 0);
	record_opts_free(&o);
	record_opts_init(&o);
	assert_int_equal(record_opt_set(&o, "count", "100000000", err, sizeof(err)), 0);
	assert_int_equal(record_opts_check(&o, err, sizeof(err)), 0);
	record_opts_free(&o);
}

/* perf record's options: perf's spellings accepted, the rest refused with the accepted forms. */
/*
 * The target is one setting: a target from the later source (the CLI), or
 * a command, replaces the earlier source's (the config's) whole.
 */
static void test_source_target(void **state)
{
	static const struct {
		const char *cfg, *cli; /* "name=value" or NULL */
		bool command;
		bool all_cpus;
		const char *cpu;
		pid_t pid;
	} cases[] = {
		{ "all-cpus=true", NULL, false, true, NULL, 0 },     /* the config's own */
		{ "all-cpus=true", "pid=42", false, false, NULL, 42 },
		{ "all-cpus=true", NULL, true, false, NULL, 0 },    /* -- cmd */
		{ "cpu=0", "all-cpus=true", false, true, NULL, 0 },
		{ "pid=7", "cpu=0", false, false, "0", 0 },
		{ "pid=7", "freq=99", false, false, NULL, 7 },      /* not a target: kept */
		{ NULL, "all-cpus=true", true, true, NULL, 0 },     /* -a -- cmd, as perf */
	};
	char err[256], buf[64];

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		struct record_opts o;
		const char *src[2] = { cases[i].cfg, cases[i].cli };

		record_opts_init(&o);
		for (int k = 0; k < 2; k++) {
			if (k)
				record_opts_source_begin(&o);
			if (!src[k])
				continue;
			snprintf(buf, sizeof(buf), "%s", src[k]);
			*strchr(buf, '=') = '\0';
			assert_int_equal(record_opt_set(&o, buf, buf + strlen(buf) + 1, err, sizeof(err)), 0);
		}
		record_opts_source_target(&o, cases[i].command);
		if (o.all_cpus != cases[i].all_cpus || o.pid != cases[i].pid ||
		    !!o.cpu_list != !!cases[i].cpu || (o.cpu_list && strcmp(o.cpu_list, cases[i].cpu)))
			fail_msg("case %zu (%s, then %s%s): all_cpus %d, cpu %s, pid %d", i,
				 cases[i].cfg ? cases[i].cfg : "-", cases[i].cli ? cases[i].cli : "-",
				 cases[i].command ? " and a command" : "", o.all_cpus,
				 o.cpu_list ? o.cpu_list : "-", (int)o.pid);
		assert_int_equal(record_opt_is_set(&o, "all-cpus"), cases[i].all_cpus);
		assert_int_equal(record_opts_check(&o, err, sizeof(err)), 0);
		record_opts_free(&o);
	}
}

static void test_perf_values(void **state)
{
	static const struct { const char *name, *value; const char *why; } bad[] = {
		{ "user-regs", "ax,xmm0", "'xmm0' is not a register" },
		{ "intr-regs", "ds", "'ds' is not a register" },
		{ "clockid", "sundial", "monotonic, monotonic_raw" },
		{ "delay", "10-20,30-40", "not time ranges" },
		{ "delay", "-2", "not a delay" },
		{ "control", "pipe:x", "fifo:CTL[,ACK]" },
		{ "control", "fd:x", "fifo:CTL[,ACK]" },
		{ "control", "fd:3,y", "fifo:CTL[,ACK]" },
		{ "max-size", "0", "not an output size limit" },
		{ "compression-level", "23", "1 (fastest) to 22" },
		{ "proc-map-timeout", "0", "not a timeout" },
		{ "data", "maybe", "true, false" },
	};
	struct record_opts o;
	char err[256];

	(void)state;
	for (size_t i = 0; i < N(bad); i++) {
		record_opts_init(&o);
		err[0] = '\0';
		assert_int_equal(record_opt_set(&o, bad[i].name, bad[i].value, err, sizeof(err)), -EINVAL);
		assert_contains(err, bad[i].why);
		record_opts_free(&o);
	}
	record_opts_init(&o);
	assert_int_equal(o.pf.clockid, -1);
	assert_int_equal(record_opt_set(&o, "user-regs", "ax,bx,r15", err, sizeof(err)), 0);
	assert_int_equal(o.pf.user_regs, 0x3 | (1ULL << 23));
	assert_int_equal(record_opt_set(&o, "intr-regs", "true", err, sizeof(err)), 0);
	assert_int_equal(o.pf.intr_regs, 0xff0fffULL); /* perf's PERF_REGS_MASK */
	assert_int_equal(record_opt_set(&o, "clockid", "CLOCK_MONOTONIC_RAW", err, sizeof(err)), 0);
	assert_int_equal(o.pf.clockid, 4);
	assert_int_equal(record_opt_set(&o, "clockid", "real", err, sizeof(err)), 0);
	assert_int_equal(o.pf.clockid, 0);
	assert_int_equal(record_opt_set(&o, "delay", "-1", err, sizeof(err)), 0);
	assert_int_equal(o.pf.delay_ms, -1);
	assert_int_equal(record_opt_set(&o, "control", "fifo:/a,/b", err, sizeof(err)), 0);
	assert_string_equal(o.pf.control, "fifo:/a,/b");
	assert_int_equal(record_opt_set(&o, "control", "fd:3,4", err, sizeof(err)), 0);
	assert_int_equal(record_opt_set(&o, "max-size", "1M", err, sizeof(err)), 0);
	assert_int_equal(o.pf.max_size, 1 << 20);
	assert_int_equal(record_opt_set(&o, "compression-level", "true", err, sizeof(err)), 0);
	assert_int_equal(o.pf.compression_level, 1);
	assert_int_equal(record_opt_set(&o, "freq", "max", err, sizeof(err)), 0);
	assert_true(o.pf.freq_max);
	assert_true(o.freq > 0);
	record_opts_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_good_values),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_perf_values),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_source_target),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
