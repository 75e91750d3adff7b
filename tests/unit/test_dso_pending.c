/*
 * Samples read before the record that maps their file (another ring, read
 * later in the pass or in the next one): the file is still marked sampled
 * in BUILD_ID (probe/dso_set.c, probe/dso_pending.c).  Each case is the
 * order the drainer reads records in; /bin/ls and /bin/cat stand for two
 * files (real ones: the BUILD_ID payload needs their build-ids).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include "format/record.h"
#include "probe/dso_pending.h"
#include "probe/dso_set.h"

/* The drainer's sample_id layout with one event: TID, TIME, CPU. */
#define ID_TYPE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

enum op { END, MAP, SAMPLE, FORK, EXEC, PASS };

struct step {
	enum op op;
	int32_t pid;
	uint64_t a;     /* MAP: start; SAMPLE: ip; FORK: the parent */
	uint64_t time;
	const char *file; /* MAP */
};

/* A record's sample_id trailer (ID_TYPE) and its size into the header. */
static void trailer(struct bytes *b, size_t at, int32_t pid, uint64_t time)
{
	uint32_t cpu[2] = { 0, 0 };
	uint16_t size;

	bytes_add(b, &pid, 4);
	bytes_add(b, &pid, 4);
	bytes_u64(b, time);
	bytes_add(b, cpu, sizeof(cpu));
	size = (uint16_t)(b->len - at);
	memcpy(b->p + at + 6, &size, 2);
}

/* MMAP2 of 0x1000 bytes at start (exec, no dev/inode: read by name). */
static void put_mmap2(struct bytes *b, int32_t pid, uint64_t start, const char *file, uint64_t time)
{
	size_t at = b->len, n = strlen(file) + 1;
	struct perf_event_header h = { .type = PERF_RECORD_MMAP2, .misc = PERF_RECORD_MISC_USER };
	uint64_t len = 0x1000;
	uint32_t prot = 5;

	bytes_zero(b, 72);
	memcpy(b->p + at, &h, sizeof(h));
	memcpy(b->p + at + 8, &pid, 4);
	memcpy(b->p + at + 12, &pid, 4);
	memcpy(b->p + at + 16, &start, 8);
	memcpy(b->p + at + 24, &len, 8);
	memcpy(b->p + at + 64, &prot, 4);
	bytes_add(b, file, n);
	bytes_pad(b, 8);
	trailer(b, at, pid, time);
}

static void put_fork(struct bytes *b, int32_t pid, int32_t ppid, uint64_t time)
{
	size_t at = b->len;
	struct perf_event_header h = { .type = PERF_RECORD_FORK };
	int32_t ids[4] = { pid, ppid, pid, ppid };

	bytes_add(b, &h, sizeof(h));
	bytes_add(b, ids, sizeof(ids));
	bytes_u64(b, time);
	trailer(b, at, pid, time);
}

static void put_exec(struct bytes *b, int32_t pid, uint64_t time)
{
	size_t at = b->len;
	struct perf_event_header h = { .type = PERF_RECORD_COMM, .misc = PERF_RECORD_MISC_COMM_EXEC };

	bytes_add(b, &h, sizeof(h));
	bytes_add(b, &pid, 4);
	bytes_add(b, &pid, 4);
	bytes_add(b, "new", 4);
	bytes_pad(b, 8);
	trailer(b, at, pid, time);
}

/* One record through the calls the drainer makes for it. */
static void feed(struct dso_set *s, const struct step *st)
{
	struct bytes b;

	bytes_init(&b);
	if (st->op == MAP)
		put_mmap2(&b, st->pid, st->a, st->file, st->time);
	else if (st->op == FORK)
		put_fork(&b, st->pid, (int32_t)st->a, st->time);
	else if (st->op == EXEC)
		put_exec(&b, st->pid, st->time);
	assert_int_equal(b.err, 0);
	if (st->op == MAP)
		assert_int_equal(dso_set_scan(s, b.p, b.len), 1);
	else if (b.len)
		dso_set_task(s, b.p, *(uint32_t *)b.p, *(uint16_t *)(b.p + 4), *(uint16_t *)(b.p + 6));
	bytes_free(&b);
}

/* DSO_HIT_BYTE of file's BUILD_ID entry, -1 when it has none. */
static int hit_of(const struct bytes *ids, const char *file)
{
	for (size_t off = 0; off + 36 <= ids->len;) {
		uint16_t size;

		memcpy(&size, ids->p + off + 6, 2);
		if (!strcmp((const char *)ids->p + off + 36, file))
			return ids->p[off + 12 + DSO_HIT_BYTE];
		off += size;
	}
	return -1;
}

static void run(const struct step *steps, int want_ls, int want_cat)
{
	struct dso_set s;
	struct bytes ids;

	dso_set_init(&s);
	bytes_init(&ids);
	assert_int_equal(dso_set_track_hits(&s), 0);
	s.id_time_back = record_id_time_back(ID_TYPE);
	/* Both files in the set, mapped where no case samples, by a process of its own. */
	feed(&s, &(struct step){ MAP, 1, 0x70000000, 1, "/bin/ls" });
	feed(&s, &(struct step){ MAP, 1, 0x70010000, 1, "/bin/cat" });
	for (const struct step *st = steps; st->op != END; st++) {
		if (st->op == SAMPLE) {
			/* As the drainer: an ip not found waits with its sample's time. */
			if (dso_set_sample(&s, st->pid, st->a, PERF_RECORD_MISC_USER))
				dso_set_sample_wait(&s, st->pid, st->a, st->time);
		} else if (st->op == PASS)
			dso_set_pass_end(&s);
		else
			feed(&s, st);
	}
	assert_int_equal(dso_set_build_ids(&s, &ids), 0);
	assert_int_equal(hit_of(&ids, "/bin/ls"), want_ls);
	assert_int_equal(hit_of(&ids, "/bin/cat"), want_cat);
	bytes_free(&ids);
	dso_set_free(&s);
}

#define S DSO_SAMPLED
#define M DSO_MAPPED_ONLY

static const struct {
	const char *what;
	struct step steps[8];
	int ls, cat;
} cases[] = {
	{ "in order", { { MAP, 10, 0x1000, 100, "/bin/ls" }, { SAMPLE, 10, 0x1100, 200 }, { PASS } }, S, M },
	{ "its MMAP later in the same pass (another ring)",
	  { { SAMPLE, 10, 0x1100, 200 }, { MAP, 10, 0x1000, 100, "/bin/ls" }, { PASS } }, S, M },
	{ "its MMAP in the next pass",
	  { { SAMPLE, 10, 0x1100, 200 }, { PASS }, { MAP, 10, 0x1000, 100, "/bin/ls" }, { PASS } }, S, M },
	{ "its MMAP in the last pass, the BUILD_IDs before that pass ends",
	  { { SAMPLE, 10, 0x1100, 200 }, { PASS }, { MAP, 10, 0x1000, 100, "/bin/ls" } }, S, M },
	{ "its MMAP two passes later: the window is over",
	  { { SAMPLE, 10, 0x1100, 200 }, { PASS }, { PASS }, { MAP, 10, 0x1000, 100, "/bin/ls" }, { PASS } },
	  M, M },
	{ "a chain frame and the sample, two files, MMAPs next pass",
	  { { SAMPLE, 10, 0x1100, 200 }, { SAMPLE, 10, 0x5100, 200 }, { PASS },
	    { MAP, 10, 0x5000, 100, "/bin/cat" }, { MAP, 10, 0x1000, 100, "/bin/ls" }, { PASS } }, S, S },
	{ "mapped after the sample: not its mapping",
	  { { SAMPLE, 10, 0x1100, 200 }, { MAP, 10, 0x1000, 300, "/bin/ls" }, { PASS }, { PASS } }, M, M },
	{ "another process's MMAP",
	  { { SAMPLE, 10, 0x1100, 200 }, { MAP, 11, 0x1000, 100, "/bin/ls" }, { PASS }, { PASS } }, M, M },
	{ "a child sampled before its FORK came",
	  { { MAP, 20, 0x1000, 50, "/bin/ls" }, { SAMPLE, 21, 0x1100, 200 }, { PASS },
	    { FORK, 21, 20, 100 }, { PASS } }, S, M },
	{ "a child's FORK and its parent's MMAP both after its sample",
	  { { SAMPLE, 21, 0x1100, 200 }, { MAP, 20, 0x1000, 50, "/bin/ls" }, { PASS },
	    { FORK, 21, 20, 100 }, { PASS } }, S, M },
	{ "a pid's FORK after the sample in time: another process by that pid",
	  { { MAP, 20, 0x1000, 50, "/bin/ls" }, { SAMPLE, 21, 0x1100, 200 }, { FORK, 21, 20, 300 },
	    { PASS }, { PASS } }, M, M },
	{ "a child's own MMAP (after its exec) read before its FORK, then its sample",
	  { { MAP, 20, 0x1000, 50, "/bin/ls" }, { EXEC, 21, 0, 200 }, { MAP, 21, 0x5000, 250, "/bin/cat" },
	    { PASS }, { FORK, 21, 20, 100 }, { SAMPLE, 21, 0x5100, 300 }, { PASS }, { PASS } }, M, S },
	{ "a range mapped twice: the newer mapping before the sample",
	  { { SAMPLE, 10, 0x1100, 300 }, { MAP, 10, 0x1000, 100, "/bin/ls" },
	    { MAP, 10, 0x1000, 200, "/bin/cat" }, { PASS } }, M, S },
	{ "the same, the two MMAPs from two rings out of order",
	  { { SAMPLE, 10, 0x1100, 300 }, { MAP, 10, 0x1000, 200, "/bin/cat" },
	    { MAP, 10, 0x1000, 100, "/bin/ls" }, { PASS } }, M, S },
	{ "an exec between the old image's MMAP and the sample",
	  { { SAMPLE, 30, 0x1100, 300 }, { PASS }, { MAP, 30, 0x1000, 100, "/bin/ls" }, { EXEC, 30, 0, 200 },
	    { MAP, 30, 0x1000, 250, "/bin/cat" }, { PASS } }, M, S },
	{ "an exec, the new image's MMAP read before the old one's",
	  { { SAMPLE, 30, 0x1100, 300 }, { MAP, 30, 0x1000, 250, "/bin/cat" }, { EXEC, 30, 0, 200 },
	    { MAP, 30, 0x1000, 100, "/bin/ls" }, { PASS }, { PASS } }, M, S },
	{ "an exec after the sample: the old image's",
	  { { SAMPLE, 30, 0x1100, 150 }, { PASS }, { MAP, 30, 0x1000, 100, "/bin/ls" }, { EXEC, 30, 0, 200 },
	    { MAP, 30, 0x1000, 250, "/bin/cat" }, { PASS } }, S, M },
	{ "an exec before the sample, no new MMAP there: none",
	  { { SAMPLE, 30, 0x1100, 300 }, { EXEC, 30, 0, 200 }, { MAP, 30, 0x1000, 100, "/bin/ls" }, { PASS },
	    { PASS } }, M, M },
};

static void records_in_the_drains_order(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		print_message("# %s\n", cases[i].what);
		run(cases[i].steps, cases[i].ls, cases[i].cat);
	}
}

static struct dso_entry *marked[4];
static unsigned nmarked;

static void mark(struct dso_entry *d)
{
	if (nmarked < 4)
		marked[nmarked] = d;
	nmarked++;
}

static char A;
#define DA ((struct dso_entry *)&A)

static struct dso_entry *always_a(void *arg, uint64_t ip)
{
	(void)arg;
	(void)ip;
	return DA;
}

/* One hit per (pid, ip); past the bound, hits are counted and dropped. */
static void bounded_and_deduplicated(void **state)
{
	struct dso_pending *p = dso_pending_new();
	struct dso_pending_stats st;

	(void)state;
	assert_non_null(p);
	assert_false(dso_pending_has(p, 5));
	for (uint64_t ip = 0; ip < DSO_PENDING_MAX; ip++)
		assert_int_equal(dso_pending_add(p, 5, 0x1000 + ip, 10), 0);
	assert_int_equal(dso_pending_add(p, 5, 0x1000, 20), 0);      /* seen again: kept once */
	assert_int_equal(dso_pending_add(p, 6, 0x1000, 20), -ENOSPC); /* another pid: a new one */
	assert_int_equal(dso_pending_add(p, 5, 0x100000, 20), -ENOSPC);
	assert_true(dso_pending_has(p, 5));
	dso_pending_stats(p, &st);
	assert_int_equal(st.kept, DSO_PENDING_MAX);
	assert_int_equal(st.dropped, 2);
	/* Resolved at the end of their window, then room again. */
	dso_pending_offer(p, 5, 10, always_a, NULL);
	nmarked = 0;
	dso_pending_pass_end(p, mark);
	assert_int_equal(nmarked, 0);
	dso_pending_pass_end(p, mark);
	assert_int_equal(nmarked, DSO_PENDING_MAX);
	assert_ptr_equal(marked[0], DA);
	dso_pending_stats(p, &st);
	assert_int_equal(st.resolved, DSO_PENDING_MAX);
	assert_false(dso_pending_has(p, 5));
	assert_int_equal(dso_pending_add(p, 6, 0x1000, 20), 0);
	/* Seen again in the next pass: waits a whole window more. */
	dso_pending_pass_end(p, mark);
	assert_int_equal(dso_pending_add(p, 6, 0x1000, 30), 0);
	dso_pending_pass_end(p, mark);
	assert_true(dso_pending_has(p, 6));
	dso_pending_pass_end(p, mark);
	assert_false(dso_pending_has(p, 6));
	dso_pending_stats(p, &st);
	assert_int_equal(st.unresolved, 1);
	dso_pending_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(records_in_the_drains_order),
		cmocka_unit_test(bounded_and_deduplicated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
