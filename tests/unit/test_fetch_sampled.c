/*
 * fetch's own scan (fetch/sampled.c) of a recording whose samples come
 * before the records that map their files, as the drainer writes them when
 * one CPU's ring is read before another's: each case is a data section,
 * records in file order, and which files fetch finds sampled.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include "base/bytes.h"
#include "fetch/sampled.h"
#include "format/events.h"

#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

enum op { END, MAP, SAMPLE, FORK, EXEC };

struct step {
	enum op op;
	uint32_t pid;
	uint64_t a;       /* MAP: start; SAMPLE: ip; FORK: the parent */
	uint64_t time;
	const char *file; /* MAP */
};

/* The sample_id trailer (ST with sample_id_all: TID, TIME, CPU), and the size. */
static void trailer(struct bytes *b, size_t at, uint32_t pid, uint64_t time)
{
	uint32_t two[2] = { pid, pid }, cpu[2] = { 1, 0 };
	uint16_t size;

	bytes_add(b, two, sizeof(two));
	bytes_u64(b, time);
	bytes_add(b, cpu, sizeof(cpu));
	size = (uint16_t)(b->len - at);
	memcpy(b->p + at + 6, &size, 2);
}

static void put(struct bytes *b, const struct step *st)
{
	size_t at = b->len;
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER };
	uint32_t two[2] = { st->pid, st->pid };

	if (st->op == SAMPLE) { /* IP, TID, TIME, CPU */
		uint32_t cpu[2] = { 1, 0 };

		bytes_add(b, &h, sizeof(h));
		bytes_u64(b, st->a);
		bytes_add(b, two, sizeof(two));
		bytes_u64(b, st->time);
		bytes_add(b, cpu, sizeof(cpu));
		memcpy(b->p + at + 6, &(uint16_t){ (uint16_t)(b->len - at) }, 2);
		return;
	}
	if (st->op == MAP) { /* MMAP2 of 0x1000 bytes, PROT_EXEC */
		uint64_t v[3] = { st->a, 0x1000, 0 };
		uint32_t z[6] = { 0, 0, 0, 0, 0, 0 }, prot[2] = { 5, 2 };

		h.type = PERF_RECORD_MMAP2;
		bytes_add(b, &h, sizeof(h));
		bytes_add(b, two, sizeof(two));
		bytes_add(b, v, sizeof(v));
		bytes_add(b, z, sizeof(z));
		bytes_add(b, prot, sizeof(prot));
		bytes_add(b, st->file, strlen(st->file) + 1);
	} else if (st->op == FORK) {
		uint32_t ids[4] = { st->pid, (uint32_t)st->a, st->pid, (uint32_t)st->a };

		h.type = PERF_RECORD_FORK;
		bytes_add(b, &h, sizeof(h));
		bytes_add(b, ids, sizeof(ids));
		bytes_u64(b, st->time);
	} else {
		h.type = PERF_RECORD_COMM;
		h.misc = PERF_RECORD_MISC_COMM_EXEC;
		bytes_add(b, &h, sizeof(h));
		bytes_add(b, two, sizeof(two));
		bytes_add(b, "new", 4);
	}
	bytes_pad(b, 8);
	trailer(b, at, st->pid, st->time);
}

static const struct {
	const char *what;
	struct step steps[8];
	int a, b; /* /lib/a.so, /lib/b.so sampled */
} cases[] = {
	{ "in order", { { MAP, 10, 0x1000, 100, "/lib/a.so" }, { SAMPLE, 10, 0x1100, 200 } }, 1, 0 },
	{ "the sample before its MMAP (another ring)",
	  { { SAMPLE, 10, 0x1100, 200 }, { MAP, 10, 0x1000, 100, "/lib/a.so" } }, 1, 0 },
	{ "a child's sample before its FORK and its parent's MMAP",
	  { { SAMPLE, 21, 0x1100, 200 }, { MAP, 20, 0x1000, 50, "/lib/a.so" }, { FORK, 21, 20, 100 } }, 1, 0 },
	{ "mapped after the sample: not its mapping",
	  { { SAMPLE, 10, 0x1100, 200 }, { MAP, 10, 0x1000, 300, "/lib/a.so" } }, 0, 0 },
	{ "a range mapped twice, the newer before the sample, read first",
	  { { SAMPLE, 10, 0x1100, 300 }, { MAP, 10, 0x1000, 200, "/lib/b.so" },
	    { MAP, 10, 0x1000, 100, "/lib/a.so" } }, 0, 1 },
	{ "a child that exec'd: not its parent's maps",
	  { { MAP, 20, 0x1000, 50, "/lib/a.so" }, { SAMPLE, 21, 0x1100, 300 }, { FORK, 21, 20, 100 },
	    { EXEC, 21, 0, 200 }, { MAP, 21, 0x5000, 250, "/lib/b.so" } }, 0, 0 },
	{ "a child sampled before its exec: its parent's",
	  { { MAP, 20, 0x1000, 50, "/lib/a.so" }, { SAMPLE, 21, 0x1100, 150 }, { FORK, 21, 20, 100 },
	    { EXEC, 21, 0, 200 }, { MAP, 21, 0x1000, 250, "/lib/b.so" } }, 1, 0 },
	{ "an exec between the old image's MMAP and the sample, read in reverse",
	  { { SAMPLE, 30, 0x1100, 300 }, { MAP, 30, 0x1000, 250, "/lib/b.so" }, { EXEC, 30, 0, 200 },
	    { MAP, 30, 0x1000, 100, "/lib/a.so" } }, 0, 1 },
};

static void scan_case(const struct step *steps, int want_a, int want_b, int id_all)
{
	struct ps_event_desc ev = { .attr = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(ev.attr),
					      .sample_type = ST, .sample_id_all = id_all } };
	struct sampled *s = NULL;
	char why[200] = "", path[] = "/tmp/test_fetch_sampled.XXXXXX";
	struct bytes b;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	bytes_init(&b);
	for (const struct step *st = steps; st->op != END; st++)
		put(&b, st);
	assert_int_equal(b.err, 0);
	assert_int_equal(write(fd, b.p, b.len), (ssize_t)b.len);
	assert_int_equal(sampled_scan(fd, 0, b.len, &ev, 1, &s, why, sizeof(why)), 0);
	assert_int_equal(sampled_need(s, "/lib/a.so", "00"), want_a);
	assert_int_equal(sampled_need(s, "/lib/b.so", "00"), want_b);
	sampled_free(s);
	bytes_free(&b);
	close(fd);
}

static void records_in_the_drains_order(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		print_message("# %s\n", cases[i].what);
		scan_case(cases[i].steps, cases[i].a, cases[i].b, 1);
	}
}

/* Records without their time (no sample_id_all): every mapping that held the ip, as before. */
static void untimed_records_every_mapping(void **state)
{
	(void)state;
	scan_case(cases[1].steps, 1, 0, 0);
	scan_case(cases[4].steps, 1, 1, 0);
	scan_case(cases[7].steps, 1, 1, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(records_in_the_drains_order),
		cmocka_unit_test(untimed_records_every_mapping),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
