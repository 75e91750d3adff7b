/*
 * perfsink_kit_output (plugins/kit/output_file.c): what may become an output (a table of
 * places), and the life of one output (temporary file, .old, discard).
 * Runs as whoever runs the tests; the cases that need another owner use
 * chown and are skipped without root.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>
#include <cmocka.h>
#include <perfsink/kit.h>

static char dir[64];

static void path_of(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", dir, name);
}

static void write_file(const char *name, const char *text)
{
	char p[256];
	path_of(p, sizeof(p), name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The text of name, "" when it is missing. */
static const char *read_file(const char *name)
{
	static char buf[256];
	char p[256];
	path_of(p, sizeof(p), name);
	buf[0] = '\0';
	int fd = open(p, O_RDONLY);
	if (fd >= 0) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	return buf;
}

static int exists(const char *name)
{
	char p[256];
	struct stat st;
	path_of(p, sizeof(p), name);
	return lstat(p, &st) == 0;
}

/* Entries in dir, . and .. aside. */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;
	assert_non_null(d);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

/* Empty dir for the next case. */
static void clean(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	assert_non_null(d);
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) < 0)
			assert_int_equal(unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR), 0);
	}
	closedir(d);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_output_file.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	chmod(dir, 0700);
	clean();
	return rmdir(dir);
}

static void check_table(void **state)
{
	(void)state;
	write_file("mine", "x");
	char p[256];
	path_of(p, sizeof(p), "link");
	assert_int_equal(symlink("/etc/hostname", p), 0);
	path_of(p, sizeof(p), "fifo");
	assert_int_equal(mkfifo(p, 0600), 0);
	path_of(p, sizeof(p), "sub");
	assert_int_equal(mkdir(p, 0700), 0);
	static const struct {
		const char *name; /* below dir */
		mode_t mode;      /* of dir */
		int err;
		const char *why;  /* part of the reason */
	} t[] = {
		{ "new", 0700, 0, NULL },
		{ "mine", 0700, 0, NULL },
		{ "link", 0700, -EPERM, "it is a symbolic link" },
		{ "fifo", 0700, -EPERM, "it is not a regular file" },
		{ "sub", 0700, -EISDIR, "Is a directory" },
		{ "sub/", 0700, -EISDIR, "Is a directory" },
		{ "nodir/x", 0700, -ENOENT, "No such file or directory" },
		{ "new", 0777, -EPERM, "writable by group or others and not sticky (mode 0777)" },
		{ "new", 0770, 0, NULL },    /* root's group (the test's dir is gid 0 as root) */
		{ "new", 01777, 0, NULL },   /* a sticky /tmp: a new file is fine */
		{ "mine", 01777, 0, NULL },  /* and our own */
		{ "link", 01777, -EPERM, "it is a symbolic link" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char why[512] = "";
		struct stat dst;
		assert_int_equal(stat(dir, &dst), 0);
		if (t[i].mode == 0770 && dst.st_gid != 0) /* a user's group: not trusted */
			continue;
		print_message("case %zu: %s in mode %o\n", i, t[i].name, (unsigned)t[i].mode);
		assert_int_equal(chmod(dir, t[i].mode), 0);
		path_of(p, sizeof(p), t[i].name);
		assert_int_equal(perfsink_kit_output_check(p, why, sizeof(why)), t[i].err);
		if (t[i].why) {
			assert_non_null(strstr(why, t[i].why));
			assert_non_null(strstr(why, p)); /* names the path */
		}
	}
	assert_int_equal(chmod(dir, 0700), 0);
	assert_true(!exists("new"));
	if (geteuid() == 0) { /* another user's file */
		char why[512] = "";
		write_file("theirs", "t");
		path_of(p, sizeof(p), "theirs");
		assert_int_equal(chown(p, 65534, 65534), 0);
		assert_int_equal(perfsink_kit_output_check(p, why, sizeof(why)), -EPERM);
		assert_non_null(strstr(why, "belongs to uid 65534"));
	}
	clean();
}

/* create, write, place: the existing output becomes .old; reopen sees our file. */
static void place_keeps_old(void **state)
{
	(void)state;
	struct perfsink_kit_output o;
	char p[256], why[512];
	write_file("out", "old bytes");
	path_of(p, sizeof(p), "out");
	perfsink_kit_output_init(&o);
	assert_int_equal(perfsink_kit_output_create(&o, p, why, sizeof(why)), 0);
	assert_string_equal(read_file("out"), "old bytes"); /* untouched until placed */
	assert_int_equal(write(o.fd, "new", 3), 3);
	assert_int_equal(perfsink_kit_output_place(&o, why, sizeof(why)), 0);
	int fd = perfsink_kit_output_reopen(&o, O_WRONLY);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(perfsink_kit_output_close(&o), 0);
	assert_string_equal(read_file("out"), "new");
	assert_string_equal(read_file("out.old"), "old bytes");
	assert_int_equal(entries(), 2);
	clean();
}

/* An empty existing output is replaced, not kept: it must not push out a .old. */
static void empty_is_replaced(void **state)
{
	(void)state;
	struct perfsink_kit_output o;
	char p[256], why[512];
	write_file("out", "");
	write_file("out.old", "older");
	path_of(p, sizeof(p), "out");
	perfsink_kit_output_init(&o);
	assert_int_equal(perfsink_kit_output_create(&o, p, why, sizeof(why)), 0);
	assert_int_equal(perfsink_kit_output_place(&o, why, sizeof(why)), 0);
	assert_int_equal(perfsink_kit_output_close(&o), 0);
	assert_string_equal(read_file("out.old"), "older");
	assert_int_equal(entries(), 2);
	clean();
}

/* Discarded before or after placing: the directory is as it was. */
static void discard_restores(void **state)
{
	(void)state;
	for (int placed = 0; placed < 2; placed++) {
		struct perfsink_kit_output o;
		char p[256], why[512];
		write_file("out", "precious");
		write_file("out.old", "older");
		path_of(p, sizeof(p), "out");
		perfsink_kit_output_init(&o);
		assert_int_equal(perfsink_kit_output_create(&o, p, why, sizeof(why)), 0);
		assert_int_equal(write(o.fd, "new", 3), 3);
		if (placed)
			assert_int_equal(perfsink_kit_output_place(&o, why, sizeof(why)), 0);
		assert_int_equal(perfsink_kit_output_discard(&o), 0);
		assert_string_equal(read_file("out"), "precious");
		assert_int_equal(entries(), placed ? 1 : 2); /* placing replaced the older .old */
		assert_int_equal(perfsink_kit_output_close(&o), 0); /* closed: a no-op */
		clean();
	}
}

/* A name that appears between create and place is not replaced. */
static void place_never_replaces(void **state)
{
	(void)state;
	struct perfsink_kit_output o;
	char p[256], why[512] = "";
	path_of(p, sizeof(p), "out");
	perfsink_kit_output_init(&o);
	assert_int_equal(perfsink_kit_output_create(&o, p, why, sizeof(why)), 0);
	assert_int_equal(symlink("/etc/hostname", p), 0);
	assert_int_equal(perfsink_kit_output_place(&o, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "symbolic link"));
	assert_int_equal(perfsink_kit_output_close(&o), 0); /* never placed: removed */
	assert_int_equal(entries(), 1);        /* the link alone */
	clean();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(check_table),
		cmocka_unit_test(place_keeps_old),
		cmocka_unit_test(empty_is_replaced),
		cmocka_unit_test(discard_restores),
		cmocka_unit_test(place_never_replaces),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
