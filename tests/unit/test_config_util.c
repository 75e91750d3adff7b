#include <config.h>

#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_config_util.h"

const char *test_plugin_dir(void)
{
	static char dir[PATH_MAX];
	const char *b = getenv("TESTS_BUILDDIR");

	snprintf(dir, sizeof(dir), "%s/integration/.libs", b && *b ? b : ".");
	return dir;
}

const char *test_plugin_path(const char *name)
{
	static char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s.so", test_plugin_dir(), name);
	return path;
}

char *test_tmpdir_make(void)
{
	char *dir = strdup("/tmp/perfsink-config-test.XXXXXX");

	assert_non_null(dir);
	assert_non_null(mkdtemp(dir));
	return dir;
}

static int entry_remove(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void test_tmpdir_remove(char *dir)
{
	if (!dir)
		return;
	nftw(dir, entry_remove, 8, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

char *test_file_write(const char *dir, const char *name, const char *text)
{
	char *path;
	FILE *f;

	assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	return path;
}
