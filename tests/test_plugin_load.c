/* The plugin loader against the test plugins, one per way to be refused. */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "plugin.h"
#include "test_config_util.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void assert_contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("'%s' does not contain '%s'", hay, needle);
}

static void test_load_good(void **state)
{
	struct plugin *p = NULL;
	char err[1024] = "";

	(void)state;
	assert_int_equal(plugin_load("plugin_good", test_plugin_dir(), &p, err, sizeof(err)), 0);
	assert_string_equal(p->name, "plugin_good");
	assert_string_equal(p->path, test_plugin_path("plugin_good"));
	assert_string_equal(p->ops->name, "good");
	assert_true(p->ops->flags & PERFSINK_SINK_WRITES_FILES);
	assert_string_equal(p->ops->keys[0].name, "path");
	plugin_unload(p);

	/* a name with '/' is a path */
	assert_int_equal(plugin_load(test_plugin_path("plugin_plain"), NULL, &p, err, sizeof(err)), 0);
	assert_string_equal(p->ops->name, "plain");
	plugin_unload(p);
}

/* Each refused plugin: the return value and a word of the one-line reason. */
static void test_refused(void **state)
{
	static const struct { const char *name; int ret; const char *why; } bad[] = {
		{ "plugin_abi_major", -EPROTO, "speaks sink ABI 2, this perfsink speaks ABI 1" },
		{ "plugin_minor_new", -EPROTO, "needs sink ABI 1.3, newer than" },
		{ "plugin_small", -EPROTO, "struct_size 16 is smaller" },
		{ "plugin_noname", -EINVAL, "sink has no name" },
		{ "plugin_nosym", -EINVAL, "no symbol perfsink_sink_entry" },
		{ "plugin_null", -EINVAL, "perfsink_sink_entry() returned NULL" },
		{ "plugin_badkey", -EINVAL, "enum key 'level' has no choices" },
		{ "plugin_nopath", -EINVAL, "sink writes files but has no 'path' key" },
		{ "plugin_nosuch", -ENOENT, "sink plugin 'plugin_nosuch' not found (looked in: " },
	};
	struct plugin *p;
	char err[2048];

	(void)state;
	for (size_t i = 0; i < N(bad); i++) {
		p = NULL;
		err[0] = '\0';
		assert_int_equal(plugin_load(bad[i].name, test_plugin_dir(), &p, err, sizeof(err)),
				 bad[i].ret);
		assert_null(p);
		assert_contains(err, bad[i].why);
		assert_null(strchr(err, '\n'));
	}
}

static void test_missing_says_where(void **state)
{
	struct plugin *p = NULL;
	char err[2048], want[1024];

	(void)state;
	assert_int_equal(plugin_load("nosuch", test_plugin_dir(), &p, err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want), "%s/nosuch.so", test_plugin_dir());
	assert_contains(err, want);
	assert_contains(err, PKGLIBDIR "/nosuch.so");
	assert_int_equal(plugin_load("/nonexistent/dir/x.so", NULL, &p, err, sizeof(err)), -ENOENT);
	assert_contains(err, "'/nonexistent/dir/x.so' not found");
}

static void file_copy(const char *from, const char *to)
{
	char buf[65536];
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	size_t n;

	assert_non_null(in);
	assert_non_null(out);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	assert_int_equal(fclose(out), 0);
}

static void test_world_writable(void **state)
{
	char *dir = test_tmpdir_make(), *path, err[1024];
	struct plugin *p = NULL;

	(void)state;
	assert_true(asprintf(&path, "%s/copy.so", dir) > 0);
	file_copy(test_plugin_path("plugin_good"), path);
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(plugin_load(path, NULL, &p, err, sizeof(err)), 0);
	plugin_unload(p);
	p = NULL;
	assert_int_equal(chmod(path, 0666), 0);
	assert_int_equal(plugin_load(path, NULL, &p, err, sizeof(err)), -EPERM);
	assert_contains(err, "refusing a world-writable plugin");
	assert_null(p);
	free(path);
	test_tmpdir_remove(dir);
}

static void test_not_a_library(void **state)
{
	char *dir = test_tmpdir_make(), *path, err[1024];
	struct plugin *p = NULL;

	(void)state;
	path = test_file_write(dir, "text.so", "not an ELF file\n");
	assert_int_equal(plugin_load(path, NULL, &p, err, sizeof(err)), -EINVAL);
	assert_contains(err, "cannot load plugin: ");
	assert_contains(err, "text.so");
	free(path);
	/* a directory is not a plugin either */
	assert_int_equal(plugin_load(dir, NULL, &p, err, sizeof(err)), -EINVAL);
	assert_contains(err, "not a regular file");
	test_tmpdir_remove(dir);
}

static void test_list(void **state)
{
	char **names;
	unsigned n, found = 0;

	(void)state;
	assert_int_equal(plugin_list(test_plugin_dir(), &names, &n), 0);
	for (unsigned i = 0; i < n; i++) {
		found += !strcmp(names[i], "plugin_good") || !strcmp(names[i], "plugin_null");
		if (i)
			assert_true(strcmp(names[i - 1], names[i]) < 0);
	}
	for (unsigned i = 0; i < n; i++)
		free(names[i]);
	free(names);
	assert_int_equal(found, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_good),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_missing_says_where),
		cmocka_unit_test(test_world_writable),
		cmocka_unit_test(test_not_a_library),
		cmocka_unit_test(test_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
