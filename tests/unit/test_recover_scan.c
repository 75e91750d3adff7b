/*
 * rscan_walk (perfsink recover's record walk): where the data of a killed
 * recording ends, for each way its last bytes can look, and what the kept
 * records hold (samples, their times, COMPRESSED sizes).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif
#include "base/bytes.h"
#include "recover/recover_scan.h"

#define START 4096 /* records begin after a page of "header", as in perfsink's files */
#define TIME_OFF 24 /* SAMPLE: header, ip, pid/tid, time */

static void put_hdr(struct bytes *b, uint32_t type, uint16_t size)
{
	struct perf_event_header h = { .type = type, .misc = 0, .size = size };
	bytes_add(b, &h, sizeof(h));
}

/* A record of size bytes whose payload is non-zero. */
static void put_rec(struct bytes *b, uint32_t type, uint16_t size)
{
	put_hdr(b, type, size);
	for (unsigned i = 8; i < size; i++)
		bytes_add(b, "\xab", 1);
}

static void put_sample(struct bytes *b, uint64_t time)
{
	put_hdr(b, PERF_RECORD_SAMPLE, 32);
	bytes_u64(b, 0xffffffff81000000ULL);
	bytes_u64(b, 0x0000002a0000002aULL);
	bytes_u64(b, time);
}

static void file_init(struct bytes *b)
{
	bytes_init(b);
	bytes_zero(b, START);
}

static void walk(const struct bytes *f, bool check, struct rscan_result *r)
{
	struct rscan_opts o = { f->p, START, f->len, check, TIME_OFF, NULL };
	assert_int_equal(rscan_walk(&o, r), 0);
}

struct end_case {
	const char *what;
	void (*tail)(struct bytes *b); /* appended after three good samples */
	const char *stop;
};

static void tail_none(struct bytes *b) { (void)b; }
static void tail_zeros(struct bytes *b) { bytes_zero(b, 64); }
static void tail_small(struct bytes *b) { put_hdr(b, PERF_RECORD_SAMPLE, 4); bytes_zero(b, 8); }
static void tail_unknown(struct bytes *b) { put_rec(b, 200, 16); }
static void tail_unaligned(struct bytes *b) { put_rec(b, PERF_RECORD_SAMPLE, 12); bytes_zero(b, 4); }
static void tail_auxtrace(struct bytes *b) { put_rec(b, 71, 48); }
static void tail_cut(struct bytes *b) { put_hdr(b, PERF_RECORD_SAMPLE, 64); bytes_zero(b, 32); }
static void tail_header_cut(struct bytes *b) { bytes_add(b, "\x09\0\0\0", 4); }

static const struct end_case end_cases[] = {
	{ "clean end", tail_none, "the end of the file" },
	{ "zeros (a hole)", tail_zeros, "zeros" },
	{ "size below 8", tail_small, "a record smaller than its header" },
	{ "unknown type", tail_unknown, "bytes that are not a record" },
	{ "size not a multiple of 8", tail_unaligned, "bytes that are not a record" },
	{ "AUXTRACE (payload outside its size)", tail_auxtrace, "bytes that are not a record" },
	{ "record cut short", tail_cut, "a record cut short" },
	{ "header cut short", tail_header_cut, "a record header cut short" },
};

static void data_ends_at_last_whole_record(void **state)
{
	for (size_t i = 0; i < sizeof(end_cases) / sizeof(end_cases[0]); i++) {
		struct bytes f;
		struct rscan_result r;
		file_init(&f);
		put_sample(&f, 5);
		put_rec(&f, PERF_RECORD_MMAP2, 96);
		put_sample(&f, 3);
		put_sample(&f, 9);
		size_t good = f.len;
		end_cases[i].tail(&f);
		walk(&f, true, &r);
		print_message("# %s: end %llu, stop '%s'\n", end_cases[i].what,
			      (unsigned long long)r.end, r.stop);
		assert_int_equal(r.end, good);
		assert_int_equal(r.records, 4);
		assert_string_equal(r.stop, end_cases[i].stop);
		assert_int_equal(r.samples, 3);
		assert_int_equal(r.first_time, 3);
		assert_int_equal(r.last_time, 9);
		bytes_free(&f);
	}
}

/* A record straddling a page boundary, zero from the boundary on: torn. */
static void torn_record_is_dropped(void **state)
{
	struct bytes f;
	struct rscan_result r;
	file_init(&f);
	while (f.len + 32 <= 2 * START - 16)
		put_sample(&f, 1);
	size_t torn_at = f.len; /* 16 bytes before the page boundary */
	put_rec(&f, PERF_RECORD_SAMPLE, 64);
	memset(f.p + 2 * START, 0, f.len - 2 * START);
	bytes_zero(&f, 64);
	walk(&f, true, &r);
	assert_int_equal(r.end, torn_at);
	assert_string_equal(r.stop, "a record torn by the kill, then zeros");
	bytes_free(&f);

	/* Ending exactly on the boundary, nothing is torn. */
	file_init(&f);
	while (f.len < 2 * START)
		put_sample(&f, 1);
	bytes_zero(&f, 64);
	walk(&f, true, &r);
	assert_int_equal(r.end, 2 * START);
	assert_string_equal(r.stop, "zeros");
	bytes_free(&f);
}

static void empty_data(void **state)
{
	struct bytes f;
	struct rscan_result r;
	file_init(&f);
	walk(&f, true, &r);
	assert_int_equal(r.end, START);
	assert_int_equal(r.records, 0);
	bytes_free(&f);
}

#ifdef HAVE_ZSTD
/* n samples compressed as one flushed piece of one zstd stream, as the sink does. */
static size_t put_compressed(struct bytes *b, ZSTD_CCtx *cc, unsigned n, uint64_t t0)
{
	struct bytes in, out;
	bytes_init(&in);
	bytes_init(&out);
	for (unsigned i = 0; i < n; i++)
		put_sample(&in, t0 + i);
	uint8_t *dst = bytes_reserve(&out, ZSTD_compressBound(in.len) + 64);
	ZSTD_inBuffer zi = { in.p, in.len, 0 };
	ZSTD_outBuffer zo = { dst, ZSTD_compressBound(in.len) + 64, 0 };
	assert_int_equal(ZSTD_compressStream2(cc, &zo, &zi, ZSTD_e_flush), 0);
	put_hdr(b, 81, (uint16_t)(8 + zo.pos)); /* not padded, like perf */
	bytes_add(b, dst, zo.pos);
	size_t raw = in.len;
	bytes_free(&in);
	bytes_free(&out);
	return raw;
}

static void compressed_records_decompress_or_end_the_data(void **state)
{
	struct bytes f;
	struct rscan_result r;
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	file_init(&f);
	size_t a = put_compressed(&f, cc, 10, 100);
	put_rec(&f, 68, 8); /* FINISHED_ROUND, raw, unaligned after an unpadded record */
	size_t b = put_compressed(&f, cc, 30, 200);
	size_t good = f.len;
	put_hdr(&f, 81, 40); /* a COMPRESSED record of garbage */
	for (int i = 0; i < 32; i++)
		bytes_add(&f, "\x5a", 1);
	walk(&f, true, &r);
	assert_int_equal(r.end, good);
	assert_string_equal(r.stop, "a COMPRESSED record that does not decompress");
	assert_int_equal(r.records, 3);
	assert_int_equal(r.compressed, 2);
	assert_int_equal(r.decomp_bytes, a + b);
	assert_int_equal(r.max_decomp, b);
	assert_int_equal(r.samples, 40);
	assert_int_equal(r.first_time, 100);
	assert_int_equal(r.last_time, 229);

	/* Cut inside the second one: the data ends after the first. */
	struct bytes cut;
	bytes_init(&cut);
	bytes_add(&cut, f.p, good - 5);
	walk(&cut, true, &r);
	assert_string_equal(r.stop, "a record cut short");
	assert_int_equal(r.compressed, 1);
	assert_int_equal(r.max_decomp, a);

	/* Without the check (a complete file's walk), sizes only. */
	walk(&f, false, &r);
	assert_int_equal(r.records, 4);
	assert_int_equal(r.compressed, 0);
	bytes_free(&cut);
	bytes_free(&f);
	ZSTD_freeCCtx(cc);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(data_ends_at_last_whole_record),
		cmocka_unit_test(torn_record_is_dropped),
		cmocka_unit_test(empty_data),
#ifdef HAVE_ZSTD
		cmocka_unit_test(compressed_records_decompress_or_end_the_data),
#endif
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
