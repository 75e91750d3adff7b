/* aio_file's O_DIRECT split (dio.h) and buffer-end tracking (ends.h): tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "dio.h"
#include "ends.h"

#define B DIO_BLOCK

static void split_table(void **state)
{
	static const struct {
		size_t misalign, len, pending;
		struct dio_split want;
	} t[] = {
		/* aligned data, nothing pending: middle + tail */
		{ 0, 3 * B + 40, 0, { 0, false, 3 * B, 40, true } },
		{ 0, 2 * B, 0, { 0, false, 2 * B, 0, true } },
		{ 0, 40, 0, { 0, false, 0, 40, true } },
		/* pending bytes: the head completes the block, the rest aligns */
		{ 100, B - 100 + 2 * B + 8, 100, { B - 100, true, 2 * B, 8, true } },
		{ 100, B - 100, 100, { B - 100, true, 0, 0, true } },
		/* too short to fill the pending block: all absorbed */
		{ 100, 50, 100, { 50, false, 0, 0, true } },
		/* not placed at its stream offset: the middle cannot go direct */
		{ 8, 3 * B, 0, { 0, false, 3 * B, 0, false } },
		{ 0, 2 * B, 16, { B - 16, true, B, 16, false } },
		/* misplaced but shorter than a block: nothing to write directly */
		{ 8, 100, 0, { 0, false, 0, 100, true } },
	};
	uint8_t *mem;
	assert_int_equal(posix_memalign((void **)&mem, B, 8 * B), 0);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct dio_split s = dio_split(mem + t[i].misalign, t[i].len, t[i].pending);
		print_message("case %zu\n", i);
		assert_int_equal(s.head, t[i].want.head);
		assert_int_equal(s.block_full, t[i].want.block_full);
		assert_int_equal(s.mid, t[i].want.mid);
		assert_int_equal(s.tail, t[i].want.tail);
		assert_int_equal(s.aligned, t[i].want.aligned);
		if (s.block_full || !t[i].pending)
			assert_int_equal(s.head + s.mid + s.tail, t[i].len);
	}
	free(mem);
}

/* A stream of odd-sized buffers, placed as the host places them: every
 * block goes out exactly once, in order, and only the last one is partial. */
static void split_covers_stream(void **state)
{
	uint8_t *mem;
	assert_int_equal(posix_memalign((void **)&mem, B, 4 * B), 0);
	uint64_t pos = 0, written = 0;
	size_t pending = 0;
	for (unsigned i = 0; i < 500; i++) {
		size_t len = 8 + (size_t)(i * 2654435761u % (3 * B)) / 8 * 8;
		struct dio_split s = dio_split(mem + pos % B, len, pending);
		assert_true(s.aligned);
		if (s.block_full) {
			written += B;
			pending = 0;
		} else {
			pending += s.head;
		}
		assert_int_equal(written % B, 0);
		if (s.block_full || !s.head || pending == 0) {
			assert_true(s.mid % B == 0);
			written += s.mid;
			pending += s.tail;
		}
		pos += len;
		assert_int_equal(written + pending, pos);
		assert_true(pending < B);
	}
	free(mem);
}

/* Buffers of 1000 bytes from offset 4196 hold 10 records each. */
#define RECS_UPTO(end) (((end) - 4196) / 1000 + 1) * 10

static void ends_table(void **state)
{
	struct ends e;
	ends_init(&e);
	assert_int_equal(ends_take(&e, 1000), 0);
	for (uint64_t end = 4096 + 100; end < 4096 + 100 * 1000; end += 1000)
		assert_int_equal(ends_push(&e, end, RECS_UPTO(end)), 0);
	static const struct { uint64_t upto, want; } t[] = {
		{ 4096, 0 },             /* nothing ends before the first buffer end */
		{ 4196, 4196 },          /* exactly at an end */
		{ 8192, 8196 - 1000 },   /* a block boundary inside a buffer */
		{ 8192, 7196 },          /* again: no newer end */
		{ 50000, 49196 },
		{ 1 << 30, 4096 + 100 + 99 * 1000 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(ends_take(&e, t[i].upto), t[i].want);
		/* What a cut at that end keeps: the records of the buffers before it. */
		assert_int_equal(ends_taken_records(&e), t[i].want ? RECS_UPTO(t[i].want) : 0);
	}
	ends_reset(&e);
	assert_int_equal(ends_take(&e, 1 << 30), 0);
	assert_int_equal(ends_taken_records(&e), 0);
	assert_int_equal(ends_push(&e, 10, 3), 0);
	assert_int_equal(ends_take(&e, 10), 10);
	assert_int_equal(ends_taken_records(&e), 3);
	ends_free(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(split_table),
		cmocka_unit_test(split_covers_stream),
		cmocka_unit_test(ends_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
