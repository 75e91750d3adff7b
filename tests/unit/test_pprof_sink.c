/* The pprof sink's pure parts: the processes' maps (overlaps, forks,
 * execs, exits, pids 0 and -1), the build-id hook, and a window's
 * aggregate read back with protobuf-c (symbolize = none and local). */
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
#include <linux/perf_event.h>
#include "agg.h"
#include "buildid.h"
#include "pprof_recs.h"

static void mmap2(struct rec *r, int32_t pid, uint64_t start, uint64_t len, const char *path,
		  const uint8_t *bid)
{
	mmap2o(r, pid, start, len, 0, path, bid);
}

/* A COMM record: tid of pid is named name; exec: it is an exec's. */
static void comm(struct rec *r, int exec, uint32_t pid, uint32_t tid, const char *name)
{
	size_t s = r->n;
	char nm[16] = { 0 };
	hdr(r, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
	put32(r, pid);
	put32(r, tid);
	strncpy(nm, name, sizeof(nm) - 1);
	put(r, nm, sizeof(nm));
	end(r, s);
}

/* Feed every record of r to ps. */
static void feed(struct pp_procs *ps, struct rec *r)
{
	size_t off = 0;
	while (off + 8 <= r->n) {
		uint16_t size;
		memcpy(&size, r->b + off + 6, 2);
		assert_int_equal(pp_procs_record(ps, r->b + off, size), 0);
		off += size;
	}
	r->n = 0;
}

/* ---------------------------------------------------- the procs table */

/* The sink keeps its processes in the shared table (pp_procs of
 * <perfsink/pprof_symbols.h>), fed the records as agg.c feeds it. */

/* One mapping step of a table: pid maps [start, start+len) at pgoff. */
struct step { int32_t pid; uint64_t start, len, pgoff; const char *path; };
/* A query: pid's addr is in a mapping starting at start with pgoff (path),
 * or in none (path NULL). */
struct query { int32_t pid; uint64_t addr, start, pgoff; const char *path; };

static const struct {
	const char *what;
	struct step steps[4];
	struct query q[6];
} map_cases[] = {
	{ "disjoint maps, boundaries",
	  { { 7, 0x1000, 0x1000, 0, "/a" }, { 7, 0x4000, 0x1000, 0x3000, "/b" } },
	  { { 7, 0x1000, 0x1000, 0, "/a" }, { 7, 0x1fff, 0x1000, 0, "/a" }, { 7, 0x2000, 0, 0, NULL },
	    { 7, 0x4800, 0x4000, 0x3000, "/b" }, { 8, 0x1000, 0, 0, NULL } } },
	{ "a map inside another splits it, the right part's offset moves",
	  { { 7, 0x1000, 0x4000, 0, "/a" }, { 7, 0x2000, 0x1000, 0, "/b" } },
	  { { 7, 0x1800, 0x1000, 0, "/a" }, { 7, 0x2800, 0x2000, 0, "/b" },
	    { 7, 0x3000, 0x3000, 0x2000, "/a" }, { 7, 0x4fff, 0x3000, 0x2000, "/a" } } },
	{ "a map over the end of another trims it; a whole one is replaced",
	  { { 7, 0x1000, 0x2000, 0, "/a" }, { 7, 0x2000, 0x2000, 0, "/b" },
	    { 7, 0x2000, 0x2000, 0x10, "/c" } },
	  { { 7, 0x1fff, 0x1000, 0, "/a" }, { 7, 0x2000, 0x2000, 0x10, "/c" },
	    { 7, 0x3fff, 0x2000, 0x10, "/c" } } },
	{ "pid 0 and the kernel (-1) are processes like others",
	  { { 0, 0x1000, 0x1000, 0, "/zero" }, { -1, 0xffffffff81000000ull, 0x1000000,
						   0xffffffff81000000ull, "[kernel.kallsyms]_text" } },
	  { { 0, 0x1000, 0x1000, 0, "/zero" }, { -1, 0xffffffff81000010ull, 0xffffffff81000000ull,
						0xffffffff81000000ull, "[kernel.kallsyms]_text" },
	    { 1, 0x1000, 0, 0, NULL } } },
};

static void procs_table(void **state)
{
	(void)state;
	struct rec r = { .n = 0 };
	for (size_t c = 0; c < sizeof(map_cases) / sizeof(map_cases[0]); c++) {
		struct pp_procs ps;
		pp_procs_init(&ps);
		for (const struct step *s = map_cases[c].steps; s->path; s++)
			mmap2o(&r, s->pid, s->start, s->len, s->pgoff, s->path, NULL);
		feed(&ps, &r);
		for (const struct query *q = map_cases[c].q; q->addr; q++) {
			struct pp_map *e = pp_proc_find(pp_procs_get(&ps, (uint32_t)q->pid), q->addr);
			if (!q->path) {
				if (e)
					fail_msg("%s: %#lx found", map_cases[c].what, (unsigned long)q->addr);
				continue;
			}
			if (!e)
				fail_msg("%s: %#lx not found", map_cases[c].what, (unsigned long)q->addr);
			assert_int_equal(e->start, q->start);
			assert_int_equal(e->pgoff, q->pgoff);
			assert_string_equal(ps.dso[e->dso].name, q->path);
		}
		pp_procs_free(&ps);
	}
}

static void procs_fork_exec(void **state)
{
	(void)state;
	struct pp_procs ps;
	struct rec r = { .n = 0 };
	uint8_t bid[20];
	for (int i = 0; i < 20; i++)
		bid[i] = (uint8_t)i;
	pp_procs_init(&ps);
	mmap2(&r, 10, 0x1000, 0x1000, "/bin/x", bid);
	task(&r, PERF_RECORD_FORK, 11, 10, 11);   /* a child: a copy */
	task(&r, PERF_RECORD_FORK, 10, 10, 12);   /* a thread: nothing */
	feed(&ps, &r);
	struct pp_map *m = pp_proc_find(pp_procs_get(&ps, 11), 0x1800);
	assert_non_null(m);
	assert_string_equal(ps.dso[m->dso].bid, "000102030405060708090a0b0c0d0e0f10111213");
	comm(&r, 1, 10, 10, "y");   /* an exec: 10's maps are gone, 11's stay */
	feed(&ps, &r);
	assert_null(pp_proc_find(pp_procs_get(&ps, 10), 0x1800));
	assert_non_null(pp_proc_find(pp_procs_get(&ps, 11), 0x1800));
	pp_procs_free(&ps);
}

/* A process that exits is kept until the reap (records of other CPUs may
 * still name it), then forgotten: a long run's table holds the live ones. */
static void procs_exit(void **state)
{
	(void)state;
	struct pp_procs ps;
	struct rec r = { .n = 0 };
	pp_procs_init(&ps);
	mmap2(&r, 20, 0x1000, 0x1000, "/bin/live", NULL);
	comm(&r, 0, 20, 21, "worker");
	feed(&ps, &r);
	size_t base = pp_procs_bytes(&ps);
	for (uint32_t pid = 100; pid < 3100; pid++) {
		mmap2(&r, (int32_t)pid, 0x1000 * (uint64_t)pid, 0x1000, "/bin/x", NULL);
		comm(&r, 0, pid, pid + 100000, "t");
		feed(&ps, &r);
	}
	assert_true(pp_procs_bytes(&ps) > base + 3000 * sizeof(struct pp_map));
	for (uint32_t pid = 100; pid < 3100; pid++) {
		task(&r, PERF_RECORD_EXIT, pid, pid, pid + 100000);  /* its thread, then it */
		task(&r, PERF_RECORD_EXIT, pid, pid, pid);
		feed(&ps, &r);
	}
	/* Exited, not yet reaped: still found. */
	assert_non_null(pp_proc_find(pp_procs_get(&ps, 3000), 0x1000 * 3000ull + 1));
	task(&r, PERF_RECORD_EXIT, 20, 1, 21);    /* a thread of 20: 20 lives on */
	feed(&ps, &r);
	assert_int_equal(ps.nexited, 3000);
	assert_int_equal(pp_procs_reap(&ps), 0);
	assert_int_equal(ps.nexited, 0);
	assert_int_equal(ps.pids.n, 1);          /* 20 only */
	assert_int_equal(ps.tids.n, 0);
	assert_true(pp_procs_bytes(&ps) < base + 3000 * sizeof(struct pp_map));
	assert_non_null(pp_proc_find(pp_procs_get(&ps, 20), 0x1800));
	assert_null(pp_proc_find(pp_procs_get(&ps, 3000), 0x1000 * 3000ull + 1));
	/* A pid exits, then is forked again before the reap: the new one stays. */
	mmap2(&r, 20, 0x1000, 0x1000, "/bin/live", NULL);
	task(&r, PERF_RECORD_EXIT, 30, 30, 30);
	feed(&ps, &r);
	pp_procs_get(&ps, 30);
	task(&r, PERF_RECORD_EXIT, 30, 30, 30);
	task(&r, PERF_RECORD_FORK, 30, 20, 30);
	feed(&ps, &r);
	assert_int_equal(pp_procs_reap(&ps), 0);
	assert_non_null(pp_proc_find(pp_procs_get(&ps, 30), 0x1800));
	assert_int_equal(pp_procs_reap(&ps), 0);  /* nothing to do */
	pp_procs_free(&ps);
}

/* The sink's build-id hook: an ELF file's note, nothing for a name that is
 * not a path or for the kernel, a path read once. */
static void buildid_hook(void **state)
{
	(void)state;
	struct bid_cache c;
	char sh[4096];
	bid_cache_init(&c);
	assert_null(bid_cache_get(&c, "[vdso]", 0));
	assert_null(bid_cache_get(&c, "/bin/x", 1));
	assert_null(bid_cache_get(&c, "/nonexistent/file", 0));
	assert_non_null(realpath("/bin/sh", sh));
	const char *h = bid_cache_get(&c, sh, 0);
	assert_non_null(h);
	assert_int_equal(strlen(h), 40);
	assert_ptr_equal(bid_cache_get(&c, sh, 0), h);
	assert_int_equal(c.paths.n, 2);
	bid_cache_free(&c);
}

/* ---------------------------------------------------------------- agg */

static void agg_window(void **state)
{
	(void)state;
	struct agg a;
	struct rec h, b = { .n = 0 };
	uint8_t bid[20];
	memset(bid, 0xab, sizeof(bid));
	assert_int_equal(agg_init(&a, 64 << 20, 0, "/nonexistent"), 0);
	size_t hn = pipe_header(&h);
	assert_int_equal(agg_attrs(&a, h.b, hn, "cpu-clock"), 0);
	assert_true(a.clock);
	mmap2(&b, 42, 0x400000, 0x1000, "/bin/w", bid);
	mmap2(&b, -1, 0xffffffff81000000ull, 0x100000, "[kernel.kallsyms]_text", NULL);
	const uint64_t user[] = { (uint64_t)PERF_CONTEXT_USER, 0x400010, 0x400020 };
	const uint64_t both[] = { (uint64_t)PERF_CONTEXT_KERNEL, 0xffffffff81000100ull,
				  (uint64_t)PERF_CONTEXT_USER, 0x400020 };
	const uint64_t lost[] = { (uint64_t)PERF_CONTEXT_USER, 0x900000 };
	sample(&b, 42, PERF_RECORD_MISC_USER, user, 3);
	sample(&b, 42, PERF_RECORD_MISC_USER, user, 3);
	agg_buffer(&a, b.b, b.n);
	b.n = 0;   /* a second buffer: the same window */
	sample(&b, 42, PERF_RECORD_MISC_KERNEL, both, 4);
	sample(&b, 42, PERF_RECORD_MISC_USER, lost, 2);
	agg_buffer(&a, b.b, b.n);
	assert_int_equal(a.win_samples, 4);
	uint8_t *out;
	size_t n;
	assert_int_equal(agg_window_end(&a, 5000000000ll, 6000000000ll, &out, &n), 0);
	assert_non_null(out);
	Perftools__Profiles__Profile *pr = unpack(out, n);
	assert_non_null(pr);
	assert_int_equal(pr->time_nanos, 5000000000ll);
	assert_int_equal(pr->duration_nanos, 1000000000ll);
	assert_int_equal(pr->n_sample_type, 2);
	assert_string_equal(pr->string_table[pr->sample_type[1]->type], "cpu");
	assert_int_equal(pr->n_sample, 3);    /* two stacks the same */
	int64_t total = 0;
	for (size_t i = 0; i < pr->n_sample; i++)
		total += pr->sample[i]->value[0];
	assert_int_equal(total, 4);
	assert_int_equal(pr->sample[0]->n_location_id, 2);
	assert_int_equal(pr->sample[1]->n_location_id, 2);   /* kernel frame, then user */
	assert_int_equal(pr->n_mapping, 2);
	int seen_bid = 0;
	for (size_t i = 0; i < pr->n_mapping; i++) {
		assert_false(pr->mapping[i]->has_functions);   /* left to the backend */
		if (!strcmp(pr->string_table[pr->mapping[i]->filename], "/bin/w"))
			seen_bid = !strcmp(pr->string_table[pr->mapping[i]->build_id],
					   "abababababababababababababababababababab");
	}
	assert_true(seen_bid);
	/* The address no map holds is a location of no mapping, never dropped. */
	int unmapped = 0;
	for (size_t i = 0; i < pr->n_location; i++)
		unmapped += pr->location[i]->mapping_id == 0 && pr->location[i]->address == 0x900000;
	assert_int_equal(unmapped, 1);
	perftools__profiles__profile__free_unpacked(pr, NULL);
	free(out);
	/* The next window starts empty: nothing to ship. */
	assert_int_equal(agg_window_end(&a, 6000000000ll, 7000000000ll, &out, &n), 0);
	assert_null(out);
	assert_int_equal(a.samples, 4);
	agg_free(&a);
}

static void agg_budget(void **state)
{
	(void)state;
	struct agg a;
	struct rec h, b = { .n = 0 };
	assert_int_equal(agg_init(&a, 1, 0, "/nonexistent"), 0);   /* no memory at all: every sample dropped, counted */
	assert_int_equal(agg_attrs(&a, h.b, pipe_header(&h), "page-faults"), 0);
	assert_false(a.clock);
	const uint64_t user[] = { (uint64_t)PERF_CONTEXT_USER, 0x400010 };
	for (int i = 0; i < 3; i++)
		sample(&b, 1, PERF_RECORD_MISC_USER, user, 2);
	agg_buffer(&a, b.b, b.n);
	assert_int_equal(a.win_samples, 0);
	assert_int_equal(a.win_dropped, 3);
	uint8_t *out;
	size_t n;
	assert_int_equal(agg_window_end(&a, 0, 1, &out, &n), 0);
	assert_null(out);
	assert_int_equal(a.dropped, 3);
	/* A header without HEADER_ATTR is refused. */
	assert_int_equal(agg_attrs(&a, h.b, 16, "x"), -EINVAL);
	agg_free(&a);
}

/* A process that exits is still found by the samples after its EXIT in
 * the same window (other CPUs' records come later), and is forgotten at
 * the window's end. */
static void agg_exit(void **state)
{
	(void)state;
	struct agg a;
	struct rec h, b = { .n = 0 };
	uint32_t pid = 42;
	assert_int_equal(agg_init(&a, 64 << 20, 0, "/nonexistent"), 0);
	assert_int_equal(agg_attrs(&a, h.b, pipe_header(&h), "cpu-clock"), 0);
	mmap2(&b, 42, 0x400000, 0x1000, "/bin/w", NULL);
	task(&b, PERF_RECORD_EXIT, 42, 1, 42);
	const uint64_t user[] = { (uint64_t)PERF_CONTEXT_USER, 0x400010 };
	sample(&b, 42, PERF_RECORD_MISC_USER, user, 2);
	agg_buffer(&a, b.b, b.n);
	uint8_t *out;
	size_t n;
	assert_int_equal(agg_window_end(&a, 0, 1, &out, &n), 0);
	Perftools__Profiles__Profile *pr = unpack(out, n);
	assert_non_null(pr);
	assert_int_equal(pr->n_location, 1);
	assert_int_not_equal(pr->location[0]->mapping_id, 0);   /* in /bin/w's mapping */
	perftools__profiles__profile__free_unpacked(pr, NULL);
	free(out);
	assert_true(pp_intern_find(&a.procs.pids, &pid, sizeof(pid)) < 0);
	agg_free(&a);
}

/* A function of this program, named by symbolize = local. */
__attribute__((noinline, used)) void l29_named_fn(void);
void l29_named_fn(void) { __asm__ volatile("" ::: "memory"); }

/* symbolize = local: a location of a mapped file gets its function's
 * name; an address nothing maps is "[unknown]", not dropped. */
static void agg_local(void **state)
{
	(void)state;
	struct agg a;
	struct rec h, b = { .n = 0 };
	uint64_t fn = (uint64_t)(uintptr_t)l29_named_fn, start = 0, len = 0, pgoff = 0;
	char path[4096];
	own_map(fn, &start, &len, &pgoff, path);
	assert_int_equal(agg_init(&a, 64 << 20, 1, "/nonexistent"), 0);
	assert_int_equal(agg_attrs(&a, h.b, pipe_header(&h), "cpu-clock"), 0);
	mmap2o(&b, 42, start, len, pgoff, path, NULL);
	const uint64_t chain[] = { (uint64_t)PERF_CONTEXT_USER, fn, 0x900000 };
	sample(&b, 42, PERF_RECORD_MISC_USER, chain, 3);
	agg_buffer(&a, b.b, b.n);
	uint8_t *out;
	size_t n;
	assert_int_equal(agg_window_end(&a, 0, 1, &out, &n), 0);
	assert_non_null(out);
	Perftools__Profiles__Profile *pr = unpack(out, n);
	assert_non_null(pr);
	assert_int_equal(pr->n_location, 2);
	int named = 0, unknown = 0;
	for (size_t i = 0; i < pr->n_location; i++) {
		assert_int_equal(pr->location[i]->n_line, 1);
		uint64_t fid = pr->location[i]->line[0]->function_id;
		const char *name = pr->string_table[pr->function[fid - 1]->name];
		named += !strcmp(name, "l29_named_fn");
		unknown += !strcmp(name, "[unknown]");
	}
	assert_int_equal(named, 1);
	assert_int_equal(unknown, 1);
	perftools__profiles__profile__free_unpacked(pr, NULL);
	free(out);
	agg_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(procs_table),
		cmocka_unit_test(procs_fork_exec),
		cmocka_unit_test(procs_exit),
		cmocka_unit_test(buildid_hook),
		cmocka_unit_test(agg_window),
		cmocka_unit_test(agg_budget),
		cmocka_unit_test(agg_exit),
		cmocka_unit_test(agg_local),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
