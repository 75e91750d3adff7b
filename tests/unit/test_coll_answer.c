/*
 * struct perfsink_coll_answer: the bounded start of a collector's answer
 * that the shipper's transfers and ls/fetch keep.  Tables of chunks as
 * libcurl hands them over, and of answers with the XML field looked for.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <perfsink/collector.h>

#define MAX PERFSINK_COLL_ANSWER_MAX

/* Chunks in: every one reported taken whole, only the first MAX - 1 bytes kept. */
static void answer_bounded(void **state)
{
	static const struct {
		size_t chunk, chunks; /* chunks of chunk bytes */
		size_t kept;
	} t[] = {
		{ 0, 1, 0 },
		{ 10, 1, 10 },
		{ MAX - 1, 1, MAX - 1 },
		{ MAX, 1, MAX - 1 },
		{ 1000, 5, MAX - 1 },
		{ 1, MAX + 7, MAX - 1 },
		{ 1 << 20, 3, MAX - 1 },
	};
	(void)state;
	char *buf = malloc(1 << 20);
	assert_non_null(buf);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct perfsink_coll_answer *a = malloc(sizeof(*a));
		assert_non_null(a);
		memset(a->text, 'z', sizeof(a->text));
		a->len = 99;
		perfsink_coll_answer_reset(a);
		assert_int_equal(a->len, 0);
		assert_string_equal(a->text, "");
		for (size_t k = 0; k < t[i].chunks; k++) {
			memset(buf, 'a' + (int)(k % 26), t[i].chunk);
			/* as libcurl calls it: size 1, n bytes */
			assert_int_equal(perfsink_coll_answer_write(buf, 1, t[i].chunk, a), t[i].chunk);
		}
		assert_int_equal(a->len, t[i].kept);
		assert_int_equal(strlen(a->text), t[i].kept);
		if (t[i].kept)
			assert_int_equal(a->text[0], 'a');
		free(a);
	}
	free(buf);
}

/* Fields: the first <tag>, its </tag> after it; not found, or too long for out: 0. */
static void answer_xml(void **state)
{
	static const struct {
		const char *text;
		const char *tag;
		size_t n;          /* size of out */
		const char *want;  /* NULL: 0 */
	} t[] = {
		{ "<Error><Code>NoSuchBucket</Code></Error>", "Code", 64, "NoSuchBucket" },
		{ "<Code></Code>", "Code", 64, "" },
		{ "<Code>AccessDenied</Code><Code>Other</Code>", "Code", 64, "AccessDenied" },
		{ "</Code>x<Code>Late</Code>", "Code", 64, "Late" },
		{ "<Code>Unclosed", "Code", 64, NULL },
		{ "no xml at all", "Code", 64, NULL },
		{ "", "Code", 64, NULL },
		{ "<code>lower</code>", "Code", 64, NULL },
		{ "<Codes>x</Codes>", "Code", 64, NULL },
		{ "<Code>1234567</Code>", "Code", 8, "1234567" },
		{ "<Code>12345678</Code>", "Code", 8, NULL },
		{ "<InitiateMultipartUploadResult><UploadId>abc.DEF-1</UploadId>"
		  "</InitiateMultipartUploadResult>", "UploadId", MAX, "abc.DEF-1" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct perfsink_coll_answer *a = calloc(1, sizeof(*a));
		char out[MAX] = "untouched";

		assert_non_null(a);
		perfsink_coll_answer_add(a, t[i].text, strlen(t[i].text));
		int got = perfsink_coll_answer_xml(a, t[i].tag, out, t[i].n);
		print_message("row %zu: %d \"%s\"\n", i, got, out);
		assert_int_equal(got, t[i].want != NULL);
		assert_string_equal(out, t[i].want ? t[i].want : "untouched");
		free(a);
	}
}

/* What lies past the kept start is not found; a NUL in it hides nothing after it. */
static void answer_xml_edges(void **state)
{
	struct perfsink_coll_answer *a = calloc(1, sizeof(*a));
	static const char nul[] = "junk\0<Code>AfterNul</Code>";
	char out[64];
	char pad[MAX];

	(void)state;
	assert_non_null(a);
	perfsink_coll_answer_add(a, nul, sizeof(nul) - 1);
	assert_int_equal(perfsink_coll_answer_xml(a, "Code", out, sizeof(out)), 1);
	assert_string_equal(out, "AfterNul");

	perfsink_coll_answer_reset(a);
	memset(pad, ' ', sizeof(pad));
	perfsink_coll_answer_add(a, pad, MAX - 12);
	perfsink_coll_answer_add(a, "<Code>Cut</Code>", 16); /* the close tag is past the cap */
	assert_int_equal(a->len, MAX - 1);
	assert_int_equal(perfsink_coll_answer_xml(a, "Code", out, sizeof(out)), 0);
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(answer_bounded),
		cmocka_unit_test(answer_xml),
		cmocka_unit_test(answer_xml_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
