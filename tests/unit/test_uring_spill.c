/*
 * uring_file's spill memory (uring_spill.h) on its own, then through the
 * writer: with spill_at 1 a write from a registered (pooled) buffer goes
 * out from a spill chunk, its done() runs before uring_writer_write
 * returns, and the file holds the bytes the buffer had then even though
 * the test scribbles over the buffer at once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "uring_io.h"
#include "uring_spill.h"
#include "uring_writer.h"

#define CHUNK 8192

/* Sizes that make no spill. */
static void spill_bad_sizes(void **state)
{
	(void)state;
	static const struct { size_t cap, chunk; } bad[] = {
		{ 0, CHUNK }, { CHUNK - 1, CHUNK }, { CHUNK, 0 }, { 4096, 4097 },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct uring_spill *sp = NULL;
		assert_int_equal(uring_spill_create(bad[i].cap, bad[i].chunk, &sp), -EINVAL);
		assert_null(sp);
	}
}

/* Chunks are aligned, distinct, owned; a full spill and a too long write are refused, then it is whole again. */
static void spill_get_put(void **state)
{
	(void)state;
	struct uring_spill *sp;
	assert_int_equal(uring_spill_create(3 * CHUNK + 100, CHUNK - 10, &sp), 0);
	assert_int_equal(uring_spill_nr_chunks(sp), 3);
	assert_null(uring_spill_get(sp, CHUNK + 1));
	void *c[3];
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 3; i++) {
			c[i] = uring_spill_get(sp, CHUNK);
			assert_non_null(c[i]);
			assert_int_equal((uintptr_t)c[i] % 4096, 0);
			assert_true(uring_spill_owns(sp, c[i]));
			assert_true(uring_spill_owns(sp, (uint8_t *)c[i] + CHUNK - 1));
			memset(c[i], 0x5a, CHUNK);
			for (int j = 0; j < i; j++)
				assert_ptr_not_equal(c[i], c[j]);
		}
		assert_int_equal(uring_spill_in_use(sp), 3);
		assert_null(uring_spill_get(sp, 1));
		for (int i = 0; i < 3; i++)
			uring_spill_put(sp, c[i]);
		assert_int_equal(uring_spill_in_use(sp), 0);
	}
	int x;
	assert_false(uring_spill_owns(sp, &x));
	assert_false(uring_spill_owns(NULL, &x));
	struct uring_spill_stats st;
	uring_spill_get_stats(sp, &st);
	assert_int_equal(st.chunks, 6);
	assert_int_equal(st.bytes, 6 * CHUNK);
	assert_int_equal(st.full, 2); /* both refusals of a full spill; the too long write is not one */
	assert_int_equal(st.peak, 3 * CHUNK);
	uring_spill_destroy(sp);
}

#define NW 64

static struct uring_io ring;
static atomic_uint done_calls, done_errors;
static atomic_bool done_flag[NW];

static void on_done(void *ctx, void *arg, int err)
{
	(void)ctx;
	atomic_store(&done_flag[(uintptr_t)arg], true);
	atomic_fetch_add(&done_calls, 1);
	if (err)
		atomic_fetch_add(&done_errors, 1);
}

/*
 * NW writes of CHUNK bytes from a registered pool, spill_at 1, a spill of
 * chunks spill chunks: each buffer whose done() ran is scribbled over at
 * once; the file must hold what each buffer had when it was written.
 */
static void spilled_writes(unsigned chunks, uint64_t *spilled)
{
	uint8_t *pool = aligned_alloc(4096, (size_t)NW * CHUNK);
	assert_non_null(pool);
	for (unsigned i = 0; i < NW; i++)
		memset(pool + (size_t)i * CHUNK, (int)(i + 1), CHUNK);
	struct perfsink_region reg = { pool, (size_t)NW * CHUNK };
	assert_int_equal(uring_io_register(&ring, &reg, 1), 0);
	struct uring_spill *sp;
	assert_int_equal(uring_spill_create((size_t)chunks * CHUNK, CHUNK, &sp), 0);
	char path[] = "/tmp/test_uring_spill.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	atomic_store(&done_calls, 0);
	atomic_store(&done_errors, 0);
	for (unsigned i = 0; i < NW; i++)
		atomic_store(&done_flag[i], false);
	struct uring_writer *w;
	struct uring_writer_config cfg = { .io = &ring, .fd = fd, .slots = 7, .spill = sp, .spill_at = 1 };
	assert_int_equal(uring_writer_create(&cfg, &w), 0);
	for (unsigned i = 0; i < NW; i++) {
		assert_int_equal(uring_writer_write(w, pool + (size_t)i * CHUNK, CHUNK, on_done,
						    (void *)(uintptr_t)i), 0);
		if (atomic_load(&done_flag[i]))
			memset(pool + (size_t)i * CHUNK, 0xee, CHUNK); /* the engine reuses it */
	}
	assert_int_equal(uring_writer_drain(w), 0);
	struct uring_writer_stats st;
	uring_writer_stats(w, &st);
	*spilled = st.spilled;
	assert_int_equal(atomic_load(&done_calls), NW);
	assert_int_equal(atomic_load(&done_errors), 0);
	assert_int_equal(uring_writer_committed(w), (uint64_t)NW * CHUNK);
	uring_writer_destroy(w);
	assert_int_equal(uring_spill_in_use(sp), 0);
	struct uring_spill_stats sst;
	uring_spill_get_stats(sp, &sst);
	assert_int_equal(sst.chunks, *spilled); /* every chunk handed out made one write */
	uint8_t got[CHUNK], want[CHUNK];
	for (unsigned i = 0; i < NW; i++) {
		memset(want, (int)(i + 1), CHUNK);
		assert_int_equal(pread(fd, got, CHUNK, (off_t)i * CHUNK), CHUNK);
		assert_memory_equal(got, want, CHUNK);
	}
	close(fd);
	uring_spill_destroy(sp);
	assert_int_equal(uring_io_register(&ring, NULL, 0), 0);
	free(pool);
}

static void writer_spills(void **state)
{
	(void)state;
	if (!ring.ready)
		skip();
	uint64_t spilled;
	spilled_writes(16, &spilled);
	/* The first write finds nothing in flight; most later ones find one. */
	assert_true(spilled >= 1 && spilled < NW);
}

/* A spill of one chunk: writes that find it taken hold their buffers, and still land. */
static void writer_spill_full(void **state)
{
	(void)state;
	if (!ring.ready)
		skip();
	uint64_t spilled;
	spilled_writes(1, &spilled);
}

static int group_setup(void **state)
{
	(void)state;
	char why[256];
	if (uring_io_probe(why, sizeof(why)) == 0 && uring_io_init(&ring, 8, why, sizeof(why)) < 0)
		return -1;
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	if (ring.ready)
		uring_io_exit(&ring);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(spill_bad_sizes),
		cmocka_unit_test(spill_get_put),
		cmocka_unit_test(writer_spills),
		cmocka_unit_test(writer_spill_full),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
