/* The pprof sink's pure parts: the processes' maps (overlaps, forks,
 * execs, pids 0 and -1) and a window's aggregate read back with protobuf-c. */
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
#include <linux/perf_event.h>
#include "agg.h"
#include "maps.h"
#include "profile.pb-c.h"

/* One mapping step of a table: pid maps [start, start + len) at pgoff. */
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

static void maps_table(void **state)
{
	(void)state;
	for (size_t c = 0; c < sizeof(map_cases) / sizeof(map_cases[0]); c++) {
		struct maps m;
		maps_init(&m);
		for (const struct step *s = map_cases[c].steps; s->path; s++)
			assert_int_equal(maps_mmap(&m, s->pid, s->start, s->len, s->pgoff, s->path, NULL, 0), 0);
		for (const struct query *q = map_cases[c].q; q->addr; q++) {
			struct map_ent *e = maps_find(&m, q->pid, q->addr);
			if (!q->path) {
				if (e)
					fail_msg("%s: %#lx found", map_cases[c].what, (unsigned long)q->addr);
				continue;
			}
			if (!e)
				fail_msg("%s: %#lx not found", map_cases[c].what, (unsigned long)q->addr);
			assert_int_equal(e->start, q->start);
			assert_int_equal(e->pgoff, q->pgoff);
			assert_string_equal(maps_file(&m, e->file)->path, q->path);
		}
		maps_free(&m);
	}
}

static void maps_fork_exec(void **state)
{
	(void)state;
	struct maps m;
	maps_init(&m);
	uint8_t bid[20];
	for (int i = 0; i < 20; i++)
		bid[i] = (uint8_t)i;
	assert_int_equal(maps_mmap(&m, 10, 0x1000, 0x1000, 0, "/bin/x", bid, 20), 0);
	assert_int_equal(maps_fork(&m, 10, 11), 0);      /* a child: a copy */
	assert_int_equal(maps_fork(&m, 10, 10), 0);      /* a thread: nothing */
	assert_non_null(maps_find(&m, 11, 0x1800));
	assert_string_equal(maps_file(&m, maps_find(&m, 11, 0x1800)->file)->build_id,
			    "000102030405060708090a0b0c0d0e0f10111213");
	maps_forget(&m, 10);                             /* exec or exit */
	assert_null(maps_find(&m, 10, 0x1800));
	assert_non_null(maps_find(&m, 11, 0x1800));
	/* Many processes: the table grows and every one is still found. */
	for (int32_t pid = 100; pid < 3100; pid++)
		assert_int_equal(maps_mmap(&m, pid, 0x1000 * (uint64_t)pid, 0x1000, 0, "/bin/x", NULL, 0), 0);
	for (int32_t pid = 100; pid < 3100; pid++)
		assert_non_null(maps_find(&m, pid, 0x1000 * (uint64_t)pid + 1));
	assert_true(m.bytes > 3000 * sizeof(struct map_ent));
	maps_free(&m);
}

/* ---------------------------------------------------------------- agg */

struct rec {
	uint8_t b[512];
	size_t n;
};

static void put(struct rec *r, const void *p, size_t n)
{
	memcpy(r->b + r->n, p, n);
	r->n += n;
}
static void put64(struct rec *r, uint64_t v) { put(r, &v, 8); }
static void put32(struct rec *r, uint32_t v) { put(r, &v, 4); }
static void hdr(struct rec *r, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { type, misc, 0 };
	put(r, &h, sizeof(h));
}
static void end(struct rec *r, size_t start)
{
	uint16_t size = (uint16_t)(r->n - start);
	memcpy(r->b + start + 6, &size, 2);
}

/* A pipe header with one cpu-clock-like attr: IP, TID, PERIOD, CALLCHAIN. */
static size_t pipe_header(struct rec *r)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	a.sample_period = 1000;
	r->n = 0;
	put(r, "PERFILE2", 8);
	put64(r, 16);
	hdr(r, 64, 0);
	put(r, &a, sizeof(a));
	put64(r, 1);
	end(r, 16);
	return r->n;
}

static void sample(struct rec *r, uint32_t pid, uint16_t misc, const uint64_t *chain, uint64_t n)
{
	size_t s = r->n;
	hdr(r, PERF_RECORD_SAMPLE, misc);
	put64(r, chain[n - 1]);
	put32(r, pid);
	put32(r, pid);
	put64(r, 1000);
	put64(r, n);
	for (uint64_t i = 0; i < n; i++)
		put64(r, chain[i]);
	end(r, s);
}

static void mmap2(struct rec *r, int32_t pid, uint64_t start, uint64_t len, const char *path,
		  const uint8_t *bid)
{
	size_t s = r->n;
	hdr(r, PERF_RECORD_MMAP2, bid ? (1u << 14) : 0);
	put32(r, (uint32_t)pid);
	put32(r, (uint32_t)pid);
	put64(r, start);
	put64(r, len);
	put64(r, 0);
	uint8_t u[24] = { 0 };
	if (bid) {
		u[0] = 20;
		memcpy(u + 4, bid, 20);
	}
	put(r, u, sizeof(u));
	put32(r, 5);   /* PROT_READ|PROT_EXEC */
	put32(r, 2);
	char name[32] = { 0 };
	strncpy(name, path, sizeof(name) - 1);
	put(r, name, (strlen(path) + 8) & ~(size_t)7);
	end(r, s);
}

static Perftools__Profiles__Profile *unpack(const uint8_t *gz, size_t n)
{
	FILE *f = tmpfile();
	assert_non_null(f);
	assert_int_equal(fwrite(gz, 1, n, f), n);
	fflush(f);
	rewind(f);
	gzFile z = gzdopen(dup(fileno(f)), "rb");
	static uint8_t buf[1 << 16];
	int k = gzread(z, buf, sizeof(buf));
	gzclose(z);
	fclose(f);
	assert_true(k > 0);
	return perftools__profiles__profile__unpack(NULL, (size_t)k, buf);
}

static void agg_window(void **state)
{
	(void)state;
	struct agg a;
	struct rec h, b = { .n = 0 };
	uint8_t bid[20];
	memset(bid, 0xab, sizeof(bid));
	agg_init(&a, 64 << 20);
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
	agg_init(&a, 1);   /* no memory at all: every sample dropped, counted */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(maps_table),
		cmocka_unit_test(maps_fork_exec),
		cmocka_unit_test(agg_window),
		cmocka_unit_test(agg_budget),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
