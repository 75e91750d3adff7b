/*
 * The file a recorded mapping maps (probe/map_file.c), whether its process
 * could read it (probe/proc_creds.c), and the DSO set's refusals
 * (probe/dso_set.c, live): the checks that keep root from reading a file
 * a process named by its path and then replaced by a link.  Needs root
 * (another user's credentials, /proc/PID/map_files).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include "probe/buildid.h"
#include "probe/dso_set.h"
#include "probe/map_file.h"
#include "probe/proc_creds.h"

#define NOBODY 65534

struct fx {
	char dir[64];
	char file[96];   /* an ELF with a build-id: a copy of this program */
	char other[96];  /* another file */
	struct stat st;  /* of file */
	pid_t child;
	uint64_t addr;   /* where the child mapped file */
};

static void copy(const char *from, const char *to, mode_t mode)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && chmod %o '%s'", from, to, (unsigned)mode, to);
	assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	strcpy(f->dir, "/tmp/test_map_file.XXXXXX");
	if (!f || !mkdtemp(f->dir))
		return -1;
	snprintf(f->file, sizeof(f->file), "%s/prog", f->dir);
	snprintf(f->other, sizeof(f->other), "%s/other", f->dir);
	copy("/proc/self/exe", f->file, 0600);
	copy("/proc/self/exe", f->other, 0600);
	f->child = -1;
	*state = f;
	return stat(f->file, &f->st);
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];

	if (f->child > 0) {
		kill(f->child, SIGKILL);
		waitpid(f->child, NULL, 0);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

/*
 * A child that opens f->file as root, becomes uid (unless 0), maps the file
 * executable and waits: a process holding a file it may not read by name.
 */
static void spawn_mapper(struct fx *f, uid_t uid)
{
	int p[2];

	assert_int_equal(pipe(p), 0);
	f->child = fork();
	assert_true(f->child >= 0);
	if (f->child == 0) {
		int fd = open(f->file, O_RDONLY);
		void *m;
		if (fd < 0 || (uid && (setgroups(0, NULL) || setgid(uid) || setuid(uid))))
			_exit(1);
		m = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		uint64_t a = m == MAP_FAILED ? 0 : (uint64_t)(uintptr_t)m;
		if (write(p[1], &a, sizeof(a)) != sizeof(a))
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	assert_int_equal(read(p[0], &f->addr, sizeof(f->addr)), sizeof(f->addr));
	close(p[0]);
	assert_true(f->addr != 0);
}

static struct map_ref ref_of(const struct fx *f, uint32_t pid)
{
	return (struct map_ref){ .name = f->file, .pid = pid, .start = f->addr, .len = 4096,
		.maj = major(f->st.st_dev), .min = minor(f->st.st_dev), .ino = f->st.st_ino,
		.need_identity = true };
}

static ino_t ino_of(int fd)
{
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	return st.st_ino;
}

/* nobody swaps the name for a link: the mapping still gives the file mapped. */
static void mapping_outlives_its_name(void **state)
{
	struct fx *f = *state;

	spawn_mapper(f, 0);
	struct map_ref r = ref_of(f, (uint32_t)f->child);
	assert_int_equal(rename(f->file, f->other), 0);
	assert_int_equal(symlink("/etc/shadow", f->file), 0);
	int fd = map_file_open(&r);
	assert_true(fd >= 0);
	assert_int_equal(ino_of(fd), f->st.st_ino);
	close(fd);
}

/* The process gone: the name alone, never through a link, only when it is the file mapped. */
static void name_checked_without_process(void **state)
{
	struct fx *f = *state;
	struct stat other;
	struct map_ref r = ref_of(f, 0);
	int fd = map_file_open(&r);

	assert_true(fd >= 0);
	assert_int_equal(ino_of(fd), f->st.st_ino);
	close(fd);
	/* another inode at the name: refused */
	assert_int_equal(stat(f->other, &other), 0);
	r.ino = other.st_ino + 1;
	assert_int_equal(map_file_open(&r), -ESTALE);
	r.ino = f->st.st_ino;
	/* the generation of a reused inode number differs (where the file system tells it) */
	r.gen = 12345;
	fd = map_file_open(&r);
	unsigned long gen = 0;
	int tfd = open(f->file, O_RDONLY);
	bool tells = tfd >= 0 && ioctl(tfd, _IOR('v', 1, long), &gen) == 0;
	if (tfd >= 0)
		close(tfd);
	if (tells && (uint32_t)gen != 12345)
		assert_int_equal(fd, -ESTALE);
	else if (fd >= 0)
		close(fd);
	r.gen = 0;
	/* no identity known: refused live, taken for recover */
	r.ino = 0;
	assert_int_equal(map_file_open(&r), -ESTALE);
	r.need_identity = false;
	fd = map_file_open(&r);
	assert_true(fd >= 0);
	close(fd);
	/* a link at the name, even to the very file: refused */
	char moved[128];
	snprintf(moved, sizeof(moved), "%s/moved", f->dir);
	assert_int_equal(rename(f->file, moved), 0);
	assert_int_equal(symlink(moved, f->file), 0);
	r = ref_of(f, 0);
	assert_int_equal(map_file_open(&r), -ESTALE);
}

/* Fourth fields of Uid/Gid, the Groups line; bad text refused. */
static void creds_parse(void **state)
{
	static const char good[] = "Name:\tx\nUid:\t1000\t1001\t1002\t1003\nGid:\t50\t51\t52\t53\nFDSize:\t64\nGroups:\t4 24 27 \n";
	static const char none[] = "Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nGroups:\t\n";
	static const char *const bad[] = {
		"Gid:\t0\t0\t0\t0\nGroups:\t\n",             /* no Uid */
		"Uid:\t0\t0\t0\nGid:\t0\t0\t0\t0\nGroups:\n", /* three fields */
		"Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n",       /* no Groups */
		"Uid:\t0\t0\t0\tx\nGid:\t0\t0\t0\t0\nGroups:\n",
		"Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nGroups:\t-1\n",
	};
	struct proc_creds c;

	(void)state;
	assert_int_equal(proc_creds_parse(good, &c), 0);
	assert_int_equal(c.fsuid, 1003);
	assert_int_equal(c.fsgid, 53);
	assert_int_equal(c.ngroups, 3);
	assert_int_equal(c.groups[2], 27);
	assert_int_equal(proc_creds_parse(none, &c), 0);
	assert_int_equal(c.ngroups, 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(proc_creds_parse(bad[i], &c), -EINVAL);
}

/* The kernel's answer for another identity; ours back afterwards. */
static void creds_can_read(void **state)
{
	struct fx *f = *state;
	struct proc_creds nobody = { .fsuid = NOBODY, .fsgid = NOBODY }, grp = nobody;
	gid_t before[64], after[64];
	int nb = getgroups(64, before), fd = open(f->file, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(proc_creds_can_read(&nobody, fd), 0);  /* 0600 root */
	assert_int_equal(fchown(fd, 0, 4242), 0);
	assert_int_equal(fchmod(fd, 0640), 0);
	assert_int_equal(proc_creds_can_read(&nobody, fd), 0);
	grp.ngroups = 1;
	grp.groups[0] = 4242;
	assert_int_equal(proc_creds_can_read(&grp, fd), 1);     /* by its group */
	assert_int_equal(fchmod(fd, 0644), 0);
	assert_int_equal(proc_creds_can_read(&nobody, fd), 1);
	assert_int_equal(proc_creds_anyone_reads(fd), 1);
	assert_int_equal(fchmod(fd, 0711), 0);                  /* run, not read */
	assert_int_equal(proc_creds_can_read(&nobody, fd), 0);
	assert_int_equal(proc_creds_anyone_reads(fd), 0);
	close(fd);
	/* this thread is root again, with its own groups */
	assert_int_equal(syscall(SYS_setfsuid, -1), 0);
	assert_int_equal(syscall(SYS_setfsgid, -1), 0);
	assert_int_equal(getgroups(64, after), nb);
	assert_memory_equal(before, after, (size_t)nb * sizeof(gid_t));
	fd = open(f->other, O_RDONLY); /* 0600 root: readable as root */
	assert_true(fd >= 0);
	close(fd);
}

/* One live MMAP2 record of the fixture's mapping into a fresh DSO set. */
static unsigned scan_one(struct fx *f, uint32_t pid, char *names, size_t n)
{
	struct dso_set s;
	struct bytes b;
	size_t nl = strlen(f->file) + 1, size = (72 + nl + 7) & ~(size_t)7;
	struct perf_event_header h = { .type = PERF_RECORD_MMAP2, .misc = PERF_RECORD_MISC_USER,
				       .size = (uint16_t)size };
	uint32_t maj = major(f->st.st_dev), min = minor(f->st.st_dev);
	uint64_t len = 4096, ino = f->st.st_ino;

	dso_set_init(&s);
	s.live = true;
	bytes_init(&b);
	bytes_zero(&b, size);
	memcpy(b.p, &h, sizeof(h));
	memcpy(b.p + 8, &pid, 4);
	memcpy(b.p + 12, &pid, 4);
	memcpy(b.p + 16, &f->addr, 8);
	memcpy(b.p + 24, &len, 8);
	memcpy(b.p + 40, &maj, 4);
	memcpy(b.p + 44, &min, 4);
	memcpy(b.p + 48, &ino, 8);
	memcpy(b.p + 72, f->file, nl);
	dso_set_scan(&s, b.p, b.len);
	unsigned r = dso_set_refused(&s, names, n);
	struct bytes ids;
	bytes_init(&ids);
	assert_int_equal(dso_set_build_ids(&s, &ids), 0);
	/* a refused file is not listed; an accepted one is */
	assert_int_equal(ids.len != 0, r == 0);
	bytes_free(&ids);
	bytes_free(&b);
	dso_set_free(&s);
	return r;
}

/* nobody holds a root-only file it got open: refused, named, not listed. */
static void dso_refused_when_unreadable(void **state)
{
	struct fx *f = *state;
	char names[512];

	spawn_mapper(f, NOBODY);
	assert_int_equal(scan_one(f, (uint32_t)f->child, names, sizeof(names)), 1);
	assert_non_null(strstr(names, f->file));
	assert_non_null(strstr(names, "(its process could not read it)"));
	/* the same mapping by root: taken */
	kill(f->child, SIGKILL);
	waitpid(f->child, NULL, 0);
	spawn_mapper(f, 0);
	assert_int_equal(scan_one(f, (uint32_t)f->child, names, sizeof(names)), 0);
	assert_string_equal(names, "");
}

/* The process gone and its name a link by now: refused as not the file mapped. */
static void dso_refused_when_swapped(void **state)
{
	struct fx *f = *state;
	char names[512];

	spawn_mapper(f, 0);
	kill(f->child, SIGKILL);
	waitpid(f->child, NULL, 0);
	uint32_t gone = (uint32_t)f->child;
	f->child = -1;
	assert_int_equal(unlink(f->file), 0);
	assert_int_equal(symlink(f->other, f->file), 0);
	assert_int_equal(scan_one(f, gone, names, sizeof(names)), 1);
	assert_non_null(strstr(names, "(not the file its process mapped)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(creds_parse),
		cmocka_unit_test_setup_teardown(mapping_outlives_its_name, setup, teardown),
		cmocka_unit_test_setup_teardown(name_checked_without_process, setup, teardown),
		cmocka_unit_test_setup_teardown(creds_can_read, setup, teardown),
		cmocka_unit_test_setup_teardown(dso_refused_when_unreadable, setup, teardown),
		cmocka_unit_test_setup_teardown(dso_refused_when_swapped, setup, teardown),
	};
	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
