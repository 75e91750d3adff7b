/*
 * The two ordered append writers, POSIX AIO (the kit's perfsink_kit_aiow)
 * and io_uring (uring_file's uring_writer), on real files: the same
 * contract, checked by the same cases, since both are backends of the
 * kit's write queue.  done() runs once per queued write, in submission
 * order; the committed prefix grows to the end; a short write is
 * resubmitted; the first error (EFBIG past RLIMIT_FSIZE) is sticky and
 * handed to every later write in flight.  io_uring alone: plugged writes,
 * a block and the middle after it, go out as one SQE and complete as two.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <perfsink/kit.h>
#ifdef HAVE_URING_WRITER
#include "uring_io.h"
#include "uring_writer.h"
#endif

#define NWRITES 300
#define WSIZE 4096

/* What done() and on_commit saw; written by the completion thread only. */
struct seen {
	unsigned calls;
	unsigned order[NWRITES];
	int err[NWRITES];
	uint64_t commit_end;
	int commit_backwards;
};

static void on_done(void *ctx, void *arg, int err)
{
	struct seen *s = ctx;
	unsigned i = (unsigned)(uintptr_t)arg;
	if (s->calls < NWRITES) {
		s->order[s->calls] = i;
		s->err[s->calls] = err;
	}
	s->calls++;
}

static void on_commit(void *arg, uint64_t end)
{
	struct seen *s = arg;
	if (end < s->commit_end)
		s->commit_backwards = 1;
	s->commit_end = end;
}

/* One writer of either kind, so each case runs against both. */
struct wr {
	int uring;
	void *w;
};

#ifdef HAVE_URING_WRITER
static struct uring_io ring;
#define URING(x, call, other) ((x)->uring ? (call) : (other))
#else
#define URING(x, call, other) (other)
#endif

static int wr_create(struct wr *x, int fd, unsigned slots, uint64_t offset, struct seen *s)
{
#ifdef HAVE_URING_WRITER
	if (x->uring) {
		struct uring_writer_config cfg = { .io = &ring, .fd = fd, .slots = slots,
						   .offset = offset, .on_commit = on_commit,
						   .commit_arg = s, .done_ctx = s };
		return uring_writer_create(&cfg, (struct uring_writer **)&x->w);
	}
#endif
	struct perfsink_kit_aiow_config cfg = { .fd = fd, .nr_cb = slots, .offset = offset,
						.on_commit = on_commit, .commit_arg = s,
						.done_ctx = s };
	return perfsink_kit_aiow_create(&cfg, (struct perfsink_kit_aiow **)&x->w);
}

static int wr_write(struct wr *x, const void *data, size_t len, unsigned i)
{
	void *arg = (void *)(uintptr_t)i;
	return URING(x, uring_writer_write(x->w, data, len, on_done, arg),
		     perfsink_kit_aiow_write(x->w, data, len, on_done, arg));
}

static int wr_drain(struct wr *x)
{
	return URING(x, uring_writer_drain(x->w), perfsink_kit_aiow_drain(x->w));
}

/* What the checks read: the append offset, the committed prefix, the counters. */
struct wr_state {
	uint64_t offset, committed;
	struct perfsink_kit_aiow_stats st;
};

static struct wr_state wr_state(struct wr *x)
{
	struct wr_state v;
#ifdef HAVE_URING_WRITER
	if (x->uring) {
		struct uring_writer_stats st;
		uring_writer_stats(x->w, &st);
		v.st = (struct perfsink_kit_aiow_stats){ st.writes, st.bytes, st.retries, st.waits };
		v.offset = uring_writer_offset(x->w);
		v.committed = uring_writer_committed(x->w);
		return v;
	}
#endif
	perfsink_kit_aiow_stats(x->w, &v.st);
	v.offset = perfsink_kit_aiow_offset(x->w);
	v.committed = perfsink_kit_aiow_committed(x->w);
	return v;
}

static void wr_destroy(struct wr *x)
{
#ifdef HAVE_URING_WRITER
	if (x->uring) {
		uring_writer_destroy(x->w);
		return;
	}
#endif
	perfsink_kit_aiow_destroy(x->w);
}

static int temp_file(void)
{
	char path[] = "/tmp/test_writers.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	return fd;
}

/* Bytes of write i: its index in every byte, so a misplaced write shows. */
static uint8_t *pattern(void)
{
	uint8_t *p = malloc((size_t)NWRITES * WSIZE);
	assert_non_null(p);
	for (unsigned i = 0; i < NWRITES; i++)
		memset(p + (size_t)i * WSIZE, (int)(i % 251), WSIZE - i % 7);
	return p;
}

/* Sizes vary so writes end at odd offsets. */
static size_t wlen(unsigned i) { return WSIZE - i % 7; }

static void in_order(struct wr *x)
{
	const uint64_t base = 100;
	int fd = temp_file();
	uint8_t *p = pattern();
	struct seen s = { 0 };
	assert_int_equal(wr_create(x, fd, 4, base, &s), 0);
	uint64_t total = 0;
	for (unsigned i = 0; i < NWRITES; i++) {
		assert_int_equal(wr_write(x, p + (size_t)i * WSIZE, wlen(i), i), 0);
		total += wlen(i);
	}
	assert_int_equal(wr_drain(x), 0);
	assert_int_equal(s.calls, NWRITES);
	for (unsigned i = 0; i < NWRITES; i++) {
		assert_int_equal(s.order[i], i);
		assert_int_equal(s.err[i], 0);
	}
	struct wr_state v = wr_state(x);
	assert_int_equal(v.offset, base + total);
	assert_int_equal(v.committed, base + total);
	assert_int_equal(s.commit_end, base + total);
	assert_false(s.commit_backwards);
	assert_int_equal(v.st.bytes, total);
	assert_true(v.st.writes >= NWRITES);
	/* A write of nothing completes at once and moves nothing. */
	assert_int_equal(wr_write(x, p, 0, 7), 0);
	assert_int_equal(s.calls, NWRITES + 1);
	assert_int_equal(wr_state(x).offset, base + total);
	wr_destroy(x);

	uint64_t off = base;
	uint8_t *got = malloc(WSIZE);
	assert_non_null(got);
	for (unsigned i = 0; i < NWRITES; i++) {
		assert_int_equal(pread(fd, got, wlen(i), (off_t)off), (ssize_t)wlen(i));
		assert_memory_equal(got, p + (size_t)i * WSIZE, wlen(i));
		off += wlen(i);
	}
	free(got);
	free(p);
	close(fd);
}

/*
 * A file size limit inside write 40: it is short, its rest fails with
 * EFBIG, and that error is every later write's.
 */
static void sticky_error(struct wr *x)
{
	const unsigned ok = 40;
	const uint64_t limit = (uint64_t)ok * WSIZE + 1000;
	int fd = temp_file();
	uint8_t *p = pattern();
	struct seen s = { 0 };
	struct rlimit old, lim;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = (struct rlimit){ limit, old.rlim_max };
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(wr_create(x, fd, 4, 0, &s), 0);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	unsigned queued = 0;
	int r = 0;
	for (; queued < NWRITES; queued++) {
		r = wr_write(x, p, WSIZE, queued);
		if (r < 0)
			break;
	}
	int dr = wr_drain(x);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	assert_int_equal(r, -EFBIG);
	assert_int_equal(dr, -EFBIG);
	assert_true(queued > ok);
	assert_int_equal(s.calls, queued);
	for (unsigned i = 0; i < queued; i++) {
		assert_int_equal(s.order[i], i);
		assert_int_equal(s.err[i], i < ok ? 0 : -EFBIG);
	}
	struct wr_state v = wr_state(x);
	assert_int_equal(v.committed, (uint64_t)ok * WSIZE);
	assert_int_equal(s.commit_end, (uint64_t)ok * WSIZE);
	assert_int_equal(v.st.bytes, limit);
	assert_true(v.st.retries >= 1);
	/* Failed: nothing more is queued, and done() is not called. */
	assert_int_equal(wr_write(x, p, WSIZE, 0), -EFBIG);
	assert_int_equal(s.calls, queued);
	wr_destroy(x);
	free(p);
	close(fd);
}

static void aio_in_order(void **state)
{
	(void)state;
	in_order(&(struct wr){ 0, NULL });
}

static void aio_sticky_error(void **state)
{
	(void)state;
	sticky_error(&(struct wr){ 0, NULL });
}

/* The ring the uring cases share; where io_uring is unavailable they skip. */
static int group_setup(void **state)
{
	(void)state;
#ifdef HAVE_URING_WRITER
	char why[256];
	if (uring_io_probe(why, sizeof(why)) == 0)
		return uring_io_init(&ring, 8, why, sizeof(why)) < 0 ? -1 : 0;
#endif
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
#ifdef HAVE_URING_WRITER
	if (ring.ready)
		uring_io_exit(&ring);
#endif
	return 0;
}

#ifdef HAVE_URING_WRITER
static void uring_in_order(void **state)
{
	(void)state;
	if (!ring.ready)
		skip();
	in_order(&(struct wr){ 1, NULL });
}

static void uring_sticky_error(void **state)
{
	(void)state;
	if (!ring.ready)
		skip();
	sticky_error(&(struct wr){ 1, NULL });
}

#define NPAIRS 100
#define MID(i) (2 * WSIZE + ((i) % 3) * WSIZE)

/*
 * Plugged as uring_file plugs a sink write: a block (not registered) then
 * the middle after it from a registered buffer, NPAIRS times.  Each write
 * is its own SQE (the middle a fixed-buffer write), both entered at
 * unplug; done() runs per write, in order, and the file holds every byte
 * where it belongs.  With a file size limit inside pair fail's middle,
 * that write is short: the completion thread queues its rest while the
 * writer may be plugged again, enters it at once, it fails, and the error
 * is sticky.
 */
static void plugged_pairs(unsigned fail)
{
	if (!ring.ready)
		skip();
	uint8_t *blocks = malloc((size_t)NPAIRS * WSIZE);
	uint8_t *pool = malloc((size_t)NPAIRS * 4 * WSIZE);
	assert_non_null(blocks);
	assert_non_null(pool);
	struct perfsink_region reg = { pool, (size_t)NPAIRS * 4 * WSIZE };
	assert_int_equal(uring_io_register(&ring, &reg, 1), 0);
	uint64_t off = 0, limit = 0;
	for (unsigned i = 0; i < NPAIRS; i++) {
		memset(blocks + (size_t)i * WSIZE, (int)(2 * i % 251), WSIZE);
		memset(pool + (size_t)i * 4 * WSIZE, (int)((2 * i + 1) % 251), MID(i));
		if (i == fail)
			limit = off + WSIZE + 1000;
		off += WSIZE + MID(i);
	}
	int fd = temp_file();
	struct seen s = { 0 };
	struct rlimit old, lim;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = (struct rlimit){ limit, old.rlim_max };
	signal(SIGXFSZ, SIG_IGN);
	struct wr x = { 1, NULL };
	assert_int_equal(wr_create(&x, fd, 4, 0, &s), 0);
	if (limit)
		assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	unsigned queued = 0;
	int r = 0;
	for (unsigned i = 0; i < NPAIRS && r == 0; i++) {
		uring_writer_plug(x.w);
		if ((r = wr_write(&x, blocks + (size_t)i * WSIZE, WSIZE, 2 * i)) == 0) {
			queued++;
			if ((r = wr_write(&x, pool + (size_t)i * 4 * WSIZE, MID(i), 2 * i + 1)) == 0)
				queued++;
		}
		int u = uring_writer_unplug(x.w);
		r = r < 0 ? r : u;
	}
	int dr = wr_drain(&x);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	struct wr_state v = wr_state(&x);
	assert_int_equal(s.calls, queued);
	for (unsigned i = 0; i < queued; i++) {
		assert_int_equal(s.order[i], i);
		assert_int_equal(s.err[i], !limit || i <= 2 * fail ? 0 : -EFBIG);
	}
	if (!limit) {
		assert_int_equal(r, 0);
		assert_int_equal(dr, 0);
		assert_int_equal(queued, 2 * NPAIRS);
		assert_int_equal(v.st.writes, 2 * NPAIRS); /* one SQE per write */
		assert_int_equal(v.st.bytes, off);
		assert_int_equal(v.committed, off);
	} else {
		assert_int_equal(dr, -EFBIG);
		assert_true(queued > 2 * fail + 1);
		assert_int_equal(v.committed, limit - 1000);
		assert_true(v.st.retries >= 1);
	}
	wr_destroy(&x);
	uint8_t *got = malloc(4 * WSIZE);
	assert_non_null(got);
	off = 0;
	for (unsigned i = 0; i < (limit ? fail : NPAIRS); i++) {
		assert_int_equal(pread(fd, got, WSIZE, (off_t)off), WSIZE);
		assert_memory_equal(got, blocks + (size_t)i * WSIZE, WSIZE);
		assert_int_equal(pread(fd, got, MID(i), (off_t)(off + WSIZE)), (ssize_t)MID(i));
		assert_memory_equal(got, pool + (size_t)i * 4 * WSIZE, MID(i));
		off += WSIZE + MID(i);
	}
	assert_int_equal(uring_io_register(&ring, NULL, 0), 0);
	free(got);
	free(blocks);
	free(pool);
	close(fd);
}

static void uring_plugged_pairs(void **state)
{
	(void)state;
	plugged_pairs(NPAIRS); /* no limit */
}

static void uring_plugged_pair_short(void **state)
{
	(void)state;
	plugged_pairs(40);
}
/* What a spilled write's done() saw: which thread ran it. */
struct spill_seen {
	pthread_t caller;
	unsigned calls, on_caller;
	int err;
};

static void on_spill_done(void *ctx, void *arg, int err)
{
	struct spill_seen *s = ctx;
	(void)arg;
	if (pthread_equal(pthread_self(), s->caller))
		s->on_caller++;
	if (err && !s->err)
		s->err = err;
	s->calls++;
}

/*
 * A disk behind the events, as uring_file meets it: every write from a
 * registered (pooled) buffer while one is in flight goes out from spill
 * memory.  The I/O thread makes that copy and gives the pooled buffer
 * back (done()); the caller's thread, the drain loop in perfsink, never
 * copies and never runs a done().  The file holds every byte in order.
 */
static void uring_spill_off_caller(void **state)
{
	(void)state;
	if (!ring.ready)
		skip();
	uint8_t *pool = malloc((size_t)NWRITES * WSIZE);
	assert_non_null(pool);
	for (unsigned i = 0; i < NWRITES; i++) /* every byte set: pattern() leaves tails */
		memset(pool + (size_t)i * WSIZE, (int)(i % 251), WSIZE);
	struct perfsink_region reg = { pool, (size_t)NWRITES * WSIZE };
	assert_int_equal(uring_io_register(&ring, &reg, 1), 0);
	struct uring_spill *sp;
	assert_int_equal(uring_spill_create((size_t)NWRITES * WSIZE, WSIZE, &sp), 0);
	int fd = temp_file();
	struct spill_seen s = { .caller = pthread_self() };
	struct uring_writer_config cfg = { .io = &ring, .fd = fd, .slots = 4, .spill = sp,
					   .spill_at = 1, .done_ctx = &s };
	struct uring_writer *w;
	assert_int_equal(uring_writer_create(&cfg, &w), 0);
	for (unsigned i = 0; i < NWRITES; i++)
		assert_int_equal(uring_writer_write(w, pool + (size_t)i * WSIZE, WSIZE, on_spill_done, NULL), 0);
	assert_int_equal(uring_writer_drain(w), 0);
	struct uring_writer_stats st;
	uring_writer_stats(w, &st);
	uring_writer_destroy(w);
	assert_int_equal(s.calls, NWRITES);
	assert_int_equal(s.err, 0);
	assert_int_equal(s.on_caller, 0);
	assert_true(st.spilled > 0);
	assert_int_equal(uring_spill_in_use(sp), 0);
	uint8_t *got = malloc((size_t)NWRITES * WSIZE);
	assert_non_null(got);
	assert_int_equal(pread(fd, got, (size_t)NWRITES * WSIZE, 0), (ssize_t)NWRITES * WSIZE);
	assert_memory_equal(got, pool, (size_t)NWRITES * WSIZE);
	free(got);
	uring_spill_destroy(sp);
	assert_int_equal(uring_io_register(&ring, NULL, 0), 0);
	free(pool);
	close(fd);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(aio_in_order),
		cmocka_unit_test(aio_sticky_error),
#ifdef HAVE_URING_WRITER
		cmocka_unit_test(uring_in_order),
		cmocka_unit_test(uring_sticky_error),
		cmocka_unit_test(uring_plugged_pairs),
		cmocka_unit_test(uring_plugged_pair_short),
		cmocka_unit_test(uring_spill_off_caller),
#endif
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
