/* ring_read on an in-memory ring laid out like the kernel's mmap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "engine/ring.h"

#define DATA 4096

struct fake {
	struct ring r;
	struct perf_event_mmap_page pc;
	uint8_t data[DATA];
	uint64_t next; /* next byte value written */
};

static void fake_init(struct fake *f, uint64_t start)
{
	memset(f, 0, sizeof(*f));
	f->r.pc = &f->pc;
	f->r.data = f->data;
	f->r.size = DATA;
	f->pc.data_head = f->pc.data_tail = start;
}

/* Kernel side: append one record of size bytes with a counting payload. */
static void produce(struct fake *f, uint16_t size)
{
	uint64_t head = f->pc.data_head;
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = size };
	uint8_t rec[1024];
	memcpy(rec, &h, sizeof(h));
	for (uint16_t i = sizeof(h); i < size; i++)
		rec[i] = (uint8_t)(f->next++);
	for (uint16_t i = 0; i < size; i++)
		f->data[(head + i) & (DATA - 1)] = rec[i];
	f->pc.data_head = head + size;
}

static void empty_ring_reads_nothing(void **state)
{
	struct fake f;
	uint8_t out[DATA];
	fake_init(&f, 0);
	assert_int_equal(ring_ready(&f.r), 0);
	assert_int_equal(ring_read(&f.r, out, sizeof(out), NULL, NULL), 0);
	assert_int_equal(f.pc.data_tail, 0);
}

static void read_releases_tail_at_once(void **state)
{
	struct fake f;
	uint8_t out[DATA];
	fake_init(&f, 0);
	produce(&f, 64);
	produce(&f, 128);
	assert_int_equal(ring_ready(&f.r), 192);
	assert_int_equal(ring_read(&f.r, out, sizeof(out), NULL, NULL), 192);
	assert_int_equal(f.pc.data_tail, 192);
	assert_int_equal(((struct perf_event_header *)out)->size, 64);
	assert_int_equal(((struct perf_event_header *)(out + 64))->size, 128);
	assert_int_equal(f.r.bytes, 192);
}

/* Start near the end so a record body straddles the wrap; head never wraps. */
static void wraparound_copies_two_pieces(void **state)
{
	static const uint64_t starts[] = { DATA - 8, DATA - 64, 3 * DATA - 200, (1ULL << 40) - 24 };
	for (size_t s = 0; s < sizeof(starts) / sizeof(starts[0]); s++) {
		struct fake f;
		uint8_t out[DATA];
		fake_init(&f, starts[s]);
		produce(&f, 256);
		produce(&f, 40);
		size_t n = ring_read(&f.r, out, sizeof(out), NULL, NULL);
		assert_int_equal(n, 296);
		assert_int_equal(f.pc.data_tail, starts[s] + 296);
		/* Payload bytes count up across the wrap: proves piece order. */
		assert_int_equal(((struct perf_event_header *)out)->size, 256);
		for (int i = 9; i < 256; i++)
			assert_int_equal(out[i], (uint8_t)(out[i - 1] + 1));
		assert_int_equal(((struct perf_event_header *)(out + 256))->size, 40);
	}
}

static void full_ring_is_read_whole(void **state)
{
	struct fake f;
	uint8_t out[DATA];
	fake_init(&f, 100 * DATA + 512);
	for (int i = 0; i < DATA / 512; i++)
		produce(&f, 512);
	assert_int_equal(ring_ready(&f.r), DATA);
	assert_int_equal(ring_read(&f.r, out, sizeof(out), NULL, NULL), DATA);
	assert_int_equal(ring_ready(&f.r), 0);
}

/* A too small destination gets whole records only; the rest stays. */
static void small_destination_keeps_record_boundaries(void **state)
{
	struct fake f;
	uint8_t out[DATA];
	fake_init(&f, DATA - 32);
	produce(&f, 200);
	produce(&f, 200);
	produce(&f, 200);
	assert_int_equal(ring_read(&f.r, out, 450, NULL, NULL), 400);
	assert_int_equal(ring_ready(&f.r), 200);
	assert_int_equal(ring_read(&f.r, out, sizeof(out), NULL, NULL), 200);
}

/* The piece callback: every copied byte reported once, in order, in pieces
 * of RING_PIECE bytes, the data in dst already there when reported. */
struct seen_log {
	size_t calls, last_done, off, records, bad;
};

static void log_piece(void *arg, const uint8_t *dst, size_t done)
{
	struct seen_log *l = arg;
	if (done <= l->last_done || done - l->last_done > RING_PIECE)
		l->bad++;
	l->calls++;
	l->last_done = done;
	/* Walk the whole records copied so far, as the engine does. */
	while (l->off + 8 <= done) {
		const struct perf_event_header *h = (const void *)(dst + l->off);
		if (h->size < 8 || h->type != PERF_RECORD_SAMPLE)
			l->bad++;
		if (h->size < 8 || l->off + h->size > done)
			break;
		l->off += h->size;
		l->records++;
	}
}

static void pieces_cover_a_wrapped_read_in_order(void **state)
{
	enum { BIG = 4 * RING_PIECE };
	struct big { struct ring r; struct perf_event_mmap_page pc; } *f = calloc(1, sizeof(*f));
	uint8_t *data = calloc(1, BIG), *out = calloc(1, BIG);
	assert_non_null(f && data && out);
	f->r.pc = &f->pc;
	f->r.data = data;
	f->r.size = BIG;
	/* Start 1000 bytes before the end: the read wraps inside a piece. */
	uint64_t head = 7 * (uint64_t)BIG - 1000, start = head;
	size_t records = 0;
	f->pc.data_tail = head;
	while (head - start + 1000 < BIG - 2048) {
		uint16_t size = (uint16_t)(8 * (3 + records % 120));
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = size };
		for (uint16_t i = 0; i < size; i++)
			data[(head + i) & (BIG - 1)] = i < 8 ? ((uint8_t *)&h)[i] : (uint8_t)i;
		head += size;
		records++;
	}
	f->pc.data_head = head;
	struct seen_log l = { 0 };
	size_t n = ring_read(&f->r, out, BIG, log_piece, &l);
	assert_int_equal(n, head - start);
	assert_int_equal(l.bad, 0);
	assert_int_equal(l.last_done, n);
	assert_int_equal(l.calls, (n + RING_PIECE - 1) / RING_PIECE);
	assert_int_equal(l.records, records);
	assert_int_equal(l.off, n);
	free(f);
	free(data);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(empty_ring_reads_nothing),
		cmocka_unit_test(read_releases_tail_at_once),
		cmocka_unit_test(wraparound_copies_two_pieces),
		cmocka_unit_test(full_ring_is_read_whole),
		cmocka_unit_test(small_destination_keeps_record_boundaries),
		cmocka_unit_test(pieces_cover_a_wrapped_read_in_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
