/*
 * zstd framing: the kit's COMPRESSED records (what the engine's stage
 * uses), and the zstd sink's batches of what the stage hands it, decoded
 * back the way perf 6.1 reads them (zstd_decode.c).  Table-driven over
 * sizes around the flush group, compressible and random data, flushed and
 * ended frames, and batch layouts.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "zs_batch.h"
#include <perfsink/kit.h>
#include "zstd_decode.h"

static uint8_t *fake_bytes(size_t len, unsigned seed, int compressible)
{
	uint8_t *p = malloc(len + 16);
	size_t i;

	assert_non_null(p);
	srand(seed);
	for (i = 0; i < len; i++)
		p[i] = compressible ? (uint8_t)("perf record -z "[(i / 3) % 15] + (rand() % 4 == 0))
				    : (uint8_t)rand();
	return p;
}

/* Decode out as a data section and compare with want. */
static void expect_decodes(const struct perfsink_kit_buf *out, const uint8_t *want, size_t len,
			   struct zdec *d)
{
	char err[200] = "";

	if (zdec_section(out->data, out->len, PERFSINK_KIT_Z_GROUP_MAX, d, err, sizeof(err)) != 0)
		fail_msg("decode: %s", err);
	assert_int_equal(d->len, len);
	if (len)
		assert_memory_equal(d->data, want, len);
	assert_true(d->max_record <= 65535);
	assert_true(d->max_decomp <= PERFSINK_KIT_Z_GROUP_MAX);
}

static const uint8_t round_rec[8] = { 68, 0, 0, 0, 0, 0, 8, 0 };

static const size_t frame_sizes[] = {
	1, 8, 4096, PERFSINK_KIT_Z_GROUP_MAX - 1, PERFSINK_KIT_Z_GROUP_MAX, PERFSINK_KIT_Z_GROUP_MAX + 1,
	3 * PERFSINK_KIT_Z_GROUP_MAX, 1 << 20,
};

static void frame_case(size_t len, int compressible, enum perfsink_kit_zmode mode)
{
	uint8_t *in = fake_bytes(len, (unsigned)len, compressible);
	struct perfsink_kit_buf out = { 0 };
	struct perfsink_kit_zframe f;
	struct zdec d;
	size_t off = 0;

	assert_int_equal(perfsink_kit_zframe_init(&f, 1), 0);
	srand((unsigned)len * 7);
	while (off < len) { /* pieces of random size, the last one with mode */
		size_t n = 1 + (size_t)rand() % 20000;

		if (n >= len - off)
			n = len - off;
		assert_int_equal(perfsink_kit_zframe_put(&f, &out, in + off, n,
					      off + n == len ? mode : PERFSINK_KIT_Z_KEEP), 0);
		off += n;
	}
	expect_decodes(&out, in, len, &d);
	assert_int_equal(d.frames, 1);
	assert_int_equal(d.frame_open, mode == PERFSINK_KIT_Z_FLUSH);
	assert_int_equal(d.compressed, (len + PERFSINK_KIT_Z_GROUP_MAX - 1) / PERFSINK_KIT_Z_GROUP_MAX);
	assert_int_equal(f.in_bytes, len);
	assert_int_equal(f.out_bytes, out.len);
	zdec_free(&d);
	perfsink_kit_buf_free(&out);
	perfsink_kit_zframe_fini(&f);
	free(in);
}

static void test_frame_sizes(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(frame_sizes) / sizeof(frame_sizes[0]); i++) {
		frame_case(frame_sizes[i], 1, PERFSINK_KIT_Z_FLUSH);
		frame_case(frame_sizes[i], 1, PERFSINK_KIT_Z_END);
		frame_case(frame_sizes[i], 0, PERFSINK_KIT_Z_FLUSH); /* incompressible: worst record size */
		frame_case(frame_sizes[i], 0, PERFSINK_KIT_Z_END);
	}
}

static void test_frame_levels(void **state)
{
	static const int levels[] = { 1, 3, 19, 22 };
	size_t len = 200 * 1024, i;
	uint8_t *in = malloc(len);

	(void)state;
	zdec_fake_records(in, len, 5, 1);
	for (i = 0; i < 4; i++) {
		struct perfsink_kit_buf out = { 0 };
		struct perfsink_kit_zframe f;
		struct zdec d;

		assert_int_equal(perfsink_kit_zframe_init(&f, levels[i]), 0);
		assert_int_equal(perfsink_kit_zframe_put(&f, &out, in, len, PERFSINK_KIT_Z_END), 0);
		expect_decodes(&out, in, len, &d);
		assert_true(out.len < len / 4);
		zdec_free(&d);
		perfsink_kit_buf_free(&out);
		perfsink_kit_zframe_fini(&f);
	}
	free(in);
}

/* Ending a frame needs a group with data: perf rejects an empty record. */
static void test_frame_end_needs_data(void **state)
{
	struct perfsink_kit_buf out = { 0 };
	struct perfsink_kit_zframe f;
	size_t len;

	(void)state;
	assert_int_equal(perfsink_kit_zframe_init(&f, 1), 0);
	assert_int_equal(perfsink_kit_zframe_put(&f, &out, NULL, 0, PERFSINK_KIT_Z_FLUSH), 0);
	assert_int_equal(out.len, 0); /* nothing begun, nothing written */
	assert_int_equal(perfsink_kit_zframe_put(&f, &out, "abcdefgh", 8, PERFSINK_KIT_Z_FLUSH), 0);
	len = out.len;
	assert_int_equal(perfsink_kit_zframe_put(&f, &out, NULL, 0, PERFSINK_KIT_Z_FLUSH), 0);
	assert_int_equal(out.len, len);
	assert_int_equal(perfsink_kit_zframe_put(&f, &out, NULL, 0, PERFSINK_KIT_Z_END), -EINVAL);
	assert_int_equal(perfsink_kit_zframe_reset(&f), 0);
	assert_int_equal(perfsink_kit_zframe_put(&f, &out, NULL, 0, PERFSINK_KIT_Z_END), 0);
	perfsink_kit_buf_free(&out);
	perfsink_kit_zframe_fini(&f);
}

/*
 * The framer the engine's stage uses (perfsink_kit_zframe_records, at
 * PERFSINK_Z_CHUNK): chunks of whole records, an incompressible record
 * kept raw, the FINISHED_ROUND last as it was.  (Was the http sink's
 * test_compress, of the compressor it no longer has.)
 */
static void test_frame_records(void **state)
{
	static uint8_t in[250000];
	static const uint8_t big[8] = { 9, 0, 0, 0, 0, 0, 0x60, 0xea }; /* 60000 bytes */
	struct perfsink_kit_buf out = { 0 };
	struct perfsink_kit_zframe f;
	struct zdec d;
	size_t n = 150000, i;

	(void)state;
	zdec_fake_records(in, n, 9, 1);
	memcpy(in + n, big, 8);
	srand(1);
	for (i = 8; i < 60000; i++)
		in[n + i] = (uint8_t)rand();
	n += 60000;
	memcpy(in + n, round_rec, 8);
	n += 8;
	assert_int_equal(perfsink_kit_zframe_init(&f, 1), 0);
	assert_int_equal(perfsink_kit_zframe_records(&f, &out, in, n, 8, PERFSINK_Z_CHUNK), 0);
	assert_true(out.len < n);
	expect_decodes(&out, in, n, &d);
	assert_true(d.compressed >= 150000 / PERFSINK_Z_CHUNK);
	assert_int_equal(d.frame_open, 0);
	assert_memory_equal(out.data + out.len - 8, round_rec, 8);
	zdec_free(&d);
	perfsink_kit_buf_free(&out);
	perfsink_kit_zframe_fini(&f);
}

/* ------------------------------------------------------------ batches */

struct tbuf {
	struct perfsink_buf pub;
	uint8_t *mem;              /* its raw records */
	struct perfsink_kit_buf z; /* a RING buffer COMPRESSED, as the stage hands it */
	int refs;
};

/* A buffer of len record bytes (RING: plus a round when round is set). */
static void tbuf_make(struct tbuf *t, uint32_t kind, size_t len, int round, unsigned seed)
{
	size_t total = len + (round ? 8 : 0);

	memset(t, 0, sizeof(*t));
	t->mem = malloc(total + 8);
	assert_non_null(t->mem);
	if (len)
		zdec_fake_records(t->mem, len, seed, 1);
	if (round)
		memcpy(t->mem + len, round_rec, 8);
	t->pub.data = t->mem;
	t->pub.len = total;
	t->pub.kind = kind;
	t->pub.tail_round = round ? 8 : 0;
	t->pub.cpu = kind == PERFSINK_BUF_RING ? 0 : -1;
	t->pub.raw_len = total;
}

/* The engine's stage (sink ABI 1.9): a RING buffer COMPRESSED by the kit's framer. */
static void tbuf_stage(struct tbuf *t, struct perfsink_kit_zframe *f)
{
	if (t->pub.kind != PERFSINK_BUF_RING)
		return;
	assert_int_equal(perfsink_kit_zframe_records(f, &t->z, t->mem, t->pub.len, t->pub.tail_round,
						     PERFSINK_Z_CHUNK), 0);
	t->pub.records = (uint32_t)perfsink_kit_records_count(t->mem, t->pub.len, NULL);
	t->pub.data = t->z.data;
	t->pub.len = t->z.len;
	t->pub.kind = PERFSINK_BUF_COMPRESSED;
}

static void tbuf_free(struct tbuf *t)
{
	assert_int_equal(t->refs, 0);
	perfsink_kit_buf_free(&t->z);
	free(t->mem);
}

static void tput(void *arg, struct perfsink_buf *buf)
{
	(void)arg;
	((struct tbuf *)buf)->refs--;
}

/* The raw records of t[0..n), in order: what the batches must decode to. */
static void cat_bufs(struct tbuf *t, unsigned n, uint8_t **out, size_t *len)
{
	unsigned i;

	*len = 0;
	for (i = 0; i < n; i++)
		*len += t[i].pub.raw_len;
	*out = malloc(*len + 1);
	*len = 0;
	for (i = 0; i < n; i++) {
		memcpy(*out + *len, t[i].mem, t[i].pub.raw_len);
		*len += t[i].pub.raw_len;
	}
}

/* Feed bufs [from, to) into one batch: their bytes copied as they are. */
static void batch_run(struct zs_batch *b, struct tbuf *t, unsigned from, unsigned to)
{
	size_t len = 0;
	unsigned i;

	for (i = from; i < to; i++) {
		t[i].refs++;
		assert_int_equal(zs_batch_add(b, &t[i].pub), 0);
	}
	for (i = from; i < to; i++) {
		assert_int_equal(zs_batch_feed(b, b->bufs[b->taken]), 0);
		tput(NULL, b->bufs[b->taken]);
		b->bufs[b->taken++] = NULL;
	}
	for (i = from; i < to; i++) {
		assert_true(b->out.len >= len + t[i].pub.len);
		assert_memory_equal(b->out.data + len, t[i].pub.data, t[i].pub.len);
		len += t[i].pub.len;
	}
	assert_int_equal(b->out.len, len);
}

/* Raw SYNTH in place, each FINISHED_ROUND right after the data it closes. */
static void test_batch_layout(void **state)
{
	struct tbuf t[7];
	struct zs_batch *b = zs_batch_new();
	struct perfsink_kit_zframe f;
	struct zdec d;
	uint8_t *want;
	size_t len;
	unsigned i;

	(void)state;
	assert_int_equal(perfsink_kit_zframe_init(&f, 1), 0);
	tbuf_make(&t[0], PERFSINK_BUF_SYNTH, 4096, 0, 1);
	tbuf_make(&t[1], PERFSINK_BUF_RING, 70000, 1, 2);
	tbuf_make(&t[2], PERFSINK_BUF_RING, 0, 1, 3);   /* a round alone */
	tbuf_make(&t[3], PERFSINK_BUF_RING, 5000, 0, 4);
	tbuf_make(&t[4], PERFSINK_BUF_RING, 3000, 1, 5);
	tbuf_make(&t[5], PERFSINK_BUF_SYNTH, 800, 0, 6);
	tbuf_make(&t[6], PERFSINK_BUF_RING, 200, 1, 7);
	for (i = 0; i < 7; i++)
		tbuf_stage(&t[i], &f);
	batch_run(b, t, 0, 7);
	cat_bufs(t, 7, &want, &len);
	expect_decodes(&b->out, want, len, &d);
	assert_int_equal(d.frame_open, 0);
	assert_int_equal(b->records, perfsink_kit_records_count(want, len, NULL));
	assert_int_equal(b->in_bytes, len);
	for (i = 0; i < 7; i++)
		tbuf_free(&t[i]);
	free(want);
	zdec_free(&d);
	zs_batch_free(b);
	perfsink_kit_zframe_fini(&f);
}

/*
 * Random sequences cut into random batches: together they decode to the
 * raw records, and each batch alone too (the stage's frames are
 * independent, so a batch never depends on the one before).
 */
static void batch_random(unsigned seed)
{
	enum { N = 60 };
	struct tbuf t[N];
	struct perfsink_kit_buf all = { 0 };
	struct perfsink_kit_zframe f;
	struct zdec d;
	unsigned i, from = 0;
	uint8_t *want;
	size_t len;

	srand(seed);
	assert_int_equal(perfsink_kit_zframe_init(&f, 1), 0);
	for (i = 0; i < N; i++) {
		int r = rand();

		tbuf_make(&t[i], r % 7 == 0 ? PERFSINK_BUF_SYNTH : PERFSINK_BUF_RING,
			  8 * (size_t)(r % 3 == 0 ? rand() % 30000 : rand() % 400), r % 2, seed + i);
		if (t[i].pub.kind == PERFSINK_BUF_SYNTH && t[i].pub.len == 0) {
			tbuf_free(&t[i]);
			tbuf_make(&t[i], PERFSINK_BUF_SYNTH, 64, 0, seed + i);
		}
		tbuf_stage(&t[i], &f);
	}
	while (from < N) {
		unsigned to = from + 1 + (unsigned)rand() % 12;
		struct zs_batch *b = zs_batch_new();
		uint8_t *part;
		size_t part_len;

		if (to > N)
			to = N;
		batch_run(b, t, from, to);
		cat_bufs(t + from, to - from, &part, &part_len);
		expect_decodes(&b->out, part, part_len, &d);
		assert_int_equal(d.frame_open, 0);
		zdec_free(&d);
		free(part);
		assert_int_equal(perfsink_kit_buf_append(&all, b->out.data, b->out.len), 0);
		zs_batch_free(b);
		from = to;
	}
	cat_bufs(t, N, &want, &len);
	expect_decodes(&all, want, len, &d);
	for (i = 0; i < N; i++)
		tbuf_free(&t[i]);
	free(want);
	zdec_free(&d);
	perfsink_kit_buf_free(&all);
	perfsink_kit_zframe_fini(&f);
}

static void test_batch_random(void **state)
{
	unsigned seed;

	(void)state;
	for (seed = 1; seed <= 30; seed++)
		batch_random(seed);
}

/* A batch gives back what it did not take, counting its records. */
static void test_batch_drop(void **state)
{
	struct tbuf t[3];
	struct zs_batch *b = zs_batch_new();
	struct perfsink_kit_zframe f;
	unsigned i;

	(void)state;
	assert_int_equal(perfsink_kit_zframe_init(&f, 1), 0);
	for (i = 0; i < 3; i++) {
		tbuf_make(&t[i], PERFSINK_BUF_RING, 40000, 1, 11 + i);
		tbuf_stage(&t[i], &f);
	}
	batch_run(b, t, 0, 1);
	for (i = 1; i < 3; i++) {
		t[i].refs++;
		assert_int_equal(zs_batch_add(b, &t[i].pub), 0);
	}
	zs_batch_drop(b, tput, NULL);
	assert_int_equal(b->records, t[0].pub.records + t[1].pub.records + t[2].pub.records);
	for (i = 0; i < 3; i++)
		tbuf_free(&t[i]);
	zs_batch_free(b);
	perfsink_kit_zframe_fini(&f);
}

/* The zstd sink counts records with the kit: the host's count, else its own. */
static void test_buf_records(void **state)
{
	uint8_t p[64] = { 0 };
	struct perfsink_buf buf = { .data = p, .len = 48 };
	uint16_t s;

	(void)state;
	s = 16; memcpy(p + 6, &s, 2);
	s = 24; memcpy(p + 16 + 6, &s, 2);
	s = 8;  memcpy(p + 40 + 6, &s, 2);
	assert_int_equal(perfsink_kit_buf_records(&buf), 3);
	buf.len = 40;
	assert_int_equal(perfsink_kit_buf_records(&buf), 2);
	buf.len = 20;
	assert_int_equal(perfsink_kit_buf_records(&buf), 1); /* a cut header does not count */
	buf.records = 7;
	assert_int_equal(perfsink_kit_buf_records(&buf), 7); /* counted by the host */
	buf.records = 0;
	s = 0;  memcpy(p + 6, &s, 2);
	buf.len = 48;
	assert_int_equal(perfsink_kit_buf_records(&buf), 0); /* size 0: stop, never loop */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame_sizes),
		cmocka_unit_test(test_frame_levels),
		cmocka_unit_test(test_frame_end_needs_data),
		cmocka_unit_test(test_frame_records),
		cmocka_unit_test(test_batch_layout),
		cmocka_unit_test(test_batch_random),
		cmocka_unit_test(test_batch_drop),
		cmocka_unit_test(test_buf_records),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
