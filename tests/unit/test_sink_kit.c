/*
 * The sink kit (libperfsink-sink) through its installed header: the config
 * fill by offset, the one-table key declaration (1.5), the AIO writer ops
 * (1.5) and the growable buffer.  The framer, records and output
 * files have their own tests (test_zstd_frame, test_http_units,
 * test_output_file), all linking the same library.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>
#include <perfsink/kit.h>

enum { K_NAME, K_LEVEL, K_BIG, K_ON, K_MODE, K_COUNT };

static const struct perfsink_key keys[K_COUNT + 1] = {
	[K_NAME] = { "name", PERFSINK_KEY_PATH, "x", "a path", 0, 0, NULL },
	[K_LEVEL] = { "level", PERFSINK_KEY_INT, "1", "an int", 1, 19, NULL },
	[K_BIG] = { "big", PERFSINK_KEY_SIZE, "1G", "a size", 0, 0, NULL },
	[K_ON] = { "on", PERFSINK_KEY_BOOL, "false", "a bool", 0, 0, NULL },
	[K_MODE] = { "mode", PERFSINK_KEY_ENUM, "a", "an enum", 0, 0, "a|b" },
	{ NULL, 0, NULL, NULL, 0, 0, NULL },
};

enum mode { MODE_A, MODE_B };

struct conf {
	const char *name;
	int level;
	uint64_t big;
	unsigned char on;
	enum mode mode;
	short small;
};

static const struct perfsink_kit_key_map map[] = {
	PERFSINK_KIT_MAP(K_NAME, struct conf, name),
	PERFSINK_KIT_MAP(K_LEVEL, struct conf, level),
	PERFSINK_KIT_MAP(K_BIG, struct conf, big),
	PERFSINK_KIT_MAP(K_ON, struct conf, on),
	PERFSINK_KIT_MAP(K_MODE, struct conf, mode),
	PERFSINK_KIT_MAP_END,
};

static void test_conf_fill(void **state)
{
	const struct perfsink_value v[K_COUNT] = {
		[K_NAME] = { "/tmp/out", 0, 1 },
		[K_LEVEL] = { "7", 7, 1 },
		[K_BIG] = { "8G", 8ll << 30, 1 },
		[K_ON] = { "yes", 1, 1 },
		[K_MODE] = { "b", MODE_B, 1 },
	};
	struct conf c = { 0 };

	(void)state;
	assert_int_equal(perfsink_kit_conf_fill(keys, v, map, &c), 0);
	assert_ptr_equal(c.name, v[K_NAME].str); /* borrowed, not copied */
	assert_int_equal(c.level, 7);
	assert_int_equal(c.big, 8ull << 30);
	assert_int_equal(c.on, 1);
	assert_int_equal(c.mode, MODE_B);
}

static void test_conf_fill_bad_maps(void **state)
{
	const struct perfsink_value v[K_COUNT] = {
		[K_NAME] = { "n", 0, 0 },
		[K_LEVEL] = { "70000", 70000, 1 },
		[K_BIG] = { "1", 1, 0 },
	};
	const struct perfsink_kit_key_map past_end[] = { { K_COUNT, 0, 4 }, PERFSINK_KIT_MAP_END };
	const struct perfsink_kit_key_map text_to_int[] = {
		PERFSINK_KIT_MAP(K_NAME, struct conf, level), PERFSINK_KIT_MAP_END };
	const struct perfsink_kit_key_map odd_size[] = { { K_BIG, 0, 3 }, PERFSINK_KIT_MAP_END };
	const struct perfsink_kit_key_map too_small[] = {
		PERFSINK_KIT_MAP(K_LEVEL, struct conf, small), PERFSINK_KIT_MAP_END };
	struct conf c = { 0 };

	(void)state;
	assert_int_equal(perfsink_kit_conf_fill(keys, v, past_end, &c), -EINVAL);
	assert_int_equal(perfsink_kit_conf_fill(keys, v, text_to_int, &c), -EINVAL);
	assert_int_equal(perfsink_kit_conf_fill(keys, v, odd_size, &c), -EINVAL);
	assert_int_equal(perfsink_kit_conf_fill(keys, v, too_small, &c), -ERANGE);
	assert_int_equal(c.small, 0);
}

/* Kit 1.5: the same keys declared once; ONLY keys get no map entry. */
#define ONE_TABLE_KEYS(KEY, ONLY)                                                    \
	ONLY(D_NAME, "name", PERFSINK_KEY_PATH, "x", 0, 0, NULL, "a path")           \
	KEY(D_LEVEL, "level", PERFSINK_KEY_INT, "1", 1, 19, NULL, "an int", struct conf, level) \
	ONLY(D_ON, "on", PERFSINK_KEY_BOOL, "false", 0, 0, NULL, "a bool")           \
	KEY(D_MODE, "mode", PERFSINK_KEY_ENUM, "a", 0, 0, "a|b", "an enum", struct conf, mode)
PERFSINK_KIT_KEYS(ONE_TABLE_KEYS, one_keys, one_map);

static void test_one_table(void **state)
{
	/* Each generated row, against the hand-written one of the same key. */
	static const struct { unsigned gen, hand; } rows[] = {
		{ D_NAME, K_NAME }, { D_LEVEL, K_LEVEL }, { D_ON, K_ON }, { D_MODE, K_MODE },
	};
	const struct perfsink_value v[] = {
		[D_NAME] = { "/tmp/out", 0, 1 }, [D_LEVEL] = { "7", 7, 1 },
		[D_ON] = { "yes", 1, 1 }, [D_MODE] = { "b", MODE_B, 1 },
	};
	struct conf c = { 0 };

	(void)state;
	assert_int_equal(D_MODE, 3); /* indices in the order listed */
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct perfsink_key *g = &one_keys[rows[i].gen], *h = &keys[rows[i].hand];

		assert_string_equal(g->name, h->name);
		assert_int_equal(g->type, h->type);
		assert_string_equal(g->def, h->def);
		assert_string_equal(g->description, h->description);
		assert_int_equal(g->min, h->min);
		assert_int_equal(g->max, h->max);
		if (h->choices)
			assert_string_equal(g->choices, h->choices);
		else
			assert_null(g->choices);
	}
	assert_null(one_keys[D_MODE + 1].name); /* ended */
	assert_int_equal(one_map[2].size, 0);   /* two map entries, then the end */
	assert_int_equal(perfsink_kit_conf_fill(one_keys, v, one_map, &c), 0);
	assert_int_equal(c.level, 7);
	assert_int_equal(c.mode, MODE_B);
	assert_null(c.name); /* ONLY: not stored */
	assert_int_equal(c.on, 0);
}

/* Kit 1.5: the POSIX AIO writer as writer ops, every one set. */
static void test_aiow_writer_ops(void **state)
{
	const struct perfsink_kit_writer_ops *w = &perfsink_kit_aiow_writer_ops;

	(void)state;
	assert_true(w->create && w->write && w->drain && w->offset && w->committed && w->stats &&
		    w->destroy && w->begin && w->fini);
}

static void test_buf(void **state)
{
	struct perfsink_kit_buf b = { 0 };
	uint8_t chunk[1000];
	size_t i;

	(void)state;
	memset(chunk, 0x5a, sizeof(chunk));
	for (i = 0; i < 100; i++)
		assert_int_equal(perfsink_kit_buf_append(&b, chunk, sizeof(chunk)), 0);
	assert_int_equal(b.len, 100000);
	assert_true(b.cap >= b.len);
	assert_int_equal(b.data[99999], 0x5a);
	assert_int_equal(perfsink_kit_buf_resize(&b, 10), -EINVAL);
	assert_int_equal(perfsink_kit_buf_resize(&b, b.len), 0);
	assert_int_equal(b.cap, 100000);
	perfsink_kit_buf_reset(&b);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, 100000);
	perfsink_kit_buf_free(&b);
	assert_null(b.data);
	assert_int_equal(b.cap, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conf_fill),
		cmocka_unit_test(test_conf_fill_bad_maps),
		cmocka_unit_test(test_one_table),
		cmocka_unit_test(test_aiow_writer_ops),
		cmocka_unit_test(test_buf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
