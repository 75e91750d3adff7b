/*
 * The names and paths of JIT files shipped by the http sink and placed by
 * `perfsink fetch`: jitdump paths in MMAP records, their escaped names on
 * the collector and back, where fetch may place them, NSpid of
 * /proc/PID/status, and opening a file through /proc/PID/root without
 * following links (this process's own root, real files under /tmp), or
 * through a root held as an fd; the pids the sink learns from records.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "held_roots.h"
#include <perfsink/kit.h>
#include "jitdumps.h"
#include "proc_root.h"
#include "fetch/jit_dumps.h"
#include "symship.h"

/* The scans the sink's write() makes of a buffer: the kit's walk, a step per record. */
static void dump_set_scan(struct dump_set *d, const uint8_t *data, size_t len)
{
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec r;

	perfsink_kit_rec_iter_init(&it, data, len);
	while (perfsink_kit_rec_next(&it, &r))
		dump_set_record(d, r.p, r.type, r.size);
}

static void pid_set_scan(struct pid_set *p, const uint8_t *data, size_t len,
			 void (*seen)(void *arg, int32_t pid), void *arg)
{
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec r;

	perfsink_kit_rec_iter_init(&it, data, len);
	while (perfsink_kit_rec_next(&it, &r))
		pid_set_record(p, r.p, r.type, r.size, seen, arg);
}

static void test_dump_path_pid(void **state)
{
	static const struct {
		const char *path;
		int pid;
	} t[] = {
		{ "/tmp/jit-7.dump", 7 },
		{ "/home/u/.debug/jit/java-jit-20261203.XXab12/jit-123456.dump", 123456 },
		{ "/jit-2147483647.dump", 2147483647 },
		{ "/jit-2147483648.dump", -1 },
		{ "/tmp/jit-07.dump", -1 },
		{ "/tmp/jit-0.dump", -1 },
		{ "/tmp/jit-.dump", -1 },
		{ "/tmp/jit-7.dump.old", -1 },
		{ "/tmp/jit-7x.dump", -1 },
		{ "/tmp/xjit-7.dump", -1 },
		{ "jit-7.dump", -1 },
		{ "/tmp/perf-7.map", -1 },
		{ "//anon", -1 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(jitdump_path_pid(t[i].path), t[i].pid);
}

static void test_escape_roundtrip(void **state)
{
	static const char *const paths[] = {
		"/tmp/jit-7.dump",
		"/home/u/.debug/jit/java-jit-20261203.XXab12/jit-42.dump",
		"/tmp/a b_c%d/jit-1.dump",
		"/tmp/\xc3\xa9t\xc3\xa9/jit-3.dump",
	};
	char name[256], back[4096];
	(void)state;

	assert_int_equal(jitdump_escape("/tmp/jit-7.dump", name, sizeof(name)), 0);
	assert_string_equal(name, "_2ftmp_2fjit-7.dump");
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		assert_int_equal(jitdump_escape(paths[i], name, sizeof(name)), 0);
		assert_null(strchr(name, '/'));
		assert_null(strchr(name, '%'));
		assert_int_equal(jit_dump_name_path(name, back, sizeof(back)), 0);
		assert_string_equal(back, paths[i]);
	}
	/* Too long for a file name on the collector, or for out. */
	char longp[200];
	memset(longp, 'a', sizeof(longp));
	memcpy(longp, "/tmp/", 5);
	strcpy(longp + sizeof(longp) - 16, "/jit-1.dump");
	assert_int_equal(jitdump_escape(longp, name, sizeof(name)), 0);
	char longer[300];
	memset(longer, 'a', sizeof(longer));
	longer[0] = '/';
	strcpy(longer + sizeof(longer) - 16, "/jit-1.dump");
	assert_int_equal(jitdump_escape(longer, name, sizeof(name)), -ENAMETOOLONG);
	assert_int_equal(jitdump_escape("/tmp/jit-7.dump", name, 10), -ENAMETOOLONG);
}

static void test_name_path_refused(void **state)
{
	static const char *const bad[] = {
		"perf-7.map",                         /* a JIT map, not a dump */
		"tmp_2fjit-7.dump",                   /* not absolute */
		"_2ftmp_2f_2e_2e_2fetc_2fjit-1.dump", /* .. component */
		"_2ftmp_2f.._2fjit-1.dump",           /* .. (dots are kept as is) */
		"_2ftmp_2f._2fjit-1.dump",            /* . component */
		"_2ftmp_2f_2fjit-1.dump",             /* empty component */
		"_2ftmp_2fjit-1.dump.x",              /* not jit-PID.dump */
		"_2ftmp_2fjit-01.dump",               /* leading 0 */
		"_2ftmp_2fjit_2d1.dump",              /* '-' escaped: the sink never does */
		"_2ftmp_2fjit-1.dump_",               /* bad escape */
		"_2ftmp_2fjit-1.dump_2",
		"_2Ftmp_2fjit-1.dump",                /* upper-case hex */
		"_00_2ftmp_2fjit-1.dump",             /* NUL */
		"_2ftmp_2fa b_2fjit-1.dump",          /* a space left as it is */
		"",
	};
	char back[4096];
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(jit_dump_name_path(bad[i], back, sizeof(back)), -EINVAL);
	assert_int_equal(jit_dump_name_path("_2ftmp_2fjit-1.dump", back, 8), -EINVAL);
}

static void test_dump_base(void **state)
{
	static const struct {
		const char *path, *home;
		size_t base;
	} t[] = {
		{ "/tmp/jit-1.dump", "/root", 4 },
		{ "/tmp/d/e/jit-1.dump", NULL, 4 },
		{ "/tmpx/jit-1.dump", "/root", 0 },
		{ "/tmp", "/root", 0 },
		{ "/tmp/", "/root", 0 },
		{ "/root/.debug/jit/java-jit-x/jit-1.dump", "/root", 16 },
		{ "/root/.debug/jit/java-jit-x/jit-1.dump", "/root/", 16 },
		{ "/root/.debug/jit/jit-1.dump", "/root", 16 },
		{ "/root/.debug/jitx/jit-1.dump", "/root", 0 },
		{ "/root/.debug/jit-1.dump", "/root", 0 },
		{ "/root/.debug/jit/x/jit-1.dump", NULL, 0 },
		{ "/root/.debug/jit/x/jit-1.dump", "", 0 },
		{ "/root/.debug/jit/x/jit-1.dump", "root", 0 },
		{ "/home/u/.debug/jit/x/jit-1.dump", "/root", 0 },
		{ "/.debug/jit/x/jit-1.dump", "/", 11 },
		{ "/root/.debug/jit/x/jit-1.dump", "/x/../root", 0 },
		{ "/etc/jit-1.dump", "/root", 0 },
		{ "/var/tmp/jit-1.dump", "/root", 0 },
		/* A home below /tmp is a home: its .debug/jit rules, not /tmp's. */
		{ "/tmp/h/.debug/jit/x/jit-1.dump", "/tmp/h", 17 },
		{ "/tmp/h/other/jit-1.dump", "/tmp/h", 4 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		size_t got = jit_dump_base(t[i].path, t[i].home);
		if (got != t[i].base)
			fail_msg("%s with HOME %s: %zu, not %zu", t[i].path, t[i].home ? t[i].home : "(unset)",
				 got, t[i].base);
	}
}

/* An MMAP (type 1) or MMAP2 (type 10) record of pid naming name, at out; its size. */
static size_t mmap_rec(uint8_t *out, uint32_t type, int32_t pid, const char *name)
{
	size_t at = type == 1 ? 40 : 72, n = strlen(name) + 1;
	uint16_t size = (uint16_t)((at + n + 7) & ~7u);

	memset(out, 0, size);
	memcpy(out, &type, 4);
	memcpy(out + 6, &size, 2);
	memcpy(out + 8, &pid, 4);
	memcpy(out + at, name, n);
	return size;
}

static void test_dump_set_scan(void **state)
{
	uint8_t buf[4096];
	struct dump_set d = { 0 }, copy;
	size_t len = 0;
	uint32_t comm = 3;
	uint16_t eight = 8;
	uint64_t ino = 4711;
	uint32_t maj = 8;
	(void)state;

	len += mmap_rec(buf + len, 10, 100, "/tmp/j/jit-100.dump");
	memcpy(buf + 40, &maj, 4);  /* MMAP2: the file mapped, to check before shipping */
	memcpy(buf + 48, &ino, 8);
	len += mmap_rec(buf + len, 1, 200, "/home/u/.debug/jit/x/jit-200.dump");
	len += mmap_rec(buf + len, 10, 100, "/tmp/j/jit-100.dump");   /* again: once */
	len += mmap_rec(buf + len, 10, 100, "/usr/lib/libc.so.6");    /* not a dump */
	len += mmap_rec(buf + len, 10, 300, "//anon");
	memcpy(buf + len, &comm, 4);                                  /* another record */
	memcpy(buf + len + 6, &eight, 2);
	len += 8;
	len += mmap_rec(buf + len, 10, 400, "/tmp/jit-400.dump");
	dump_set_scan(&d, buf, len - 3); /* the last record cut short: not read */
	assert_int_equal(d.n, 2);
	assert_int_equal(d.v[0].pid, 100);
	assert_string_equal(d.v[0].path, "/tmp/j/jit-100.dump");
	assert_int_equal(d.v[0].ino, 4711);
	assert_int_equal(d.v[0].maj, 8);
	assert_int_equal(d.v[1].ino, 0); /* MMAP: not known */
	assert_int_equal(d.v[1].pid, 200);
	assert_string_equal(d.v[1].path, "/home/u/.debug/jit/x/jit-200.dump");
	dump_set_scan(&d, buf, len);
	assert_int_equal(d.n, 3);
	assert_string_equal(d.v[2].path, "/tmp/jit-400.dump");
	assert_int_equal(dump_set_copy(&copy, &d), 0);
	assert_int_equal(copy.n, 3);
	assert_string_equal(copy.v[1].path, d.v[1].path);
	assert_int_equal(copy.v[0].ino, 4711);
	assert_ptr_not_equal(copy.v[1].path, d.v[1].path);
	dump_set_free(&copy);
	dump_set_free(&d);
	assert_int_equal(d.n, 0);
}

static void test_status_nspid(void **state)
{
	(void)state;
	assert_int_equal(proc_status_nspid("Name:\tx\nPid:\t4242\nNSpid:\t4242\t17\t1\nNSpgid:\t1\n"), 1);
	assert_int_equal(proc_status_nspid("Name:\tx\nPid:\t4242\nNSpid:\t4242\n"), 4242);
	assert_int_equal(proc_status_nspid("Name:\tx\nPid:\t99\n"), 99); /* a kernel before NSpid */
	assert_int_equal(proc_status_nspid("Name:\tx\nNSpid:\t12 x\n"), -1);
	assert_int_equal(proc_status_nspid("Name:\tx\n"), -1);
	assert_int_equal(proc_status_nspid("Name:\tNSpid:\t5\nPid:\t6\n"), 6); /* at a line start only */
	assert_int_equal(proc_nspid(getpid()) > 0, 1);
	assert_int_equal(proc_other_mntns(getpid()), 0);
}

static void test_root_open(void **state)
{
	char dir[] = "/tmp/test_jit_names.XXXXXX", path[256], link[256], sub[256];
	int fd;
	(void)state;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/perf-1.map", dir);
	snprintf(link, sizeof(link), "%s/link.map", dir);
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "abc", 3), 3);
	close(fd);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(symlink(dir, sub), 0);

	fd = proc_root_open(getpid(), path);
	assert_true(fd >= 0);
	char b[8] = { 0 };
	assert_int_equal(read(fd, b, sizeof(b)), 3);
	assert_string_equal(b, "abc");
	close(fd);
	assert_int_equal(proc_root_open(getpid(), link), -ELOOP);           /* the file a link */
	snprintf(b, sizeof(b), "%s", "");
	char via[300];
	snprintf(via, sizeof(via), "%s/perf-1.map", sub);
	assert_int_equal(proc_root_open(getpid(), via), -ENOTDIR);          /* a link on the way */
	snprintf(via, sizeof(via), "%s/../%s", dir, dir + 5);
	assert_int_equal(proc_root_open(getpid(), via), -EINVAL);           /* .. */
	assert_int_equal(proc_root_open(getpid(), dir), -EINVAL);           /* not a regular file */
	assert_int_equal(proc_root_open(getpid(), "tmp/x"), -EINVAL);       /* not absolute */
	snprintf(via, sizeof(via), "%s/none", dir);
	assert_int_equal(proc_root_open(getpid(), via), -ENOENT);

	/* On the host: only the last component must not be a link. */
	fd = host_open(path);
	assert_true(fd >= 0);
	close(fd);
	snprintf(via, sizeof(via), "%s/perf-1.map", sub);
	fd = host_open(via);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(host_open(link), -ELOOP);
	char fifo[300];
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(host_open(fifo), -EINVAL);  /* and does not block */
	assert_int_equal(proc_root_open(getpid(), fifo), -EINVAL);
	unlink(fifo);
	unlink(link);
	unlink(sub);
	unlink(path);
	rmdir(dir);
}

/* A held root is "/" for the walk, and is neither closed nor moved by it. */
static void test_root_open_at(void **state)
{
	char dir[] = "/tmp/test_jit_names.XXXXXX", path[256], link[256];
	int root, fd;
	(void)state;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/perf-1.map", dir);
	snprintf(link, sizeof(link), "%s/link.map", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(symlink(path, link), 0);
	root = open(dir, O_PATH | O_DIRECTORY);
	assert_true(root >= 0);
	for (int i = 0; i < 2; i++) {
		fd = proc_root_open_at(root, "/perf-1.map");
		assert_true(fd >= 0);
		close(fd);
	}
	assert_int_equal(proc_root_open_at(root, "/link.map"), -ELOOP);
	assert_int_equal(proc_root_open_at(root, "/../perf-1.map"), -EINVAL);
	assert_int_equal(proc_root_open_at(root, "perf-1.map"), -EINVAL);
	assert_int_equal(proc_root_open_at(root, "/none"), -ENOENT);
	close(root);
	unlink(link);
	unlink(path);
	rmdir(dir);
}

static int32_t seen_pids[8];
static size_t nseen;

static void seen(void *arg, int32_t pid)
{
	(void)arg;
	if (nseen < 8)
		seen_pids[nseen++] = pid;
}

/* A record: type, misc 0, size, then pid; COMM 3, FORK 7. */
static size_t put_rec(uint8_t *at, uint32_t type, int32_t pid)
{
	uint16_t size = 16, misc = 0;

	memset(at, 0, size);
	memcpy(at, &type, 4);
	memcpy(at + 4, &misc, 2);
	memcpy(at + 6, &size, 2);
	memcpy(at + 8, &pid, 4);
	return size;
}

/* New pids and every COMM (an exec) are told; a FORK of a known pid is not. */
static void test_pid_set_seen(void **state)
{
	struct pid_set p = { 0 };
	struct held_roots h = { 0 };
	uint8_t buf[96];
	size_t len = 0;
	(void)state;

	len += put_rec(buf + len, 7, 10);
	len += put_rec(buf + len, 7, 10);
	len += put_rec(buf + len, 3, 10);
	len += put_rec(buf + len, 3, 11);
	len += put_rec(buf + len, 7, 11);
	len += put_rec(buf + len, 7, 0);
	pid_set_scan(&p, buf, len, seen, NULL);
	assert_int_equal(nseen, 3);
	assert_int_equal(seen_pids[0], 10);
	assert_int_equal(seen_pids[1], 10);
	assert_int_equal(seen_pids[2], 11);
	assert_int_equal(p.n, 2);
	pid_set_free(&p);

	/* Our own mount namespace: nothing held, nothing counted. */
	held_roots_see(&h, getpid());
	assert_int_equal(h.n, 0);
	assert_null(held_roots_find(&h, getpid()));
	assert_int_equal(held_roots_unheld(&h), 0);
	held_roots_close(&h);
}

/*
 * HELD_ROOTS_MAX + 1 children, each in a mount namespace of its own: the
 * first HELD_ROOTS_MAX are held (root and namespace fds, NSpid), the last
 * is counted once however often it is seen, and a held one seen again (an
 * exec) is held anew, not twice.
 */
static void test_held_roots_bound(void **state)
{
	enum { N = HELD_ROOTS_MAX + 1 };
	struct held_roots h = { 0 };
	int ready[2], release[2], ok = 1;
	pid_t kids[N];
	(void)state;

	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(release), 0);
	for (int i = 0; i < N; i++) {
		char c;

		kids[i] = fork();
		assert_true(kids[i] >= 0);
		if (kids[i] == 0) {
			c = unshare(CLONE_NEWNS) == 0;
			close(release[1]);
			if (write(ready[1], &c, 1) != 1 || read(release[0], &c, 1) < 0)
				_exit(1);
			_exit(0);
		}
		assert_int_equal(read(ready[0], &c, 1), 1);
		ok &= c;
	}
	close(release[0]);
	if (ok) {
		for (int i = 0; i < N; i++)
			held_roots_see(&h, kids[i]);
		held_roots_see(&h, kids[0]);
		held_roots_see(&h, kids[N - 1]);
		assert_int_equal(h.n, HELD_ROOTS_MAX);
		assert_int_equal(held_roots_unheld(&h), 1);
		assert_null(held_roots_find(&h, kids[N - 1]));
		const struct held_root *r = held_roots_find(&h, kids[0]);
		assert_non_null(r);
		assert_true(r->root >= 0 && r->mntns >= 0);
		assert_int_equal(r->nspid, kids[0]); /* its own pid namespace is ours */
	}
	close(release[1]);
	for (int i = 0; i < N; i++)
		waitpid(kids[i], NULL, 0);
	close(ready[0]);
	close(ready[1]);
	held_roots_close(&h);
	assert_int_equal(h.n, 0);
	if (!ok)
		skip(); /* unshare(CLONE_NEWNS) needs CAP_SYS_ADMIN */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dump_path_pid),
		cmocka_unit_test(test_escape_roundtrip),
		cmocka_unit_test(test_name_path_refused),
		cmocka_unit_test(test_dump_base),
		cmocka_unit_test(test_dump_set_scan),
		cmocka_unit_test(test_status_nspid),
		cmocka_unit_test(test_root_open),
		cmocka_unit_test(test_root_open_at),
		cmocka_unit_test(test_pid_set_seen),
		cmocka_unit_test(test_held_roots_bound),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
