/* format/sample_chain.c: where a sample's call chain is, and its frames. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "format/sample_chain.h"

#define K PERF_RECORD_MISC_KERNEL
#define U PERF_RECORD_MISC_USER
#define CTX_K ((uint64_t)PERF_CONTEXT_KERNEL)
#define CTX_U ((uint64_t)PERF_CONTEXT_USER)
#define CTX_G ((uint64_t)PERF_CONTEXT_GUEST)

/* A sample of u64 words (the header's size set), into r; its size. */
static uint16_t sample(uint8_t *r, const uint64_t *w, unsigned n, unsigned cut)
{
	uint16_t size = (uint16_t)(8 + 8 * n - cut);

	memset(r, 0, 8);
	r[0] = PERF_RECORD_SAMPLE;
	memcpy(r + 6, &size, 2);
	memcpy(r + 8, w, 8 * n);
	return size;
}

/* The frames: markers switch the mode and are skipped; nr past the record is cut. */
static void frames_and_their_modes(void **state)
{
	static const struct {
		uint64_t st, rf;
		uint64_t w[16];
		unsigned n, cut, mode;
		unsigned nf;
		uint64_t ip[6];
		unsigned fmode[6];
	} t[] = {
		/* IP TID TIME CALLCHAIN: kernel frames, then the user's */
		{ PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN, 0,
		  { 0x10, 1, 2, 5, CTX_K, 0xffff1, 0xffff2, CTX_U, 0x400 }, 9, 0, K,
		  3, { 0xffff1, 0xffff2, 0x400 }, { K, K, U } },
		/* IDENTIFIER ... CPU PERIOD READ (one value, ID, LOST) then CALLCHAIN */
		{ PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			  PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN,
		  PERF_FORMAT_ID | PERF_FORMAT_LOST,
		  { 9, 0x10, 1, 2, 0, 1000, 7, 9, 0, 2, CTX_U, 0x500 }, 12, 0, U, 1, { 0x500 }, { U } },
		/* READ of a GROUP of two (nr, values with ids) */
		{ PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN,
		  PERF_FORMAT_GROUP | PERF_FORMAT_ID,
		  { 0x10, 1, 2, 5, 1, 6, 2, 2, CTX_U, 0x600 }, 10, 0, U, 1, { 0x600 }, { U } },
		/* a guest's frames: mode 0 */
		{ PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN, 0,
		  { 0x10, 1, 3, CTX_G, 0x700, 0x701 }, 6, 0, K, 2, { 0x700, 0x701 }, { 0, 0 } },
		/* nr says more than the record holds: the frames it holds */
		{ PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN, 0,
		  { 0x10, 1, 100, CTX_U, 0x800, 0x801 }, 6, 0, U, 2, { 0x800, 0x801 }, { U, U } },
		/* no CALLCHAIN, or a record cut before it: none */
		{ PERF_SAMPLE_IP | PERF_SAMPLE_TID, 0, { 0x10, 1 }, 2, 0, U, 0, { 0 }, { 0 } },
		{ PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN, 0,
		  { 0x10, 1, 2, 5 }, 4, 4, U, 0, { 0 }, { 0 } },
		/* a GROUP read whose nr is absurd: none */
		{ PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN,
		  PERF_FORMAT_GROUP, { 0x10, 1, 1u << 20, 0, 1, 0x900 }, 6, 0, U, 0, { 0 }, { 0 } },
	};
	uint8_t r[8 + 8 * 16];

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct perf_event_attr a = { .sample_type = t[i].st, .read_format = t[i].rf };
		uint16_t size = sample(r, t[i].w, t[i].n, t[i].cut);
		size_t off = sample_chain_off(&a, r, size);
		struct sample_chain c;
		unsigned nf = 0;
		uint64_t ip;

		if (off) {
			sample_chain_begin(&c, r, size, off, t[i].mode);
			for (; sample_chain_next(&c, &ip); nf++) {
				assert_true(nf < t[i].nf);
				assert_int_equal(ip, t[i].ip[nf]);
				assert_int_equal(c.mode, t[i].fmode[nf]);
			}
		}
		assert_int_equal(nf, t[i].nf);
	}
}

/* One layout when the sampling attrs agree (a dummy does not count), else by IDENTIFIER. */
static void the_attr_of_a_sample(void **state)
{
	static const uint64_t ids0[] = { 100, 101 }, ids1[] = { 200 }, ids2[] = { 300 };
	struct ps_event_desc ev[3] = {
		{ .attr = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
			    .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN },
		  .ids = ids0, .nr_ids = 2 },
		{ .attr = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_DUMMY,
			    .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP },
		  .ids = ids1, .nr_ids = 1 },
		{ .attr = { .type = PERF_TYPE_HARDWARE,
			    .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD },
		  .ids = ids2, .nr_ids = 1 },
	};
	struct sample_layout l;
	uint8_t r[16] = { 0 };
	uint64_t id;

	(void)state;
	sample_layout_init(&l, ev, 2);
	assert_true(l.chains);
	assert_ptr_equal(sample_layout_attr(&l, r, sizeof(r)), &ev[0].attr);
	sample_layout_init(&l, ev, 3);
	assert_null(l.one);
	static const struct { uint64_t id; int want; } t[] = {
		{ 101, 0 }, { 101, 0 }, { 300, 2 }, { 100, 0 }, { 999, -1 }, { 300, 2 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		id = t[i].id;
		memcpy(r + 8, &id, 8);
		assert_ptr_equal(sample_layout_attr(&l, r, sizeof(r)), t[i].want < 0 ? NULL : &ev[t[i].want].attr);
	}
	assert_null(sample_layout_attr(&l, r, 12)); /* too short for its IDENTIFIER */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(frames_and_their_modes),
		cmocka_unit_test(the_attr_of_a_sample),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
