/* perfsink flamegraph's pure parts (src/flame) and the sample filters it
 * shares with perfsink pprof (pprof/pp_filter.c): tables of names that must
 * stay text in XML and JavaScript, of good and bad filter values, of frame
 * kinds; the tree, its layout and a page from a small profile. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "flame/flame.h"
#include "flame/flame_escape.h"
#include "flame/flame_layout.h"
#include "flame/flame_model.h"
#include "flame/flame_tree.h"
#include "pprof/pp_filter.h"
#include "pprof/pp_profile.h"

/* Hostile names, as a binary's symbol table may hold them. */
static const struct {
	const char *in, *xml, *js;
} esc[] = {
	{ "main", "main", "\"main\"" },
	{ "<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;",
	  "\"\\u003cscript\\u003ealert(1)\\u003c/script\\u003e\"" },
	{ "a&b", "a&amp;b", "\"a\\u0026b\"" },
	{ "say \"hi\" 'x'", "say &quot;hi&quot; &#39;x&#39;", "\"say \\\"hi\\\" 'x'\"" },
	{ "]]>", "]]&gt;", "\"]]\\u003e\"" },
	{ "back\\slash", "back\\slash", "\"back\\\\slash\"" },
	{ "ctl\x01\x1f", "ctl\xef\xbf\xbd\xef\xbf\xbd", "\"ctl\\u0001\\u001f\"" },
	{ "tab\tnl\n", "tab\tnl\xef\xbf\xbd", "\"tab\\u0009nl\\u000a\"" },
	{ "bad\xff", "bad\xef\xbf\xbd", "\"bad\xef\xbf\xbd\"" },
	{ "overlong\xc0\xaf", "overlong\xef\xbf\xbd", "\"overlong\xef\xbf\xbd\"" },
	{ "cut\xe2\x82", "cut\xef\xbf\xbd", "\"cut\xef\xbf\xbd\"" },
	{ "surrogate\xed\xa0\x80", "surrogate\xef\xbf\xbd", "\"surrogate\xef\xbf\xbd\"" },
	{ "ls\xe2\x80\xa8ps\xe2\x80\xa9", "ls\xe2\x80\xa8ps\xe2\x80\xa9", "\"ls\\u2028ps\\u2029\"" },
	{ "caf\xc3\xa9 \xf0\x9f\x94\xa5", "caf\xc3\xa9 \xf0\x9f\x94\xa5", "\"caf\xc3\xa9 \xf0\x9f\x94\xa5\"" },
	{ "std::vector<int>::at", "std::vector&lt;int&gt;::at", "\"std::vector\\u003cint\\u003e::at\"" },
	{ "", "", "\"\"" },
};

static void escape_table(void **state)
{
	for (size_t i = 0; i < sizeof(esc) / sizeof(esc[0]); i++) {
		struct bytes b;
		bytes_init(&b);
		flame_xml(&b, esc[i].in);
		bytes_add(&b, "", 1);
		assert_string_equal((char *)b.p, esc[i].xml);
		b.len = 0;
		flame_js(&b, esc[i].in);
		bytes_add(&b, "", 1);
		assert_string_equal((char *)b.p, esc[i].js);
		assert_int_equal(b.err, 0);
		bytes_free(&b);
	}
	(void)state;
}

static void filter_table(void **state)
{
	static const char *const good_pids[] = { "1", "1,2,3", "2147483647" };
	static const char *const bad_pids[] = { "", "x", "1,", ",1", "1,,2", "-1", "2147483648", "1x" };
	static const char *const good_comms[] = { "workload", "a,b", "a-very-long-thread-name" };
	static const char *const bad_comms[] = { "", "a,", ",a", "a,,b" };
	static const char *const good_times[] = { "1,2", "1.5,", ",2.25", "0.000001,3", "100.123456789,200" };
	static const char *const bad_times[] = { "", ",", "1", "2,1", "a,2", "1,b", "1,2,3", ".,2", "1,2x" };
	for (size_t i = 0; i < sizeof(good_pids) / sizeof(*good_pids); i++) {
		struct pp_filter f = { .npid = 0 };
		assert_int_equal(pp_filter_pids(&f, good_pids[i]), 0);
	}
	for (size_t i = 0; i < sizeof(bad_pids) / sizeof(*bad_pids); i++) {
		struct pp_filter f = { .npid = 0 };
		assert_int_equal(pp_filter_pids(&f, bad_pids[i]), -EINVAL);
	}
	for (size_t i = 0; i < sizeof(good_comms) / sizeof(*good_comms); i++) {
		struct pp_filter f = { .npid = 0 };
		assert_int_equal(pp_filter_comms(&f, good_comms[i]), 0);
	}
	for (size_t i = 0; i < sizeof(bad_comms) / sizeof(*bad_comms); i++) {
		struct pp_filter f = { .npid = 0 };
		assert_int_equal(pp_filter_comms(&f, bad_comms[i]), -EINVAL);
	}
	for (size_t i = 0; i < sizeof(good_times) / sizeof(*good_times); i++) {
		struct pp_filter f = { .npid = 0 };
		assert_int_equal(pp_filter_time(&f, good_times[i]), 0);
	}
	for (size_t i = 0; i < sizeof(bad_times) / sizeof(*bad_times); i++) {
		struct pp_filter f = { .npid = 0 };
		assert_int_equal(pp_filter_time(&f, bad_times[i]), -EINVAL);
	}
	(void)state;
}

static void filter_match(void **state)
{
	struct pp_filter f = { .npid = 0 };
	assert_false(pp_filter_any(&f));
	assert_true(pp_filter_match(&f, 7, NULL, 0));
	assert_int_equal(pp_filter_pids(&f, "7,9"), 0);
	assert_int_equal(pp_filter_comms(&f, "a-very-long-thread-name"), 0);
	assert_int_equal(pp_filter_time(&f, "1.5,2"), 0);
	assert_true(pp_filter_any(&f));
	/* The kernel keeps 15 bytes of a name. */
	assert_true(pp_filter_match(&f, 9, "a-very-long-thr", 1500000000));
	assert_true(pp_filter_match(&f, 7, "a-very-long-thr", 2000000000));
	assert_false(pp_filter_match(&f, 8, "a-very-long-thr", 1500000000));
	assert_false(pp_filter_match(&f, 7, "other", 1500000000));
	assert_false(pp_filter_match(&f, 7, NULL, 1500000000));
	assert_false(pp_filter_match(&f, 7, "a-very-long-thr", 1499999999));
	assert_false(pp_filter_match(&f, 7, "a-very-long-thr", 2000000001));
	assert_false(pp_filter_match(&f, 7, "a-very-long-thr", 0));  /* no time recorded */
	struct pp_filter open = { .npid = 0 };
	assert_int_equal(pp_filter_time(&open, "3,"), 0);
	assert_true(pp_filter_match(&open, 1, NULL, UINT64_MAX));
	assert_false(pp_filter_match(&open, 1, NULL, 2999999999));
	struct pp_filter many = { .npid = 0 };
	for (int i = 0; i < PP_FILTER_MAX; i++)
		assert_int_equal(pp_filter_pids(&many, "1"), 0);
	assert_int_equal(pp_filter_pids(&many, "1"), -E2BIG);
	(void)state;
}

static void kind_table(void **state)
{
	static const struct {
		const char *file, *name;
		enum flame_kind k;
	} t[] = {
		{ "[kernel.kallsyms]", "schedule", FLAME_KERNEL },
		{ "[kernel.kallsyms]", "[unknown]", FLAME_KERNEL },
		{ "//anon", "[unknown]", FLAME_JIT },
		{ "/usr/bin/x", "main", FLAME_USER },
		{ "/usr/bin/x", "[unknown]", FLAME_UNKNOWN },
		{ NULL, "main", FLAME_USER },
		{ NULL, "", FLAME_UNKNOWN },
		{ "//anon", "Interpreter", FLAME_JIT },
		{ "[anon:v8]", "f", FLAME_JIT },
		{ "/memfd:jit (deleted)", "f", FLAME_JIT },
		{ "/tmp/perf-42.map", "LazyCompile:f", FLAME_JIT },
		{ "/root/.debug/jit/java-jit-1/jitted-42-7.so", "java.lang.String::hashCode", FLAME_JIT },
		{ "/tmp/perf-data.bin", "f", FLAME_USER },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(*t); i++)
		assert_int_equal(flame_kind_of(t[i].file, t[i].name), t[i].k);
	(void)state;
}

/* Stacks a;b;c x3, a;b x1, a;d x2, e x4: the tree and its layout. */
static void tree_layout(void **state)
{
	struct flame_tree t;
	struct flame_layout l;
	const struct flame_frame abc[] = { { "a", 0 }, { "b", 0 }, { "c", 1 } }, ad[] = { { "a", 0 }, { "d", 0 } },
				 e[] = { { "e", 2 } };
	assert_int_equal(flame_tree_init(&t), 0);
	assert_int_equal(flame_tree_add(&t, abc, 3, 3), 0);
	assert_int_equal(flame_tree_add(&t, abc, 2, 1), 0);
	assert_int_equal(flame_tree_add(&t, e, 1, 4), 0);
	assert_int_equal(flame_tree_add(&t, ad, 2, 2), 0);
	assert_int_equal(t.len, 6);
	assert_int_equal(t.max_depth, 3);
	assert_int_equal(t.n[0].value, 10);
	assert_int_equal(flame_layout(&t, &l), 0);
	static const struct {
		const char *name;
		uint32_t depth;
		uint64_t x, w;
	} want[] = { { "all", 0, 0, 10 }, { "a", 1, 0, 6 }, { "b", 2, 0, 4 }, { "c", 3, 0, 3 },
		     { "d", 2, 4, 2 }, { "e", 1, 6, 4 } };
	assert_int_equal(l.n, 6);
	for (uint32_t i = 0; i < l.n; i++) {
		assert_string_equal(t.n[l.b[i].node].name, want[i].name);
		assert_int_equal(l.b[i].depth, want[i].depth);
		assert_int_equal(l.b[i].x, want[i].x);
		assert_int_equal(t.n[l.b[i].node].value, want[i].w);
	}
	flame_layout_free(&l);
	flame_tree_free(&t);
	(void)state;
}

/* Many siblings: the child table grows and every stack still merges. */
static void tree_grows(void **state)
{
	struct flame_tree t;
	char names[5000][8];
	assert_int_equal(flame_tree_init(&t), 0);
	for (int r = 0; r < 2; r++)
		for (int i = 0; i < 5000; i++) {
			snprintf(names[i], sizeof(names[i]), "f%d", i);
			struct flame_frame f[2] = { { "main", 0 }, { names[i], 0 } };
			assert_int_equal(flame_tree_add(&t, f, 2, 1), 0);
		}
	assert_int_equal(t.len, 5002);
	assert_int_equal(t.n[0].value, 10000);
	flame_tree_free(&t);
	(void)state;
}

/* A profile of two samples: <script>&"x" inlined into main in /bin/x (2000
 * ns), and schedule in the kernel called from there (1000 ns). */
static void small_profile(struct pp_profile *p)
{
	assert_int_equal(pp_profile_init(p), 0);
	assert_int_equal(pp_value_type(p, "samples", "count"), 0);
	assert_int_equal(pp_value_type(p, "cpu", "nanoseconds"), 1);
	int64_t mu = pp_mapping(p, 0x1000, 0x2000, 0, "/bin/x", "");
	int64_t mk = pp_mapping(p, 0xffff0000, UINT64_MAX, 0, "[kernel.kallsyms]", "");
	int64_t fmain = pp_function(p, "main", "main", NULL);
	int64_t fhost = pp_function(p, "<script>&\"x\"", "x", NULL);
	int64_t fsched = pp_function(p, "schedule", "schedule", NULL);
	struct pp_line inl[2] = { { (uint64_t)fhost, 0 }, { (uint64_t)fmain, 0 } }, ks = { (uint64_t)fsched, 0 };
	uint64_t l1 = (uint64_t)pp_location_add(p, (uint64_t)mu, 0x1100, inl, 2);
	uint64_t l2 = (uint64_t)pp_location_add(p, (uint64_t)mk, 0xffff1000, &ks, 1);
	uint64_t s1[1] = { l1 }, s2[2] = { l2, l1 };
	int64_t v1[2] = { 2, 2000 }, v2[2] = { 1, 1000 };
	assert_int_equal(pp_sample_add(p, s1, 1, NULL, 0, v1), 0);
	assert_int_equal(pp_sample_add(p, s2, 2, NULL, 0, v2), 0);
}

static void model_tree(void **state)
{
	struct pp_profile p;
	struct flame_tree t;
	small_profile(&p);
	assert_int_equal(flame_tree_init(&t), 0);
	assert_int_equal(flame_from_profile(&p, 1, 0, &t), 0);
	/* all -> main -> <script>... -> schedule (kernel). */
	assert_int_equal(t.len, 4);
	assert_int_equal(t.n[0].value, 3000);
	assert_string_equal(t.n[1].name, "main");
	assert_string_equal(t.n[2].name, "<script>&\"x\"");
	assert_int_equal(t.n[2].value, 3000);
	assert_string_equal(t.n[3].name, "schedule");
	assert_int_equal(t.n[3].kind, FLAME_KERNEL);
	assert_int_equal(t.n[3].value, 1000);
	flame_tree_free(&t);
	/* Reversed: the leaves at the root. */
	assert_int_equal(flame_tree_init(&t), 0);
	assert_int_equal(flame_from_profile(&p, 1, 1, &t), 0);
	assert_int_equal(t.len, 6);
	assert_string_equal(t.n[1].name, "<script>&\"x\"");
	assert_int_equal(t.n[1].value, 2000);
	assert_string_equal(t.n[3].name, "schedule");
	assert_int_equal(flame_from_profile(&p, 2, 0, &t), -EINVAL);
	flame_tree_free(&t);
	pp_profile_free(&p);
	(void)state;
}

/* The page: the hostile name only ever escaped; one real </script>. */
static void page(void **state)
{
	for (int svg = 0; svg < 2; svg++) {
		struct pp_profile p;
		struct flame_stats st;
		struct flame_opts o = { .svg = svg, .host = "h<o>st&", .event = "cpu-clock", .samples = 3,
					.t0 = 1500000000, .t1 = 2750000000 };
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		small_profile(&p);
		assert_int_equal(flame_write(&p, &o, f, &st), 0);
		fclose(f);
		assert_int_equal(st.frames, 3);
		assert_int_equal(st.depth, 3);
		assert_int_equal(st.total, 3000);
		assert_string_equal(st.unit, "nanoseconds");
		assert_null(strstr(buf, "<script>&"));
		assert_non_null(strstr(buf, "\"\\u003cscript\\u003e\\u0026\\\"x\\\"\""));
		assert_non_null(strstr(buf, "host h&lt;o&gt;st&amp;"));
		assert_non_null(strstr(buf, "time 1.500000 \xe2\x80\x93 2.750000 s (1.250 s)"));
		assert_non_null(strstr(buf, "data-frames=\"3\""));
		const char *end = strstr(buf, "</script>");
		assert_non_null(end);
		assert_null(strstr(end + 1, "</script>"));
		if (svg)
			assert_int_equal(strncmp(buf, "<?xml", 5), 0);
		else
			assert_int_equal(strncmp(buf, "<!DOCTYPE html>", 15), 0);
		free(buf);
		pp_profile_free(&p);
	}
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(escape_table), cmocka_unit_test(filter_table), cmocka_unit_test(filter_match),
		cmocka_unit_test(kind_table),   cmocka_unit_test(tree_layout),  cmocka_unit_test(tree_grows),
		cmocka_unit_test(model_tree),   cmocka_unit_test(page),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
