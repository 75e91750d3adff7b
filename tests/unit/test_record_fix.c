/*
 * record_fix: KSYMBOL and BPF_EVENT records whose header.size the kernel
 * grew by other recorders' trailers are repaired in place; every other
 * record is left byte for byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include "engine/record_fix.h"

#define ID 32 /* TID, TIME, CPU, IDENTIFIER: the tracking event's trailer */
static const uint8_t trailer[ID] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
				     17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32 };

/* rec as the kernel writes it: fixed part, name, trailer; then stale bytes to size. */
static unsigned make(uint8_t *rec, uint32_t type, const char *name, unsigned extra)
{
	unsigned body = type == PERF_RECORD_KSYMBOL ? 24 + ((strlen(name) + 1 + 7) & ~7u) : 24;
	memset(rec, 0xee, 512); /* stale ring bytes */
	memset(rec, 0, body);
	struct perf_event_header h = { type, 0, (uint16_t)(body + ID + extra) };
	memcpy(rec, &h, sizeof(h));
	if (type == PERF_RECORD_KSYMBOL)
		strcpy((char *)rec + 24, name);
	memcpy(rec + body, trailer, ID);
	return body;
}

static void repaired(void **state)
{
	static const struct { uint32_t type; const char *name; unsigned extra; } t[] = {
		{ PERF_RECORD_KSYMBOL, "bpf_prog_c68becc5ecf17be0", 32 },
		{ PERF_RECORD_KSYMBOL, "bpf_prog_c68becc5ecf17be0", 64 },
		{ PERF_RECORD_KSYMBOL, "bpf_prog_0123456", 8 }, /* a 16-byte name */
		{ PERF_RECORD_BPF_EVENT, NULL, 32 },
		{ PERF_RECORD_BPF_EVENT, NULL, 40 },
	};
	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint8_t rec[512];
		unsigned body = make(rec, t[i].type, t[i].name, t[i].extra);
		unsigned size = body + ID + t[i].extra;
		assert_int_equal(record_fix_size(rec, ID), 1);
		struct perf_event_header h;
		memcpy(&h, rec, sizeof(h));
		assert_int_equal(h.size, size); /* the stream keeps its layout */
		assert_memory_equal(rec + size - ID, trailer, ID); /* perf reads it from the end */
		for (unsigned b = body; b < size - ID; b++)
			assert_int_equal(rec[b], 0);
		if (t[i].name)
			assert_string_equal((char *)rec + 24, t[i].name);
	}
}

static void left_alone(void **state)
{
	static const struct { uint32_t type; const char *name; unsigned extra; unsigned id; } t[] = {
		{ PERF_RECORD_KSYMBOL, "bpf_prog_c68becc5ecf17be0", 0, ID },  /* right */
		{ PERF_RECORD_BPF_EVENT, NULL, 0, ID },                       /* right */
		{ PERF_RECORD_KSYMBOL, "bpf_prog_c68becc5ecf17be0", 32, 0 },  /* no trailer known */
		{ PERF_RECORD_SAMPLE, NULL, 32, ID },                         /* another type */
		{ PERF_RECORD_MMAP2, NULL, 32, ID },
	};
	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint8_t rec[512], before[512];
		make(rec, t[i].type, t[i].name, t[i].extra);
		memcpy(before, rec, sizeof(rec));
		assert_int_equal(record_fix_size(rec, t[i].id), 0);
		assert_memory_equal(rec, before, sizeof(rec));
	}
}

/* A name with no NUL before the trailer is not understood: left as it is. */
static void unterminated_name_left_alone(void **state)
{
	uint8_t rec[512], before[512];
	make(rec, PERF_RECORD_KSYMBOL, "x", 32);
	struct perf_event_header h;
	memcpy(&h, rec, sizeof(h));
	memset(rec + 24, 'a', h.size - 24 - ID);
	memcpy(before, rec, sizeof(rec));
	assert_int_equal(record_fix_size(rec, ID), 0);
	assert_memory_equal(rec, before, sizeof(rec));
}

static void id_size_of_sample_type(void **state)
{
	assert_int_equal(record_id_size(0), 0);
	assert_int_equal(record_id_size(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
					PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER), 32);
	assert_int_equal(record_id_size(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
					PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
					PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_CALLCHAIN),
			 48);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(repaired),
		cmocka_unit_test(left_alone),
		cmocka_unit_test(unterminated_name_left_alone),
		cmocka_unit_test(id_size_of_sample_type),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
