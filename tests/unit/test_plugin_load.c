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
#include <unistd.h>
#include <cmocka.h>

#include "loader/plugin.h"
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

/* A sink built for ABI 1.3 (ops end before available) still loads. */
static void test_older_minor(void **state)
{
	struct plugin *p = NULL;
	char err[2048] = "";

	(void)state;
	assert_int_equal(plugin_load("plugin_minor_old", test_plugin_dir(), &p, err, sizeof(err)), 0);
	assert_int_equal(p->ops->abi_minor, 3);
	assert_null(p->note);
	plugin_unload(p);
}

/* Each refused plugin: the return value and a word of the one-line reason. */
static void test_refused(void **state)
{
	static const struct { const char *name; int ret; const char *why; } bad[] = {
		{ "plugin_abi_major", -EPROTO, "speaks sink ABI 2, this perfsink speaks ABI 1" },
		{ "plugin_minor_new", -EPROTO, "newer than this perfsink's" },
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

#define NOBODY 65534 /* also nogroup's gid */

/* A copy of plugin_good at dir/sub/copy.so, sub made with mode dmode. */
static char *copy_in(const char *dir, const char *sub, mode_t dmode)
{
	char *d, *path;

	assert_true(asprintf(&d, "%s/%s", dir, sub) > 0);
	assert_int_equal(mkdir(d, 0700), 0);
	assert_int_equal(chmod(d, dmode), 0);
	assert_true(asprintf(&path, "%s/copy.so", d) > 0);
	file_copy(test_plugin_path("plugin_good"), path);
	assert_int_equal(chmod(path, 0755), 0);
	free(d);
	return path;
}

static void load_refused(const char *path, const char *why)
{
	struct plugin *p = NULL;
	char err[2048] = "";

	assert_int_equal(plugin_load(path, NULL, &p, err, sizeof(err)), -EPERM);
	assert_null(p);
	assert_contains(err, path);
	assert_contains(err, why);
	assert_null(strchr(err, '\n'));
}

static void load_ok(const char *path)
{
	struct plugin *p = NULL;
	char err[2048] = "";

	if (plugin_load(path, NULL, &p, err, sizeof(err)))
		fail_msg("%s refused: %s", path, err);
	plugin_unload(p);
}

/* Who may have written the file or a directory above it decides; /tmp is fine. */
static void test_trust(void **state)
{
	char *dir = test_tmpdir_make(), *ours, *ww_dir, *gw_file, *sticky;
	char want[1200];

	(void)state;
	ours = copy_in(dir, "ours", 0755);
	load_ok(ours); /* a build tree under the sticky, root-owned /tmp */

	ww_dir = copy_in(dir, "ww", 0777);
	snprintf(want, sizeof(want), "directory %s/ww is world-writable (mode 0777, group ", dir);
	load_refused(ww_dir, want);

	sticky = copy_in(dir, "sticky", 01777); /* sticky, but ours: root-owned only */
	if (geteuid() == 0) {
		assert_int_equal(chown(dir, NOBODY, 0), 0); /* the sticky dir's parent */
		snprintf(want, sizeof(want), "directory %s is owned by uid %d", dir, NOBODY);
		load_refused(ours, want);
		assert_int_equal(chown(dir, 0, 0), 0);
	}
	if (geteuid() != 0) {
		snprintf(want, sizeof(want), "directory %s/sticky is world-writable (mode 1777, group %u) "
			 "and not a root-owned sticky directory", dir, (unsigned)getegid());
		load_refused(sticky, want);
	} else {
		load_ok(sticky); /* root-owned sticky: what lies below is ours */
	}

	gw_file = copy_in(dir, "gw", 0755);
	assert_int_equal(chmod(gw_file, 0775), 0);
	if (geteuid() == 0) /* root's own group may write (test_trust_root_group); another may not */
		assert_int_equal(chown(gw_file, 0, NOBODY), 0);
	load_refused(gw_file, "refusing a group-writable plugin (mode 0775, group ");

	if (geteuid() == 0) {
		assert_int_equal(chown(ours, NOBODY, NOBODY), 0);
		snprintf(want, sizeof(want), "file %s is owned by uid %d, neither root nor uid 0",
			 ours, NOBODY);
		load_refused(ours, want);
		/* the same through a directory owned by nobody under sticky /tmp */
		assert_int_equal(chown(ours, 0, 0), 0);
		snprintf(want, sizeof(want), "%s/ours", dir);
		assert_int_equal(chown(want, NOBODY, NOBODY), 0);
		load_refused(ours, "is owned by uid 65534");
		assert_int_equal(chown(want, 0, 0), 0);
		load_ok(ours);
	} else {
		skip(); /* chown needs root */
	}
	free(ours);
	free(ww_dir);
	free(gw_file);
	free(sticky);
	test_tmpdir_remove(dir);
}

/*
 * Root's group writing is root writing: a tree root built with umask 002
 * (directories and plugins 0775, group root) loads; the same modes with
 * any other group do not.  As another user, its own group is refused.
 */
static void test_trust_root_group(void **state)
{
	char *dir = test_tmpdir_make(), *path, *sub, want[1200];

	(void)state;
	path = copy_in(dir, "rg", 0775);
	assert_int_equal(chmod(path, 0775), 0);
	assert_true(asprintf(&sub, "%s/rg", dir) > 0);
	if (geteuid() != 0) {
		snprintf(want, sizeof(want), "directory %s is group-writable (mode 0775, group %u)",
			 sub, (unsigned)getegid());
		load_refused(path, want);
		free(sub);
		free(path);
		test_tmpdir_remove(dir);
		skip(); /* chgrp to root needs root */
	}
	assert_int_equal(chown(sub, 0, 0), 0);
	assert_int_equal(chown(path, 0, 0), 0);
	load_ok(path);
	assert_int_equal(chown(sub, 0, NOBODY), 0);
	snprintf(want, sizeof(want), "directory %s is group-writable (mode 0775, group %d) and "
		 "not a root-owned sticky directory", sub, NOBODY);
	load_refused(path, want);
	assert_int_equal(chown(sub, 0, 0), 0);
	assert_int_equal(chown(path, 0, NOBODY), 0);
	load_refused(path, "refusing a group-writable plugin (mode 0775, group 65534");
	assert_int_equal(chown(path, 0, 0), 0);
	assert_int_equal(chmod(sub, 0777), 0); /* others still may not */
	snprintf(want, sizeof(want), "directory %s is world-writable (mode 0777, group 0)", sub);
	load_refused(path, want);
	free(sub);
	free(path);
	test_tmpdir_remove(dir);
}

/* A symlink is followed to the real file, which is what gets checked. */
static void test_trust_symlink(void **state)
{
	char *dir = test_tmpdir_make(), *ww, *link;

	(void)state;
	ww = copy_in(dir, "ww", 0777);
	assert_true(asprintf(&link, "%s/link.so", dir) > 0);
	assert_int_equal(symlink(ww, link), 0);
	load_refused(link, "/ww is world-writable");
	assert_int_equal(unlink(link), 0);
	assert_int_equal(symlink(test_plugin_path("plugin_good"), link), 0);
	load_ok(link);
	free(ww);
	free(link);
	test_tmpdir_remove(dir);
}

/*
 * Plugins are dlopen'd as /proc/self/fd/N, a name glibc keeps while the
 * object stays loaded: a later plugin opened on the same fd number must
 * still get its own code, and the same file twice one object.
 */
static void test_fd_names(void **state)
{
	struct plugin *a1 = NULL, *a2 = NULL, *b = NULL, *c = NULL;
	char err[2048] = "";

	(void)state;
	assert_int_equal(plugin_load("plugin_good", test_plugin_dir(), &a1, err, sizeof(err)), 0);
	assert_int_equal(plugin_load("plugin_good", test_plugin_dir(), &a2, err, sizeof(err)), 0);
	assert_ptr_equal(a1->dl, a2->dl);
	plugin_unload(a1); /* good stays loaded under the name of a1's closed fd */
	assert_int_equal(plugin_load("plugin_plain", test_plugin_dir(), &b, err, sizeof(err)), 0);
	assert_string_equal(b->ops->name, "plain");
	assert_int_equal(plugin_load("plugin_count", test_plugin_dir(), &c, err, sizeof(err)), 0);
	assert_string_equal(c->ops->name, "count");
	assert_string_equal(a2->ops->name, "good");
	plugin_unload(a2);
	plugin_unload(b);
	plugin_unload(c);
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
		cmocka_unit_test(test_older_minor),
		cmocka_unit_test(test_missing_says_where),
		cmocka_unit_test(test_world_writable),
		cmocka_unit_test(test_trust),
		cmocka_unit_test(test_trust_root_group),
		cmocka_unit_test(test_trust_symlink),
		cmocka_unit_test(test_fd_names),
		cmocka_unit_test(test_not_a_library),
		cmocka_unit_test(test_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
