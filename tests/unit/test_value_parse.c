/* Tables of good and bad inputs for every value parser. */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "config/value_parse.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_int(void **state)
{
	static const struct { const char *in; int64_t min, max, want; } good[] = {
		{ "0", 0, 10, 0 }, { "10", 0, 10, 10 }, { "0x400", 0, 4096, 1024 },
		{ "0X1f", 0, 100, 31 }, { "-1", -1, 9, -1 },
		{ "9223372036854775807", 0, INT64_MAX, INT64_MAX },
		{ "-9223372036854775808", INT64_MIN, 0, INT64_MIN },
	};
	static const struct { const char *in; int64_t min, max; } bad[] = {
		{ "", 0, 10 }, { "11", 0, 10 }, { "-1", 0, 10 }, { "12x", 0, 100 },
		{ " 1", 0, 10 }, { "1 ", 0, 10 }, { "+1", 0, 10 }, { "0x", 0, 10 },
		{ "1e3", 0, 10000 }, { "9223372036854775808", 0, INT64_MAX },
		{ "99999999999999999999999", 0, INT64_MAX }, { "0x1g", 0, 100 }, { "-", -5, 5 },
	};
	int64_t v;

	(void)state;
	for (size_t i = 0; i < N(good); i++) {
		v = 12345;
		assert_int_equal(parse_int(good[i].in, good[i].min, good[i].max, &v), 0);
		assert_true(v == good[i].want);
	}
	for (size_t i = 0; i < N(bad); i++) {
		v = 12345;
		assert_int_equal(parse_int(bad[i].in, bad[i].min, bad[i].max, &v), -EINVAL);
		assert_true(v == 12345);
	}
}

static void test_size(void **state)
{
	static const struct { const char *in; uint64_t want; } good[] = {
		{ "4096", 4096 }, { "16k", 16384 }, { "16K", 16384 }, { "512kB", 524288 },
		{ "2M", 2 << 20 }, { "1G", 1ULL << 30 }, { "1T", 1ULL << 40 },
		{ "0x400", 1024 }, { "100B", 100 }, { "0", 0 },
		{ "16777215T", 16777215ULL << 40 },
	};
	static const char *const bad[] = {
		"", "0x40g", "-1", "12x", "1.5M", "k", "16 K", "16KK", "2MiB", "1e99",
		"16777216T", "18446744073709551616", "0x", " 1",
	};
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < N(good); i++) {
		assert_int_equal(parse_size(good[i].in, &v), 0);
		assert_true(v == good[i].want);
	}
	for (size_t i = 0; i < N(bad); i++) {
		if (parse_size(bad[i], &v) != -EINVAL)
			fail_msg("parse_size accepted '%s'", bad[i]);
	}
}

static void test_bool(void **state)
{
	static const struct { const char *in; bool want; } good[] = {
		{ "true", true }, { "YES", true }, { "on", true }, { "1", true },
		{ "False", false }, { "no", false }, { "OFF", false }, { "0", false },
	};
	static const char *const bad[] = { "", "2", "y", "truex", "enable", " true" };
	bool v;

	(void)state;
	for (size_t i = 0; i < N(good); i++) {
		assert_int_equal(parse_bool(good[i].in, &v), 0);
		assert_int_equal(v, good[i].want);
	}
	for (size_t i = 0; i < N(bad); i++)
		assert_int_equal(parse_bool(bad[i], &v), -EINVAL);
}

static void test_duration(void **state)
{
	static const struct { const char *in; uint64_t want; } good[] = {
		{ "250ms", 250 }, { "1.5s", 1500 }, { "10s", 10000 }, { "10", 10000 },
		{ "5m", 300000 }, { "2h", 7200000 }, { "0.25s", 250 }, { "1.5m", 90000 },
		{ "0", 0 }, { "0.001s", 1 },
	};
	static const char *const bad[] = {
		"", "-1", "12x", "1e99", "5000000000h", "9223372036855s", "1.5ms", "0.0001s", "s", ".5s", "1.s", "1 s",
		"10S", "99999999999999999999h", "5000000000000000h", "1.2.3s",
	};
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < N(good); i++) {
		assert_int_equal(parse_duration_ms(good[i].in, &v), 0);
		assert_true(v == good[i].want);
	}
	for (size_t i = 0; i < N(bad); i++) {
		if (parse_duration_ms(bad[i], &v) != -EINVAL)
			fail_msg("parse_duration_ms accepted '%s'", bad[i]);
	}
}

static void test_enum(void **state)
{
	(void)state;
	assert_int_equal(parse_enum("stop", "stop|detach"), 0);
	assert_int_equal(parse_enum("detach", "stop|detach"), 1);
	assert_int_equal(parse_enum("c", "a|b|c"), 2);
	assert_int_equal(parse_enum("only", "only"), 0);
	assert_int_equal(parse_enum("", "a|b"), -EINVAL);
	assert_int_equal(parse_enum("st", "stop|detach"), -EINVAL);
	assert_int_equal(parse_enum("stopx", "stop|detach"), -EINVAL);
	assert_int_equal(parse_enum("STOP", "stop|detach"), -EINVAL);
	assert_int_equal(parse_enum("a|b", "a|b"), -EINVAL);
}

static void test_cpu_list(void **state)
{
	static const struct { const char *in; unsigned n; int cpus[5]; } good[] = {
		{ "0", 1, { 0 } }, { "0-1", 2, { 0, 1 } }, { "0,1", 2, { 0, 1 } },
		{ "3,1", 2, { 1, 3 } }, { "1,1,0-1", 2, { 0, 1 } }, { "0-3,6", 5, { 0, 1, 2, 3, 6 } },
		{ "7", 1, { 7 } },
	};
	static const char *const bad[] = {
		"", "1-0", "8", "0-8", "0,", ",0", "0,,1", "a", "-1", "0-", "0 1", "0x1",
		"99999999999999999999",
	};
	unsigned n;
	int *cpus;

	(void)state;
	for (size_t i = 0; i < N(good); i++) {
		assert_int_equal(parse_cpu_list(good[i].in, 8, &cpus, &n), 0);
		assert_int_equal(n, good[i].n);
		for (unsigned j = 0; j < good[i].n; j++)
			assert_int_equal(cpus[j], good[i].cpus[j]);
		free(cpus);
	}
	for (size_t i = 0; i < N(bad); i++) {
		if (parse_cpu_list(bad[i], 8, &cpus, &n) != -EINVAL)
			fail_msg("parse_cpu_list accepted '%s'", bad[i]);
	}
}

static void test_mmap_pages(void **state)
{
	static const struct { const char *in; uint32_t want; } good[] = {
		{ "1", 1 }, { "128", 128 }, { "0x400", 1024 }, { "512K", 128 },
		{ "4k", 1 }, { "1M", 256 }, { "2G", 524288 },
	};
	static const char *const bad[] = {
		"", "0", "3", "100", "6K", "2K", "12x", "-1", "0x40g", "4294967296", "16T",
	};
	uint32_t v;

	(void)state;
	for (size_t i = 0; i < N(good); i++) {
		assert_int_equal(parse_mmap_pages(good[i].in, 4096, &v), 0);
		assert_int_equal(v, good[i].want);
	}
	for (size_t i = 0; i < N(bad); i++) {
		if (parse_mmap_pages(bad[i], 4096, &v) != -EINVAL)
			fail_msg("parse_mmap_pages accepted '%s'", bad[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_int),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_bool),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_enum),
		cmocka_unit_test(test_cpu_list),
		cmocka_unit_test(test_mmap_pages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
