/*
 * The kit's safe paths (plugins/kit/safe_dir.c), stale temporary files
 * (output_sweep.c), names taken at place time and this run's segments
 * (output_file.c, seglist.c): tables of places, good and bad.  The cases
 * that need another owner use chown and are skipped without root.
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
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <perfsink/kit.h>

#define NOBODY 65534

static char top[64];

static void at(char *out, size_t n, const char *rel)
{
	snprintf(out, n, "%s/%s", top, rel);
}

static void mk(const char *rel, mode_t mode, uid_t uid, gid_t gid)
{
	char p[256];
	at(p, sizeof(p), rel);
	assert_int_equal(mkdir(p, 0700), 0);
	assert_int_equal(chmod(p, mode), 0);
	if (uid || gid)
		assert_int_equal(chown(p, uid, gid), 0);
}

static void put(const char *rel, const char *text)
{
	char p[256];
	at(p, sizeof(p), rel);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static int there(const char *rel)
{
	char p[256];
	struct stat st;
	at(p, sizeof(p), rel);
	return lstat(p, &st) == 0;
}

static int setup(void **state)
{
	(void)state;
	snprintf(top, sizeof(top), "/tmp/test_safe_dir.XXXXXX");
	return mkdtemp(top) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	return system(cmd);
}

/* perfsink_kit_dir_open over a tree of good and bad directories. */
static void dir_table(void **state)
{
	(void)state;
	int root = geteuid() == 0;
	char p[256];
	mk("ok", 0755, 0, 0);
	mk("ok/sub", 0700, 0, 0);
	mk("ww", 0777, 0, 0);
	mk("sticky", 01777, 0, 0);
	mk("rootgrp", 0770, 0, 0);
	char target[256];
	at(target, sizeof(target), "ok");
	at(p, sizeof(p), "lnk");
	assert_int_equal(symlink(target, p), 0);
	if (root) {
		mk("theirs", 0755, NOBODY, NOBODY);
		mk("grp", 0770, 0, NOBODY);
		mk("theirsticky", 01777, NOBODY, NOBODY);
	}
	static const struct {
		const char *rel;
		int needs_root;
		int err;
		const char *why; /* part of the reason */
	} t[] = {
		{ "ok", 0, 0, NULL },
		{ "ok/sub", 0, 0, NULL },
		{ "ok/./sub/..", 0, 0, NULL },
		{ "sticky", 0, 0, NULL },        /* /tmp-like */
		{ "rootgrp", 0, 0, NULL },       /* root's group writing is root writing */
		{ "lnk", 0, -ELOOP, "/lnk' is a symbolic link" },
		{ "lnk/sub", 0, -ELOOP, "/lnk' is a symbolic link" }, /* a link in the middle */
		{ "ww", 0, -EPERM, "/ww' is writable by group or others and not sticky (mode 0777)" },
		{ "nodir", 0, -ENOENT, "No such file or directory" },
		{ "theirs", 1, -EPERM, "/theirs' belongs to uid 65534" },
		{ "theirs/x", 1, -EPERM, "/theirs' belongs to uid 65534" },
		{ "grp", 1, -EPERM, "/grp' is writable by group or others and not sticky (mode 0770)" },
		{ "theirsticky", 1, -EPERM, "/theirsticky' belongs to uid 65534" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char why[512] = "";
		if (t[i].needs_root && !root)
			continue;
		print_message("case %zu: %s\n", i, t[i].rel);
		at(p, sizeof(p), t[i].rel);
		int fd = perfsink_kit_dir_open(p, 0, "test", why, sizeof(why));
		if (t[i].err == 0) {
			assert_true(fd >= 0);
			close(fd);
			continue;
		}
		assert_int_equal(fd, t[i].err);
		assert_non_null(strstr(why, "test"));
		assert_non_null(strstr(why, t[i].why));
	}
}

/* A relative path is checked from / too, through the working directory. */
static void dir_relative(void **state)
{
	(void)state;
	char p[256], cwd[256], why[512] = "";
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	at(p, sizeof(p), "ok");
	assert_int_equal(chdir(p), 0);
	int fd = perfsink_kit_dir_open("sub", 0, "test", why, sizeof(why));
	assert_true(fd >= 0);
	close(fd);
	at(p, sizeof(p), "ww");
	assert_int_equal(chdir(p), 0);
	assert_int_equal(perfsink_kit_dir_open(".", 0, "test", why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "/ww' is writable"));
	assert_int_equal(chdir(cwd), 0);
}

/* MKDIR makes what is missing, 0700, and never through a link. */
static void dir_mkdir(void **state)
{
	(void)state;
	char p[256], why[512] = "";
	struct stat st;
	at(p, sizeof(p), "ok/a/b/c");
	int fd = perfsink_kit_dir_open(p, PERFSINK_KIT_DIR_MKDIR, "test", why, sizeof(why));
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	close(fd);
	at(p, sizeof(p), "lnk/made");
	assert_int_equal(perfsink_kit_dir_open(p, PERFSINK_KIT_DIR_MKDIR, "test", why, sizeof(why)),
			 -ELOOP);
	assert_false(there("ok/made"));
}

/* Inputs: regular files only, never a link, and a FIFO does not hang. */
static void input_table(void **state)
{
	(void)state;
	char p[256], why[512];
	put("in", "x");
	at(p, sizeof(p), "fifo");
	assert_int_equal(mkfifo(p, 0600), 0);
	char target[256];
	at(target, sizeof(target), "in");
	at(p, sizeof(p), "inlink");
	assert_int_equal(symlink(target, p), 0);
	static const struct {
		const char *rel;
		int err;
		const char *why;
	} t[] = {
		{ "in", 0, NULL },
		{ "fifo", -EINVAL, "is not a regular file" },
		{ "inlink", -ELOOP, "is a symbolic link" },
		{ "ok", -EISDIR, "is not a regular file" },
		{ "missing", -ENOENT, "No such file" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		at(p, sizeof(p), t[i].rel);
		why[0] = '\0';
		int fd = perfsink_kit_input_open(AT_FDCWD, p, "read", why, sizeof(why));
		if (!t[i].err) {
			assert_true(fd >= 0);
			assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
			close(fd);
			continue;
		}
		assert_int_equal(fd, t[i].err);
		assert_non_null(strstr(why, t[i].why));
	}
	assert_int_equal(perfsink_kit_input_open(AT_FDCWD, "/dev/null", "read", why, sizeof(why)),
			 -EINVAL);
}

/* Stale temporary files: only ours, unlocked, with the magic, by name. */
static void sweep_table(void **state)
{
	(void)state;
	char p[256], note[512];
	mk("sw", 0700, 0, 0);
	put("sw/.x.data.0123abcd", "PERFILE2 stale");
	put("sw/.x.data.20260101000000.000001.0a0b0c0d", "PERFILE2 a segment's");
	put("sw/.x.data.recover.Ab12Cd", "PERFILE2 an old recover's");
	put("sw/.x.data.1111aaaa", "PERFILE2 live");
	put("sw/.x.data.2222bbbb", "not perf data");
	put("sw/.x.data.3333cccc", ""); /* killed before its header */
	put("sw/.y.data.4444dddd", "PERFILE2 another output's");
	put("sw/.x.data.notahex!", "PERFILE2 not our name");
	put("sw/x.data", "PERFILE2 the output itself");
	at(p, sizeof(p), "sw/.x.data.1111aaaa");
	int live = open(p, O_RDONLY);
	assert_true(live >= 0);
	assert_int_equal(flock(live, LOCK_EX), 0);
	if (geteuid() == 0) {
		put("sw/.x.data.5555eeee", "PERFILE2 theirs");
		at(p, sizeof(p), "sw/.x.data.5555eeee");
		assert_int_equal(chown(p, NOBODY, NOBODY), 0);
	}
	at(p, sizeof(p), "sw/x.data");
	assert_int_equal(perfsink_kit_output_sweep(p, "PERFILE2", note, sizeof(note)), 4);
	assert_non_null(strstr(note, "MB)"));
	assert_false(there("sw/.x.data.0123abcd"));
	assert_false(there("sw/.x.data.20260101000000.000001.0a0b0c0d"));
	assert_false(there("sw/.x.data.recover.Ab12Cd"));
	assert_false(there("sw/.x.data.3333cccc"));
	assert_true(there("sw/.x.data.1111aaaa"));
	assert_true(there("sw/.x.data.2222bbbb"));
	assert_true(there("sw/.y.data.4444dddd"));
	assert_true(there("sw/.x.data.notahex!"));
	assert_true(there("sw/x.data"));
	if (geteuid() == 0)
		assert_true(there("sw/.x.data.5555eeee"));
	close(live);
	/* Once its writer is gone, the file is stale. */
	assert_int_equal(perfsink_kit_output_sweep(p, "PERFILE2", note, sizeof(note)), 1);
	assert_false(there("sw/.x.data.1111aaaa"));
}

/* A segment whose name is taken goes on as NAME.1, NAME.2; nothing replaced. */
static void place_new_taken(void **state)
{
	(void)state;
	char p[256], why[512], target[256];
	struct perfsink_kit_output o;
	mk("pn", 0700, 0, 0);
	put("pn/victim", "precious");
	at(target, sizeof(target), "pn/victim");
	at(p, sizeof(p), "pn/seg");
	assert_int_equal(symlink(target, p), 0);
	put("pn/seg.1", "taken too");
	assert_int_equal(perfsink_kit_output_create_new(&o, p, why, sizeof(why)), 0);
	assert_int_equal(write(o.fd, "ours", 4), 4);
	assert_int_equal(perfsink_kit_output_place_new(&o, why, sizeof(why)), 2);
	assert_non_null(strstr(o.path, "pn/seg.2"));
	assert_int_equal(perfsink_kit_output_close(&o), 0);
	assert_true(there("pn/seg.2"));
	FILE *f = fopen(target, "r");
	char buf[16] = "";
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "precious");
}

/* Only this run's segments are pruned, and only if the name is still ours. */
static void seglist_prunes_ours(void **state)
{
	(void)state;
	char p[256], why[512];
	struct perfsink_kit_seglist *l;
	mk("sl", 0700, 0, 0);
	put("sl/s.20000101000000.000000", "an earlier run's segment");
	assert_int_equal(perfsink_kit_seglist_create(&l), 0);
	for (int i = 0; i < 4; i++) {
		struct perfsink_kit_output o;
		char rel[64];
		snprintf(rel, sizeof(rel), "sl/s.20260101000000.00000%d", i);
		at(p, sizeof(p), rel);
		assert_int_equal(perfsink_kit_output_create_new(&o, p, why, sizeof(why)), 0);
		assert_int_equal(perfsink_kit_output_place_new(&o, why, sizeof(why)), 0);
		assert_int_equal(perfsink_kit_seglist_add(l, &o), 0);
		assert_int_equal(perfsink_kit_output_close(&o), 0);
	}
	/* Segment 1 replaced by another file since (a new inode): it stays. */
	char other[256];
	put("sl/other", "someone else's now");
	at(other, sizeof(other), "sl/other");
	at(p, sizeof(p), "sl/s.20260101000000.000001");
	assert_int_equal(rename(other, p), 0);
	assert_int_equal(perfsink_kit_seglist_prune(l, NULL, 2), 1);
	assert_true(there("sl/s.20000101000000.000000"));
	assert_false(there("sl/s.20260101000000.000000"));
	assert_true(there("sl/s.20260101000000.000001"));
	assert_true(there("sl/s.20260101000000.000002"));
	assert_true(there("sl/s.20260101000000.000003"));
	perfsink_kit_seglist_destroy(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dir_table),
		cmocka_unit_test(dir_relative),
		cmocka_unit_test(dir_mkdir),
		cmocka_unit_test(input_table),
		cmocka_unit_test(sweep_table),
		cmocka_unit_test(place_new_taken),
		cmocka_unit_test(seglist_prunes_ours),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
