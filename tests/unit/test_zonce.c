/*
 * Compress once (sink ABI 1.9): the grouping of instances into stages by
 * (level, chunk), a table of requests and the groups they must make; and
 * one stage driven directly: stream order over several workers, SYNTH
 * passed through, a RING buffer's accounting and task records kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include "engine/pool.h"
#include "engine/zgroup.h"
#include "engine/zstage.h"

#define MAXN 6
#define Z PERFSINK_Z_CHUNK

struct group_case {
	const char *what;
	unsigned n;
	struct zwant w[MAXN];
	unsigned ngroups;
	int group_of[MAXN];
	uint32_t threads[MAXN]; /* per group */
	unsigned nr_sinks[MAXN];
};

static const struct group_case group_cases[] = {
	{ "nobody asks", 2, { { 0, 0, 0 }, { 0, 0, 0 } }, 0, { -1, -1 }, { 0 }, { 0 } },
	{ "one asks", 2, { { 0, 0, 0 }, { 1, Z, 2 } }, 1, { -1, 0 }, { 2 }, { 1 } },
	{ "zstd + zstd, same level: one stage", 2, { { 1, Z, 2 }, { 1, Z, 2 } }, 1, { 0, 0 },
	  { 2 }, { 2 } },
	{ "zstd + http, same level: one stage, the zstd's threads", 3,
	  { { 0, 0, 0 }, { 3, Z, 0 }, { 3, Z, 4 } }, 1, { -1, 0, 0 }, { 4 }, { 2 } },
	{ "two levels: two stages", 3, { { 1, Z, 1 }, { 3, Z, 1 }, { 1, Z, 1 } }, 2, { 0, 1, 0 },
	  { 1, 1 }, { 2, 1 } },
	{ "same level, another chunk: another stage", 2, { { 1, Z, 0 }, { 1, 32768, 0 } }, 2,
	  { 0, 1 }, { 1, 1 }, { 1, 1 } },
	{ "threads 0 means at least one", 1, { { 19, Z, 0 } }, 1, { 0 }, { 1 }, { 1 } },
	{ "six sinks, three levels, in the order first asked", 6,
	  { { 5, Z, 1 }, { 1, Z, 2 }, { 5, Z, 3 }, { 0, 0, 0 }, { 9, Z, 1 }, { 1, Z, 1 } }, 3,
	  { 0, 1, 0, -1, 2, 1 }, { 3, 2, 1 }, { 2, 2, 1 } },
};

static void grouping_table(void **state)
{
	(void)state;
	for (unsigned c = 0; c < sizeof(group_cases) / sizeof(group_cases[0]); c++) {
		const struct group_case *t = &group_cases[c];
		struct zgroup g[MAXN];
		int of[MAXN];
		unsigned ng = zgroup_assign(t->w, t->n, of, g);

		print_message("# %s\n", t->what);
		assert_int_equal(ng, t->ngroups);
		for (unsigned i = 0; i < t->n; i++)
			assert_int_equal(of[i], t->group_of[i]);
		for (unsigned k = 0; k < ng; k++) {
			assert_int_equal(g[k].threads, t->threads[k]);
			assert_int_equal(g[k].nr_sinks, t->nr_sinks[k]);
		}
	}
}

/* A heap buffer of `recs` records of `size` bytes of type `type`, then an 8-byte FINISHED_ROUND. */
static struct psbuf *make_buf(uint32_t kind, uint64_t seq, unsigned recs, uint16_t size,
			      uint32_t type)
{
	size_t len = (size_t)recs * size + 8;
	struct psbuf *b = heapbuf_new(len);
	struct perf_event_header h = { type, 0, size }, fr = { 68, 0, 8 };

	assert_non_null(b);
	for (unsigned i = 0; i < recs; i++) {
		memcpy(b->mem + (size_t)i * size, &h, sizeof(h));
		memset(b->mem + (size_t)i * size + sizeof(h), 'a' + (seq % 7), size - sizeof(h));
	}
	memcpy(b->mem + (size_t)recs * size, &fr, sizeof(fr));
	b->pub = (struct perfsink_buf){ .data = b->mem, .len = len, .kind = kind, .cpu = 0,
					.seq = seq, .tail_round = 8, .records = recs + 1 };
	b->samples = recs;
	return b;
}

static void stage_keeps_order_and_accounting(void **state)
{
	struct zstage *z;
	struct zstage_stats st;
	uint64_t in = 0, next = 0;
	enum { N = 200 };

	(void)state;
	assert_int_equal(zstage_create(1, 0, 4, &z), 0);
	for (uint64_t s = 0; s < N; s++) {
		struct psbuf *b = s % 10 == 3 ? make_buf(PERFSINK_BUF_SYNTH, s, 10, 64, PERF_RECORD_COMM)
					      : make_buf(PERFSINK_BUF_RING, s, 2000, 40, PERF_RECORD_SAMPLE);
		in += b->pub.len;
		assert_int_equal(zstage_push(z, b), 0);
		psbuf_put(&b->pub); /* the stage holds its own */
		for (struct psbuf *o; (o = zstage_pop(z, false)); psbuf_put(&o->pub))
			assert_int_equal(o->pub.seq, next++);
	}
	for (struct psbuf *o; (o = zstage_pop(z, true)); psbuf_put(&o->pub)) {
		assert_int_equal(o->pub.seq, next++);
		if (o->pub.seq % 10 == 3) {
			assert_int_equal(o->pub.kind, PERFSINK_BUF_SYNTH);
			continue;
		}
		assert_int_equal(o->pub.kind, PERFSINK_BUF_COMPRESSED);
		assert_int_equal(o->pub.raw_len, 2000 * 40 + 8);
		assert_int_equal(o->pub.records, 2001);
		assert_int_equal(o->samples, 2000);
		assert_true(o->pub.len < o->pub.raw_len / 4);
		/* The FINISHED_ROUND closes it as it was. */
		assert_int_equal(o->pub.data[o->pub.len - 8], 68);
		assert_int_equal(o->pub.task_len, 0);
	}
	assert_int_equal(next, N);
	zstage_stats(z, &st);
	assert_int_equal(st.bytes_in, in);
	assert_int_equal(st.buffers, N);
	assert_true(st.comp_out < st.comp_in);
	zstage_destroy(z);
}

/* A ring buffer with task records carries them raw beside its compressed data. */
static void stage_keeps_task_records(void **state)
{
	struct zstage *z;
	struct psbuf *b = make_buf(PERFSINK_BUF_RING, 0, 30, 48, PERF_RECORD_MMAP2), *o;

	(void)state;
	b->pub.task_records = 30;
	assert_int_equal(zstage_create(3, 0, 1, &z), 0);
	assert_int_equal(zstage_push(z, b), 0);
	psbuf_put(&b->pub);
	o = zstage_pop(z, true);
	assert_non_null(o);
	assert_int_equal(o->pub.task_records, 30);
	assert_int_equal(o->pub.task_len, 30 * 48);
	for (unsigned i = 0; i < 30; i++) {
		struct perf_event_header h;
		memcpy(&h, o->pub.task_data + i * 48, sizeof(h));
		assert_int_equal(h.type, PERF_RECORD_MMAP2);
		assert_int_equal(h.size, 48);
	}
	psbuf_put(&o->pub);
	assert_null(zstage_pop(z, true));
	zstage_destroy(z);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(grouping_table),
		cmocka_unit_test(stage_keeps_order_and_accounting),
		cmocka_unit_test(stage_keeps_task_records),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
