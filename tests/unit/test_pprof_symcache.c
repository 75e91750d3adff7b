/* The pprof sink's bounds on its caches.  The files' symbols
 * (symbol_cache_max): small shared objects built here, each with its own
 * function, sampled through a window's aggregate; past the bound the
 * least recently used files' symbols go at the window's end, never within
 * it, and a file sampled again is read again with the same names.  The
 * processes' unwinders (unwind_max): the least recently used go, and an
 * exited process's is not counted as held after the reap. */
#include <dlfcn.h>
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
#include "agg.h"
#include "pprof_recs.h"

#define NLIB 4

/* One built file: where it is mapped here and its function's address. */
struct lib {
	char path[4096];
	void *dl;
	uint64_t fn, start, len, pgoff;
};

static char dir[] = "/tmp/symcap.XXXXXX";
static struct lib libs[NLIB];

/* Build dir/libscI.so holding symcap_fn_I, and map it here (dlopen). */
static void build(unsigned i)
{
	char cmd[8192], name[32];
	const char *cc = TEST_CC;   /* the compiler this tree was built with */
	struct lib *l = &libs[i];
	snprintf(l->path, sizeof(l->path), "%s/libsc%u.so", dir, i);
	snprintf(cmd, sizeof(cmd), "echo 'int symcap_fn_%u(int x) { return x * %u + 1; }' | "
		 "%s -shared -fPIC -O1 -x c - -o %s", i, i + 2, cc, l->path);
	assert_int_equal(system(cmd), 0);
	assert_non_null(l->dl = dlopen(l->path, RTLD_NOW | RTLD_LOCAL));
	snprintf(name, sizeof(name), "symcap_fn_%u", i);
	void *fn = dlsym(l->dl, name);
	assert_non_null(fn);
	l->fn = (uint64_t)(uintptr_t)fn;
	char path[4096];
	own_map(l->fn, &l->start, &l->len, &l->pgoff, path);
	assert_string_equal(path, l->path);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	for (unsigned i = 0; i < NLIB; i++)
		build(i);
	return 0;
}

static int teardown(void **state)
{
	char cmd[64];
	(void)state;
	for (unsigned i = 0; i < NLIB; i++)
		if (libs[i].dl)
			dlclose(libs[i].dl);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* The DSO of lib i in a's table. */
static struct pp_dso *dso_of(struct agg *a, unsigned i)
{
	for (uint32_t k = 0; k < a->procs.dso_keys.n; k++)
		if (!strcmp(a->procs.dso[k].name, libs[i].path))
			return &a->procs.dso[k];
	fail_msg("%s not in the table", libs[i].path);
	return NULL;
}

/* A window sampling libs order[0..n) once each, in that order, in
 * process 42 that maps them all. */
static void sample_libs(struct agg *a, const unsigned *order, unsigned n)
{
	struct rec b = { .n = 0 };
	for (unsigned i = 0; i < NLIB; i++) {
		mmap2o(&b, 42, libs[i].start, libs[i].len, libs[i].pgoff, libs[i].path, NULL);
		agg_buffer(a, b.b, b.n);
		b.n = 0;
	}
	for (unsigned i = 0; i < n; i++) {
		const uint64_t chain[] = { (uint64_t)PERF_CONTEXT_USER, libs[order[i]].fn };
		sample(&b, 42, PERF_RECORD_MISC_USER, chain, 2);
		agg_buffer(a, b.b, b.n);
		b.n = 0;
	}
}

/* End the window; whether its profile names lib i's function. */
static int window_names(struct agg *a, unsigned i)
{
	uint8_t *out;
	size_t n;
	char want[32];
	int seen = 0;
	assert_int_equal(agg_window_end(a, 0, 1, &out, &n), 0);
	assert_non_null(out);
	Perftools__Profiles__Profile *pr = unpack(out, n);
	assert_non_null(pr);
	snprintf(want, sizeof(want), "symcap_fn_%u", i);
	for (size_t k = 0; k < pr->n_location; k++) {
		uint64_t fid = pr->location[k]->line[0]->function_id;
		seen |= !strcmp(pr->string_table[pr->function[fid - 1]->name], want);
	}
	perftools__profiles__profile__free_unpacked(pr, NULL);
	free(out);
	return seen;
}

static void stats(struct agg *a, struct pp_symbols_stats *st)
{
	pp_symbols_stats(a->sy, st);
}

/* Past the bound the least recently used go, at the window's end only;
 * a file sampled again is read again and named as before. */
static void lru_at_window_end(void **state)
{
	(void)state;
	struct agg a;
	struct rec h;
	struct pp_symbols_stats st;
	assert_int_equal(agg_init(&a, 64 << 20, 1, "/nonexistent"), 0);
	assert_int_equal(agg_attrs(&a, h.b, pipe_header(&h), "cpu-clock"), 0);
	/* Window 1: 0, 1, 2 (0 the least recently used). */
	const unsigned w1[] = { 0, 1, 2 };
	sample_libs(&a, w1, 3);
	stats(&a, &st);
	assert_int_equal(st.files, 3);
	assert_int_equal(st.reads, 3);
	size_t b1 = dso_of(&a, 1)->sym_bytes, b2 = dso_of(&a, 2)->sym_bytes;
	assert_true(b1 > 0 && b2 > 0);
	assert_int_equal(st.bytes, dso_of(&a, 0)->sym_bytes + b1 + b2);
	/* Room for two: the bound is not applied within the window ... */
	a.symbol_cache_max = b1 + b2;
	const unsigned again[] = { 2 };
	sample_libs(&a, again, 1);
	assert_non_null(dso_of(&a, 0)->sym);
	/* ... but at its end: 0 goes, the names stay in the window. */
	assert_true(window_names(&a, 0));
	stats(&a, &st);
	assert_null(dso_of(&a, 0)->sym);
	assert_non_null(dso_of(&a, 1)->sym);
	assert_non_null(dso_of(&a, 2)->sym);
	assert_int_equal(st.files, 2);
	assert_int_equal(st.evictions, 1);
	assert_int_equal(st.bytes, b1 + b2);
	/* Window 2: 0 again (read again, named the same), then 3; 1 and 2
	 * are the oldest uses now, 1 first. */
	const unsigned w2[] = { 0, 3 };
	sample_libs(&a, w2, 2);
	stats(&a, &st);
	assert_int_equal(st.reads, 5);
	a.symbol_cache_max = dso_of(&a, 0)->sym_bytes + dso_of(&a, 3)->sym_bytes + b2;
	assert_true(window_names(&a, 0));
	stats(&a, &st);
	assert_null(dso_of(&a, 1)->sym);
	assert_non_null(dso_of(&a, 2)->sym);
	assert_non_null(dso_of(&a, 0)->sym);
	assert_non_null(dso_of(&a, 3)->sym);
	assert_int_equal(st.evictions, 2);
	/* A bound of 0 keeps nothing past a window; each file read again. */
	a.symbol_cache_max = 0;
	const unsigned w3[] = { 1, 2 };
	sample_libs(&a, w3, 2);
	assert_true(window_names(&a, 1));
	stats(&a, &st);
	assert_int_equal(st.files, 0);
	assert_int_equal(st.bytes, 0);
	assert_int_equal(st.reads, 6);   /* 1 read again; 2 was held */
	assert_int_equal(st.evictions, 6);
	agg_free(&a);
}

/* The default bound is none (agg_init); a file that cannot be read costs
 * nothing and is not counted. */
static void unbounded_and_missing(void **state)
{
	(void)state;
	struct agg a;
	struct rec h, b = { .n = 0 };
	struct pp_symbols_stats st;
	assert_int_equal(agg_init(&a, 64 << 20, 1, "/nonexistent"), 0);
	assert_int_equal(a.symbol_cache_max, UINT64_MAX);
	assert_int_equal(agg_attrs(&a, h.b, pipe_header(&h), "cpu-clock"), 0);
	const unsigned all[] = { 0, 1, 2, 3 };
	sample_libs(&a, all, NLIB);
	mmap2o(&b, 42, 0x10000, 0x1000, 0, "/nonexistent/gone.so", NULL);
	const uint64_t chain[] = { (uint64_t)PERF_CONTEXT_USER, 0x10010 };
	sample(&b, 42, PERF_RECORD_MISC_USER, chain, 2);
	agg_buffer(&a, b.b, b.n);
	assert_true(window_names(&a, 3));
	stats(&a, &st);
	assert_int_equal(st.files, NLIB);
	assert_int_equal(st.reads, NLIB);
	assert_int_equal(st.evictions, 0);
	agg_free(&a);
}

static unsigned freed;
static void count_free(void *u)
{
	freed++;
	free(u);
}

/* Processes 1..5 each with an unwinder, used in the order of when[]. */
static void unwinders_lru(void **state)
{
	(void)state;
	struct pp_procs ps;
	struct rec b = { .n = 0 };
	static const uint64_t when[] = { 0, 40, 10, 50, 20, 30 };   /* by pid; 0 unused */
	pp_procs_init(&ps);
	ps.free_unwind = count_free;
	for (uint32_t pid = 1; pid <= 5; pid++) {
		struct pp_proc *p = pp_procs_get(&ps, pid);
		assert_non_null(p);
		p->unwind = malloc(1);
		p->unwind_used = when[pid];
		ps.unwinders.held++;
	}
	assert_int_equal(pp_procs_trim_unwinders(&ps, 5), 0);
	assert_int_equal(pp_procs_trim_unwinders(&ps, 3), 2);   /* 2 (10), then 4 (20) */
	for (uint32_t pid = 1; pid <= 5; pid++) {
		struct pp_proc *p = pp_procs_get(&ps, pid);
		if (pid == 2 || pid == 4)
			assert_null(p->unwind);
		else
			assert_non_null(p->unwind);
	}
	assert_int_equal(ps.unwinders.held, 3);
	assert_int_equal(ps.unwinders.evictions, 2);
	assert_int_equal(freed, 2);
	/* Process 1 exits: its unwinder goes with it at the reap, not evicted. */
	task(&b, PERF_RECORD_EXIT, 1, 0, 1);
	assert_int_equal(pp_procs_record(&ps, b.b, (uint16_t)b.n), 0);
	assert_int_equal(pp_procs_reap(&ps), 0);
	assert_int_equal(ps.unwinders.held, 2);
	assert_int_equal(ps.unwinders.evictions, 2);
	assert_int_equal(pp_procs_trim_unwinders(&ps, 0), 2);
	assert_int_equal(ps.unwinders.held, 0);
	assert_int_equal(freed, 5);
	pp_procs_free(&ps);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lru_at_window_end),
		cmocka_unit_test(unbounded_and_missing),
		cmocka_unit_test(unwinders_lru),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
