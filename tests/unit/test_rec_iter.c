/*
 * The one record walk (perfsink_kit_rec_next, <perfsink/kit.h>), a table of
 * good and bad blocks: what it returns, where it stops and why; then the
 * walkers built on it agree with it (the kit's count, the DSO set's count).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include <perfsink/kit.h>

#include "probe/dso_set.h"

/* One record of a case: its type, the size its header says, the bytes it takes. */
struct rec_spec {
	uint32_t type;
	uint16_t size;  /* header.size */
	uint16_t bytes; /* bytes written (0: size); fewer than size: a torn tail */
	uint64_t payload; /* HEADER_TRACING_DATA: u32 at +8, AUXTRACE: u64 at +8 */
};

struct iter_case {
	const char *name;
	int payload_mode;
	struct rec_spec recs[6];
	size_t tail;                     /* extra bytes appended (zeros) */
	unsigned want_records;
	enum perfsink_kit_rec_stop want_stop;
	size_t want_off;                 /* where the walk stops */
};

#define T PERFSINK_RECORD_HEADER_TRACING_DATA
#define A PERFSINK_RECORD_AUXTRACE

static const struct iter_case cases[] = {
	{ "empty", 0, { { 0 } }, 0, 0, PERFSINK_KIT_REC_END, 0 },
	{ "good records", 0, { { PERF_RECORD_SAMPLE, 40 }, { PERF_RECORD_MMAP2, 16 },
			       { PERFSINK_RECORD_FINISHED_ROUND, 8 } },
	  0, 3, PERFSINK_KIT_REC_END, 64 },
	{ "unaligned sizes", 0, { { PERF_RECORD_SAMPLE, 13 }, { PERF_RECORD_COMM, 9 } },
	  0, 2, PERFSINK_KIT_REC_END, 22 },
	{ "size 0 (zeros)", 0, { { PERF_RECORD_SAMPLE, 16 }, { 0, 0, 8 } },
	  0, 1, PERFSINK_KIT_REC_UNDERSIZE, 16 },
	{ "size < 8", 0, { { PERF_RECORD_SAMPLE, 16 }, { PERF_RECORD_SAMPLE, 7, 8 } },
	  0, 1, PERFSINK_KIT_REC_UNDERSIZE, 16 },
	{ "size past the end", 0, { { PERF_RECORD_SAMPLE, 16 }, { PERF_RECORD_SAMPLE, 4096, 24 } },
	  0, 1, PERFSINK_KIT_REC_PAST_END, 16 },
	{ "torn tail: a header cut short", 0, { { PERF_RECORD_SAMPLE, 16 } },
	  5, 1, PERFSINK_KIT_REC_SHORT, 16 },
	{ "torn tail: a body cut short", 0, { { PERF_RECORD_SAMPLE, 16 }, { PERF_RECORD_MMAP, 64, 40 } },
	  0, 1, PERFSINK_KIT_REC_PAST_END, 16 },
	{ "largest size", 0, { { PERF_RECORD_SAMPLE, 65535 } }, 0, 1, PERFSINK_KIT_REC_END, 65535 },
	/* The payload's bytes (0xab) read as a record: 0xabab bytes long. */
	{ "payload not stepped over without payload mode", 0, { { T, 16, 16, 8 } },
	  0, 1, PERFSINK_KIT_REC_PAST_END, 16 },
	{ "tracing data's payload", 1, { { T, 16, 16, 24 }, { PERF_RECORD_SAMPLE, 16 } },
	  0, 2, PERFSINK_KIT_REC_END, 56 },
	{ "auxtrace's payload", 1, { { A, 48, 48, 16 }, { PERF_RECORD_SAMPLE, 8 } },
	  0, 2, PERFSINK_KIT_REC_END, 72 },
	{ "payload past the end", 1, { { PERF_RECORD_SAMPLE, 8 }, { T, 16, 16, 100 } },
	  0, 1, PERFSINK_KIT_REC_PAST_END, 8 },
	{ "tracing data too small to say", 1, { { T, 8 } }, 0, 0, PERFSINK_KIT_REC_PAST_END, 0 },
};

/* The bytes of c into buf; their length. */
static size_t build(const struct iter_case *c, uint8_t *buf, size_t cap)
{
	size_t len = 0;
	for (unsigned i = 0; i < 6 && (c->recs[i].type || c->recs[i].size || c->recs[i].bytes); i++) {
		const struct rec_spec *r = &c->recs[i];
		size_t n = r->bytes ? r->bytes : r->size;
		assert_true(len + n + r->payload <= cap);
		memset(buf + len, 0, n);
		memcpy(buf + len, &r->type, 4);
		memcpy(buf + len + 6, &r->size, 2);
		if (r->type == T && n >= 12) {
			uint32_t p = (uint32_t)r->payload;
			memcpy(buf + len + 8, &p, 4);
		} else if (r->type == A && n >= 16) {
			memcpy(buf + len + 8, &r->payload, 8);
		}
		len += n;
		/* The payload is there when the record says so and the case means it. */
		if (r->payload && r->payload <= 64) {
			memset(buf + len, 0xab, r->payload);
			len += r->payload;
		}
	}
	memset(buf + len, 0, c->tail);
	return len + c->tail;
}

static uint8_t block[3 * 65536];

static void test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct iter_case *c = &cases[i];
		size_t len = build(c, block, sizeof(block));
		struct perfsink_kit_rec_iter it;
		struct perfsink_kit_rec r;
		unsigned n = 0;
		size_t at = 0;

		perfsink_kit_rec_iter_init(&it, block, len);
		it.payload = c->payload_mode;
		while (perfsink_kit_rec_next(&it, &r)) {
			/* Each record is where the walk was, as its header says. */
			assert_ptr_equal(r.p, block + at);
			assert_true(r.size >= 8 && at + r.size + r.payload <= len);
			at = it.off;
			n++;
		}
		print_message("# %s: %u records, stop %d at %zu\n", c->name, n, it.stop, it.off);
		assert_int_equal(n, c->want_records);
		assert_int_equal(it.stop, c->want_stop);
		assert_int_equal(it.off, c->want_off);
		/* Called again at the stop, it stays there. */
		assert_int_equal(perfsink_kit_rec_next(&it, &r), 0);
		assert_int_equal(it.off, c->want_off);
		if (c->payload_mode) {
			size_t rest;
			assert_int_equal(perfsink_kit_records_count(block, len, &rest), c->want_records);
			assert_int_equal(rest, len - c->want_off);
		}
	}
}

/* A walk may start later (a piece at a time, as the drainer's). */
static void test_start_later(void **state)
{
	(void)state;
	const struct iter_case *c = &cases[1];
	size_t len = build(c, block, sizeof(block));
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec r;

	perfsink_kit_rec_iter_init(&it, block, 50); /* the second record is not wholly in */
	assert_int_equal(perfsink_kit_rec_next(&it, &r), 1);
	assert_int_equal(perfsink_kit_rec_next(&it, &r), 0);
	assert_int_equal(it.stop, PERFSINK_KIT_REC_PAST_END);
	assert_int_equal(it.off, 40);
	size_t from = it.off;
	perfsink_kit_rec_iter_init(&it, block, len);
	it.off = from;
	assert_int_equal(perfsink_kit_rec_next(&it, &r), 1);
	assert_int_equal(r.type, PERF_RECORD_MMAP2);
	assert_int_equal(perfsink_kit_rec_next(&it, &r), 1);
	assert_int_equal(r.type, PERFSINK_RECORD_FINISHED_ROUND);
	assert_int_equal(perfsink_kit_rec_next(&it, &r), 0);
	assert_int_equal(it.stop, PERFSINK_KIT_REC_END);
}

/* The DSO set's scan walks as far as the iterator does, for every case. */
static void test_dso_scan_agrees(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct iter_case *c = &cases[i];
		if (c->payload_mode)
			continue;
		size_t len = build(c, block, sizeof(block));
		struct dso_set s;
		dso_set_init(&s);
		assert_int_equal(dso_set_scan(&s, block, len), c->want_records);
		dso_set_free(&s);
	}
}

/* The old kit names are aliases of the one set of constants. */
static void test_aliases(void **state)
{
	(void)state;
	assert_int_equal(PERFSINK_KIT_REC_LOST, PERF_RECORD_LOST);
	assert_int_equal(PERFSINK_KIT_REC_HEADER_ATTR, PERFSINK_RECORD_HEADER_ATTR);
	assert_int_equal(PERFSINK_KIT_REC_HEADER_TRACING_DATA, 66);
	assert_int_equal(PERFSINK_KIT_REC_AUXTRACE, 71);
	assert_int_equal(PERFSINK_KIT_REC_HEADER_FEATURE, 80);
	assert_int_equal(PERFSINK_KIT_REC_COMPRESSED, 81);
	assert_true(perfsink_kit_rec_type_known(PERF_RECORD_SAMPLE));
	assert_true(perfsink_kit_rec_type_known(PERFSINK_RECORD_FINISHED_INIT));
	assert_false(perfsink_kit_rec_type_known(0));
	assert_false(perfsink_kit_rec_type_known(22));
	assert_false(perfsink_kit_rec_type_known(84));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_start_later),
		cmocka_unit_test(test_dso_scan_agrees),
		cmocka_unit_test(test_aliases),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
