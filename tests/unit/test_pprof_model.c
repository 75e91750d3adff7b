/* perfsink pprof's pure parts: interning, the profile model's dedup, the
 * writer's round trip through protobuf-c, sample decoding, map overlap and
 * record ordering (tables of good and bad inputs). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <zlib.h>
#include "pprof/pp_demangle.h"
#include "pprof/pp_intern.h"
#include "pprof/pp_order.h"
#include "pprof/pp_procs.h"
#include "pprof/pp_profile.h"
#include "pprof/pp_sample.h"
#include "pprof/pp_write.h"
#include "profile.pb-c.h"

static void intern_dedup(void **state)
{
	struct pp_intern t;
	int added;
	pp_intern_init(&t);
	/* Enough keys to grow the slots and the key arrays several times. */
	for (uint32_t i = 0; i < 5000; i++) {
		assert_int_equal(pp_intern(&t, &i, sizeof(i), &added), i);
		assert_true(added);
	}
	for (uint32_t i = 0; i < 5000; i += 7) {
		assert_int_equal(pp_intern(&t, &i, sizeof(i), &added), i);
		assert_false(added);
		assert_int_equal(pp_intern_find(&t, &i, sizeof(i)), i);
	}
	uint64_t missing = 1ull << 40;
	assert_int_equal(pp_intern_find(&t, &missing, sizeof(missing)), -1);
	/* Same bytes, other length: another key. */
	assert_int_equal(pp_intern(&t, "ab", 2, &added), 5000);
	assert_int_equal(pp_intern(&t, "ab", 3, &added), 5001);
	size_t n;
	assert_memory_equal(pp_intern_key(&t, 5000, &n), "ab", 2);
	assert_int_equal(n, 2);
	pp_intern_free(&t);
	(void)state;
}

static void profile_dedup(void **state)
{
	struct pp_profile p;
	assert_int_equal(pp_profile_init(&p), 0);
	assert_int_equal(pp_string(&p, ""), 0);
	assert_int_equal(pp_string(&p, "a"), pp_string(&p, "a"));
	assert_int_equal(pp_value_type(&p, "samples", "count"), 0);
	/* Mappings: all five fields make one. */
	int64_t m1 = pp_mapping(&p, 0x1000, 0x2000, 0, "/bin/x", "ab");
	assert_int_equal(m1, 1);
	assert_int_equal(pp_mapping(&p, 0x1000, 0x2000, 0, "/bin/x", "ab"), 1);
	assert_int_equal(pp_mapping(&p, 0x1000, 0x2000, 0, "/bin/x", NULL), 2);
	assert_int_equal(pp_mapping(&p, 0x1000, 0x2000, 0x1000, "/bin/x", "ab"), 3);
	/* Functions: name, system name, file. */
	int64_t f1 = pp_function(&p, "f", NULL, "f.c");
	assert_int_equal(pp_function(&p, "f", "f", "f.c"), f1);
	assert_int_not_equal(pp_function(&p, "f", NULL, "g.c"), f1);
	/* Locations: one per mapping and address; the first lines stay. */
	struct pp_line l1 = { (uint64_t)f1, 10 }, l2 = { (uint64_t)f1, 20 };
	assert_int_equal(pp_location_find(&p, 1, 0x1100), 0);
	int64_t a = pp_location_add(&p, 1, 0x1100, &l1, 1);
	assert_int_equal(a, 1);
	assert_int_equal(pp_location_find(&p, 1, 0x1100), 1);
	assert_int_equal(pp_location_add(&p, 1, 0x1100, &l2, 1), 1);
	assert_int_equal(p.lines[p.loc[0].line0].line, 10);
	assert_int_equal(pp_location_add(&p, 2, 0x1100, &l2, 1), 2);
	assert_true(p.map[0].has_lines);
	/* Samples: same stack and labels add up; other labels or order do not. */
	uint64_t s1[] = { 1, 2 }, s2[] = { 2, 1 };
	struct pp_label la[] = { { "pid", NULL, 7 }, { "comm", "x", 0 } };
	struct pp_label lb[] = { { "pid", NULL, 8 }, { "comm", "x", 0 } };
	int64_t v[PP_MAX_VALUES] = { 1 };
	assert_int_equal(pp_sample_add(&p, s1, 2, la, 2, v), 0);
	assert_int_equal(pp_sample_add(&p, s1, 2, la, 2, v), 0);
	assert_int_equal(pp_sample_add(&p, s2, 2, la, 2, v), 0);
	assert_int_equal(pp_sample_add(&p, s1, 2, lb, 2, v), 0);
	assert_int_equal(p.samples.n, 3);
	assert_int_equal(p.values[0], 2);
	/* A value type added late: earlier rows get 0 for it. */
	assert_int_equal(pp_value_type(&p, "cpu", "nanoseconds"), 1);
	int64_t w[PP_MAX_VALUES] = { 1, 500 };
	assert_int_equal(pp_sample_add(&p, s1, 2, la, 2, w), 0);
	assert_int_equal(p.values[0], 3);
	assert_int_equal(p.values[1], 500);
	assert_int_equal(p.values[2], 1);
	assert_int_equal(p.values[3], 0);
	pp_profile_free(&p);
	(void)state;
}

/* Write a profile, gunzip it, unpack it with protobuf-c: the same content. */
static void write_round_trip(void **state)
{
	struct pp_profile p;
	assert_int_equal(pp_profile_init(&p), 0);
	pp_value_type(&p, "samples", "count");
	pp_value_type(&p, "cpu", "nanoseconds");
	pp_period(&p, "cpu", "nanoseconds", 1000000);
	int64_t m = pp_mapping(&p, 0x400000, 0x401000, 0, "/bin/w", "beef");
	struct pp_line ln = { (uint64_t)pp_function(&p, "main", NULL, "w.c"), 3 };
	uint64_t loc = (uint64_t)pp_location_add(&p, (uint64_t)m, 0x400010, &ln, 1);
	struct pp_label lab[] = { { "comm", "w", 0 }, { "cpu", NULL, 1 } };
	int64_t v[PP_MAX_VALUES] = { 1, 1000000 };
	pp_sample_add(&p, &loc, 1, lab, 2, v);
	pp_sample_add(&p, &loc, 1, lab, 2, v);
	FILE *f = tmpfile();
	assert_non_null(f);
	assert_int_equal(pp_write(&p, f), 0);
	rewind(f);
	gzFile gz = gzdopen(dup(fileno(f)), "rb");
	static uint8_t buf[1 << 16];
	int n = gzread(gz, buf, sizeof(buf));
	gzclose(gz);
	fclose(f);
	assert_true(n > 0);
	Perftools__Profiles__Profile *pr = perftools__profiles__profile__unpack(NULL, (size_t)n, buf);
	assert_non_null(pr);
	assert_string_equal(pr->string_table[0], "");
	assert_int_equal(pr->n_sample_type, 2);
	assert_string_equal(pr->string_table[pr->sample_type[1]->type], "cpu");
	assert_int_equal(pr->n_sample, 1);
	assert_int_equal(pr->sample[0]->value[1], 2000000);
	assert_int_equal(pr->sample[0]->n_label, 2);
	assert_string_equal(pr->string_table[pr->sample[0]->label[0]->str], "w");
	assert_int_equal(pr->sample[0]->label[1]->num, 1);
	assert_int_equal(pr->n_location, 1);
	assert_int_equal(pr->location[0]->address, 0x400010);
	assert_int_equal(pr->location[0]->line[0]->line, 3);
	assert_string_equal(pr->string_table[pr->function[0]->name], "main");
	assert_string_equal(pr->string_table[pr->mapping[0]->build_id], "beef");
	assert_true(pr->mapping[0]->has_line_numbers);
	assert_int_equal(pr->period, 1000000);
	perftools__profiles__profile__free_unpacked(pr, NULL);
	pp_profile_free(&p);
	(void)state;
}

/* A sample record: header then the given u64s. */
static uint16_t rec(uint8_t *r, uint16_t misc, const uint64_t *w, unsigned n)
{
	uint32_t type = PERF_RECORD_SAMPLE;
	uint16_t size = (uint16_t)(8 + 8 * n);
	memcpy(r, &type, 4);
	memcpy(r + 4, &misc, 2);
	memcpy(r + 6, &size, 2);
	memcpy(r + 8, w, 8 * n);
	return size;
}

static void sample_decode(void **state)
{
	struct perf_event_attr a = { 0 };
	uint8_t r[512];
	struct pp_sample s;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	static const uint64_t good[] = { 42, 0x1234, 7 | (8ull << 32), 99, 1, 250000, 3,
					 (uint64_t)PERF_CONTEXT_USER, 0x1234, 0x5678 };
	uint16_t n = rec(r, PERF_RECORD_MISC_USER, good, 10);
	assert_int_equal(pp_sample_id(r, n, a.sample_type), 42);
	assert_int_equal(pp_sample_decode(r, n, &a, &s), 0);
	assert_int_equal(s.ip, 0x1234);
	assert_int_equal(s.pid, 7);
	assert_int_equal(s.tid, 8);
	assert_int_equal(s.time, 99);
	assert_int_equal(s.cpu, 1);
	assert_int_equal(s.period, 250000);
	assert_int_equal(s.nr_chain, 3);
	assert_int_equal(pp_sample_chain(&s, 2), 0x5678);
	assert_int_equal(s.cpumode, PERF_RECORD_MISC_USER);
	/* Bad: cut in the fixed part, a chain longer than the record. */
	assert_int_equal(pp_sample_decode(r, 8 + 16, &a, &s), -EINVAL);
	static const uint64_t long_chain[] = { 42, 0x1234, 7, 99, 1, 250000, 1000, 1 };
	n = rec(r, 0, long_chain, 8);
	assert_int_equal(pp_sample_decode(r, n, &a, &s), -EINVAL);
	/* REGS_USER and STACK_USER: registers by mask, the stack's dyn_size. */
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a.sample_regs_user = (1ull << 7) | (1ull << 8); /* SP, IP */
	static const uint64_t dw[] = { 0x1000, 5, 2 /* abi */, 0x7ff0, 0x1000, 16, 0xaa, 0xbb, 8 };
	n = rec(r, 0, dw, 9);
	assert_int_equal(pp_sample_decode(r, n, &a, &s), 0);
	assert_int_equal(pp_sample_reg(&s, 7), 0x7ff0);
	assert_int_equal(pp_sample_reg(&s, 8), 0x1000);
	assert_int_equal(pp_sample_reg(&s, 6), 0);
	assert_int_equal(s.stack_size, 8);
	/* A stack copy longer than the record. */
	static const uint64_t dw_bad[] = { 0x1000, 5, 2, 0x7ff0, 0x1000, 4096 };
	n = rec(r, 0, dw_bad, 6);
	assert_int_equal(pp_sample_decode(r, n, &a, &s), -EINVAL);
	(void)state;
}

/* Maps: a new one replaces what it overlaps, keeping the outer parts. */
static void procs_overlap(void **state)
{
	static const struct {
		uint64_t start, end;
		unsigned n;                   /* maps after it */
		uint64_t want[4][3];          /* start, end, pgoff */
	} t[] = {
		{ 0x1000, 0x5000, 1, { { 0x1000, 0x5000, 0 } } },
		{ 0x2000, 0x3000, 3, { { 0x1000, 0x2000, 0 }, { 0x2000, 0x3000, 0 }, { 0x3000, 0x5000, 0x2000 } } },
		{ 0x0, 0x1800, 4, { { 0x0, 0x1800, 0 }, { 0x1800, 0x2000, 0 } } },
		{ 0x0, 0x10000, 1, { { 0x0, 0x10000, 0 } } },
	};
	struct pp_proc p = { 0 };
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct pp_map m = { t[i].start, t[i].end, 0, (uint32_t)i, 0, 0 };
		print_message("case %zu\n", i);
		assert_int_equal(pp_proc_map(&p, &m), 0);
		assert_int_equal(p.n, t[i].n);
		for (unsigned j = 0; j < 4 && t[i].want[j][1]; j++) {
			assert_int_equal(p.m[j].start, t[i].want[j][0]);
			assert_int_equal(p.m[j].end, t[i].want[j][1]);
		}
		for (size_t j = 1; j < p.n; j++)
			assert_true(p.m[j - 1].end <= p.m[j].start);
	}
	assert_non_null(pp_proc_find(&p, 0x5));
	assert_null(pp_proc_find(&p, 0x10000));
	free(p.m);
	(void)state;
}

/* A COMM record: pid, tid, the name (and no sample_id trailer). */
static uint16_t comm_rec(uint8_t *r, uint16_t misc, uint32_t pid, uint32_t tid, const char *name)
{
	uint32_t type = PERF_RECORD_COMM;
	uint16_t size = 8 + 8 + 16;
	memset(r, 0, size);
	memcpy(r, &type, 4);
	memcpy(r + 4, &misc, 2);
	memcpy(r + 6, &size, 2);
	memcpy(r + 8, &pid, 4);
	memcpy(r + 12, &tid, 4);
	memcpy(r + 16, name, strlen(name));
	return size;
}

/* Thread names: a thread's own COMM, else its process's; exec renames. */
static void procs_comm(void **state)
{
	struct pp_procs ps;
	uint8_t r[64];
	pp_procs_init(&ps);
	assert_int_equal(pp_procs_record(&ps, r, comm_rec(r, 0, 10, 10, "proc")), 0);
	assert_int_equal(pp_procs_record(&ps, r, comm_rec(r, 0, 10, 11, "worker")), 0);
	struct pp_proc *p = pp_procs_get(&ps, 10);
	assert_string_equal(pp_procs_comm(&ps, p, 10), "proc");
	assert_string_equal(pp_procs_comm(&ps, p, 11), "worker");
	assert_string_equal(pp_procs_comm(&ps, p, 12), "proc");
	assert_int_equal(pp_procs_record(&ps, r, comm_rec(r, 1u << 13, 10, 10, "newprog")), 0);
	assert_string_equal(pp_procs_comm(&ps, pp_procs_get(&ps, 10), 10), "newprog");
	assert_string_equal(pp_procs_comm(&ps, pp_procs_get(&ps, 0), 0), "swapper");
	pp_procs_forget(&ps);
	assert_string_equal(pp_procs_comm(&ps, pp_procs_get(&ps, 10), 11), ":10");
	pp_procs_free(&ps);
	(void)state;
}

struct seen {
	uint64_t t[16];
	unsigned n;
};

static int collect(void *ctx, const struct pp_input *in, const uint8_t *r, uint16_t size)
{
	struct seen *s = ctx;
	s->t[s->n++] = pp_order_time(in, r, size);
	return 0;
}

/* Records come out by time, up to the previous round's last at each round. */
static void order_rounds(void **state)
{
	struct pp_event ev = { 0 };
	struct pp_input in = { 0 };
	ev.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	in.ev = &ev;
	in.nr_ev = 1;
	struct pp_order o;
	struct seen s = { { 0 }, 0 };
	pp_order_init(&o, collect, &s);
	uint8_t r[64], fr[8] = { 68, 0, 0, 0, 0, 0, 8, 0 };
	static const uint64_t round1[] = { 30, 10, 20 }, round2[] = { 25, 40, 5 };
	for (unsigned i = 0; i < 3; i++) {
		uint64_t w[3] = { 0x1, 1, round1[i] };
		assert_int_equal(pp_order_record(&o, &in, r, rec(r, 0, w, 3)), 0);
	}
	assert_int_equal(pp_order_record(&o, &in, fr, 8), 0);
	assert_int_equal(s.n, 0); /* the first round waits for the next */
	for (unsigned i = 0; i < 3; i++) {
		uint64_t w[3] = { 0x1, 1, round2[i] };
		assert_int_equal(pp_order_record(&o, &in, r, rec(r, 0, w, 3)), 0);
	}
	assert_int_equal(pp_order_record(&o, &in, fr, 8), 0);
	static const uint64_t want1[] = { 5, 10, 20, 25, 30 };
	assert_int_equal(s.n, 5);
	for (unsigned i = 0; i < 5; i++)
		assert_int_equal(s.t[i], want1[i]);
	assert_int_equal(pp_order_flush(&o, &in), 0);
	assert_int_equal(s.n, 6);
	assert_int_equal(s.t[5], 40);
	pp_order_free(&o);
	(void)state;
}

/* C++ names cut as perf report shows them (checked against perf 6.1). */
static void demangle_table(void **state)
{
	static const struct {
		const char *full, *want;
	} t[] = {
		{ "ns::K::spin(std::vector<double, std::allocator<double> >&, int)", "ns::K::spin" },
		{ "ns::K::cspin(int) const", "ns::K::cspin" },
		{ "long ns::tspin<long>(long)", "ns::tspin<long>" },
		{ "(anonymous namespace)::anon(int)", "(anonymous namespace)::anon" },
		{ "std::vector<int, std::allocator<int> >::push_back(int const&)",
		  "std::vector<int, std::allocator<int> >::push_back" },
		{ "f(void (*)(int))", "f" },
		{ "ns::K::spin(int) [clone .constprop.0]", "ns::K::spin [clone .constprop.0]" },
		{ "A::operator()(int) const", "A::operator()" },
		{ "plain", "plain" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char buf[256];
		snprintf(buf, sizeof(buf), "%s", t[i].full);
		pp_demangle_simplify(buf);
		print_message("case %zu\n", i);
		assert_string_equal(buf, t[i].want);
	}
	char out[256];
	assert_int_equal(pp_demangle("main", out, sizeof(out)), -1);
#ifdef HAVE_CXA_DEMANGLE
	assert_int_equal(pp_demangle("_ZNK2ns1K5cspinEi", out, sizeof(out)), 0);
	assert_string_equal(out, "ns::K::cspin");
	assert_int_equal(pp_demangle("_ZN2ns5tspinIlEET_S1_", out, sizeof(out)), 0);
	assert_string_equal(out, "ns::tspin<long>");
	assert_int_equal(pp_demangle("_Znot-a-name", out, sizeof(out)), -1);
#endif
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(intern_dedup),
		cmocka_unit_test(profile_dedup),
		cmocka_unit_test(write_round_trip),
		cmocka_unit_test(sample_decode),
		cmocka_unit_test(procs_overlap),
		cmocka_unit_test(procs_comm),
		cmocka_unit_test(order_rounds),
		cmocka_unit_test(demangle_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
