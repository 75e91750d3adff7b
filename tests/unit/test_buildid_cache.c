/* perf's build-id cache layout, written by probe/buildid_cache.c into a temporary directory. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <perfsink/kit.h>
#include "probe/buildid.h"
#include "probe/buildid_cache.h"

struct fx {
	char dir[64];     /* the cache */
	int dirfd;        /* it, open for filling */
	char bin[PATH_MAX]; /* an ELF with a build-id: this test program */
	char hex[2 * BUILDID_MAX + 1];
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	uint8_t id[BUILDID_MAX];
	size_t len;
	ssize_t n;

	strcpy(f->dir, "/tmp/test-bidc.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	n = readlink("/proc/self/exe", f->bin, sizeof(f->bin) - 1);
	if (n <= 0 || buildid_read_file(f->bin, id, &len) < 0)
		return -1;
	f->bin[n] = '\0';
	buildid_hex(id, len, f->hex);
	f->dirfd = buildid_cache_open(f->dir, NULL, 0);
	*state = f;
	return f->dirfd < 0 ? -1 : 0;
}

/* Add the file at path as the DSO name, opened as the recorder opens it. */
static int add_file(struct fx *f, const char *name, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = buildid_cache_add_fd(f->dirfd, name, fd, NULL, 0);
	close(fd);
	return r;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];

	close(f->dirfd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

/* <dir><path>/<build-id>/elf and .build-id/xx/yyyy -> ../..<path>/<build-id>. */
static void file_entry_and_link(void **state)
{
	struct fx *f = *state;
	char path[2 * PATH_MAX], link[PATH_MAX], want[2 * PATH_MAX], got[2 * PATH_MAX] = "";
	struct stat a, b;

	assert_int_equal(add_file(f, f->bin, f->bin), 1);
	snprintf(path, sizeof(path), "%s%s/%s/elf", f->dir, f->bin, f->hex);
	assert_int_equal(stat(path, &a), 0);
	assert_int_equal(stat(f->bin, &b), 0);
	assert_int_equal(a.st_size, b.st_size);
	snprintf(link, sizeof(link), "%s/.build-id/%.2s/%s", f->dir, f->hex, f->hex + 2);
	assert_true(readlink(link, got, sizeof(got) - 1) > 0);
	snprintf(want, sizeof(want), "../..%s/%s", f->bin, f->hex);
	assert_string_equal(got, want);
	/* Once there, it is there: 0, nothing changed. */
	assert_int_equal(add_file(f, f->bin, f->bin), 0);
}

/* perf's old layout kept the file itself at <path>/<build-id>: it is replaced. */
static void old_layout_replaced(void **state)
{
	struct fx *f = *state;
	char entry[2 * PATH_MAX], cmd[3 * PATH_MAX];
	struct stat st;
	FILE *old;

	snprintf(entry, sizeof(entry), "%s%s", f->dir, f->bin);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", entry);
	assert_int_equal(system(cmd), 0);
	snprintf(entry + strlen(entry), sizeof(entry) - strlen(entry), "/%s", f->hex);
	old = fopen(entry, "w");
	assert_non_null(old);
	fclose(old);
	assert_int_equal(add_file(f, f->bin, f->bin), 1);
	assert_int_equal(stat(entry, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
}

/* A file without a build-id is skipped, as by perf: nothing is created. */
static void no_build_id_skipped(void **state)
{
	struct fx *f = *state;
	char txt[PATH_MAX], entry[2 * PATH_MAX];
	FILE *t;

	snprintf(txt, sizeof(txt), "%s/plain.txt", f->dir);
	t = fopen(txt, "w");
	assert_non_null(t);
	fputs("not an ELF file\n", t);
	fclose(t);
	assert_true(add_file(f, txt, txt) < 0);
	snprintf(entry, sizeof(entry), "%s%s", f->dir, txt);
	assert_int_not_equal(access(entry, F_OK), 0);
	/* A file is added from its fd only, never by its name. */
	assert_int_equal(buildid_cache_add(f->dirfd, f->bin), -EINVAL);
}

/*
 * A file of another mount namespace, given open: filed under the name that
 * namespace saw (no such path here), its link to that entry.
 */
static void fd_entry_under_its_name(void **state)
{
	struct fx *f = *state;
	const char *name = "/ctr/usr/bin/prog";
	char path[2 * PATH_MAX], link[PATH_MAX], want[2 * PATH_MAX], got[2 * PATH_MAX] = "";
	uint8_t id[BUILDID_MAX];
	size_t len;
	struct stat a, b;
	int fd = open(f->bin, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(buildid_read_fd(fd, id, &len), 0);
	assert_int_equal(buildid_cache_add_fd(f->dirfd, name, fd, id, len), 1);
	snprintf(path, sizeof(path), "%s%s/%s/elf", f->dir, name, f->hex);
	assert_int_equal(stat(path, &a), 0);
	assert_int_equal(fstat(fd, &b), 0);
	assert_int_equal(a.st_size, b.st_size);
	snprintf(link, sizeof(link), "%s/.build-id/%.2s/%s", f->dir, f->hex, f->hex + 2);
	assert_true(readlink(link, got, sizeof(got) - 1) > 0);
	snprintf(want, sizeof(want), "../..%s/%s", name, f->hex);
	assert_string_equal(got, want);
	assert_int_equal(buildid_cache_add_fd(f->dirfd, name, fd, id, len), 0);
	/* fd is the caller's: still open. */
	assert_int_equal(fstat(fd, &b), 0);
	close(fd);
}

/* Never a file under a build-id it does not have; no relative or ".." names. */
static void fd_other_id_refused(void **state)
{
	struct fx *f = *state;
	char entry[2 * PATH_MAX];
	uint8_t id[BUILDID_MAX];
	size_t len;
	int fd = open(f->bin, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(buildid_read_fd(fd, id, &len), 0);
	id[0] ^= 0xff;
	assert_int_equal(buildid_cache_add_fd(f->dirfd, "/ctr/prog", fd, id, len), -ESTALE);
	snprintf(entry, sizeof(entry), "%s/ctr", f->dir);
	assert_int_not_equal(access(entry, F_OK), 0);
	snprintf(entry, sizeof(entry), "%s/.build-id", f->dir);
	assert_int_not_equal(access(entry, F_OK), 0);
	id[0] ^= 0xff;
	assert_int_equal(buildid_cache_add_fd(f->dirfd, "ctr/prog", fd, id, len), -EINVAL);
	assert_int_equal(buildid_cache_add_fd(f->dirfd, "/ctr/../../prog", fd, id, len), -EINVAL);
	assert_int_equal(buildid_cache_add_fd(f->dirfd, "/ctr/..", fd, id, len), -EINVAL);
	close(fd);
}

/* The vDSO under [vdso]/<build-id>/vdso, a complete ELF image. */
static void vdso_entry(void **state)
{
	struct fx *f = *state;
	uint8_t id[BUILDID_MAX];
	size_t len;
	char hex[2 * BUILDID_MAX + 1], path[2 * PATH_MAX], magic[4];
	FILE *v;

	if (buildid_read_vdso(id, &len) < 0)
		skip();
	buildid_hex(id, len, hex);
	assert_true(buildid_cache_add(f->dirfd, "[vdso]") >= 0);
	snprintf(path, sizeof(path), "%s/[vdso]/%s/vdso", f->dir, hex);
	v = fopen(path, "r");
	assert_non_null(v);
	assert_int_equal(fread(magic, 1, 4, v), 4);
	fclose(v);
	assert_memory_equal(magic, "\177ELF", 4);
}

/* The kernel's symbol table, with the addresses root sees: 0600 (perf: 0755). */
static void kallsyms_entry_0600(void **state)
{
	struct fx *f = *state;
	uint8_t id[BUILDID_MAX];
	size_t len;
	char hex[2 * BUILDID_MAX + 1], path[2 * PATH_MAX];
	struct stat st;

	if (buildid_read_kernel(id, &len) < 0)
		skip();
	buildid_hex(id, len, hex);
	assert_int_equal(buildid_cache_add(f->dirfd, "[kernel.kallsyms]"), 1);
	snprintf(path, sizeof(path), "%s/[kernel.kallsyms]/%s/kallsyms", f->dir, hex);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_true(st.st_size > 0);
}

/* A link inside the cache (planted before it was checked): never followed. */
static void link_in_cache_not_followed(void **state)
{
	struct fx *f = *state;
	char link[PATH_MAX], away[PATH_MAX], cmd[3 * PATH_MAX];

	snprintf(away, sizeof(away), "%s.away", f->dir);
	snprintf(link, sizeof(link), "%s/ctr", f->dir);
	assert_int_equal(mkdir(away, 0755), 0);
	assert_int_equal(symlink(away, link), 0);
	assert_int_equal(add_file(f, "/ctr/prog", f->bin), -ELOOP);
	assert_int_equal(rmdir(away), 0); /* empty: nothing went through */
	/* and a link at a file's place is never replaced or written through */
	snprintf(link, sizeof(link), "%s/[vdso]", f->dir);
	assert_int_equal(symlink(away, link), 0);
	assert_true(buildid_cache_add(f->dirfd, "[vdso]") < 0);
	assert_int_not_equal(access(away, F_OK), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", away);
	assert_int_equal(system(cmd), 0);
}

/*
 * A cache below a directory of another user (HOME kept by sudo -E) is
 * refused, also when SUDO_UID names that user; root's is made 0700.
 */
static void foreign_cache_refused(void **state)
{
	struct fx *f = *state;
	char home[PATH_MAX], cache[PATH_MAX + 16], why[512] = "";
	struct stat st;
	int fd;

	snprintf(home, sizeof(home), "%s/alice", f->dir);
	snprintf(cache, sizeof(cache), "%s/.debug", home);
	assert_int_equal(mkdir(home, 0755), 0);
	assert_int_equal(chown(home, 65534, 65534), 0);
	setenv("SUDO_UID", "65534", 1);
	fd = buildid_cache_open(cache, why, sizeof(why));
	unsetenv("SUDO_UID");
	assert_int_equal(fd, -EPERM);
	assert_non_null(strstr(why, "belongs to uid 65534"));
	assert_int_not_equal(access(cache, F_OK), 0);
	snprintf(cache, sizeof(cache), "%s/mine/.debug", f->dir);
	fd = buildid_cache_open(cache, why, sizeof(why));
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(stat(cache, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
}

/* The kit's copy of the rule (sinks read the cache there) gives the same directory. */
static void same_as_kit(void)
{
	char engine[PATH_MAX], kit[PATH_MAX];

	assert_int_equal(buildid_cache_dir(engine, sizeof(engine)), 0);
	assert_int_equal(perfsink_kit_buildid_cache_dir(kit, sizeof(kit)), 0);
	assert_string_equal(engine, kit);
}

/* perf's search: buildid.dir from $PERF_CONFIG, else $HOME/.debug, else ./.debug. */
static void cache_dir(void **state)
{
	struct fx *f = *state;
	char out[PATH_MAX], cfg[PATH_MAX], home[PATH_MAX];
	FILE *c;

	setenv("HOME", "/home/someone", 1);
	setenv("PERF_CONFIG", "/dev/null", 1);
	assert_int_equal(buildid_cache_dir(out, sizeof(out)), 0);
	assert_string_equal(out, "/home/someone/.debug");
	same_as_kit();
	unsetenv("HOME");
	assert_int_equal(buildid_cache_dir(out, sizeof(out)), 0);
	assert_string_equal(out, ".debug");
	same_as_kit();
	snprintf(cfg, sizeof(cfg), "%s/perfconfig", f->dir);
	c = fopen(cfg, "w");
	assert_non_null(c);
	fputs("[report]\n\tdir = /wrong\n[buildid]\n\tdir = /var/cache/bid \n", c);
	fclose(c);
	setenv("PERF_CONFIG", cfg, 1);
	assert_int_equal(buildid_cache_dir(out, sizeof(out)), 0);
	assert_string_equal(out, "/var/cache/bid");
	same_as_kit();
	/* Without $PERF_CONFIG: ~/.perfconfig's buildid.dir. */
	unsetenv("PERF_CONFIG");
	snprintf(home, sizeof(home), "%s", f->dir);
	setenv("HOME", home, 1);
	snprintf(cfg, sizeof(cfg), "%s/.perfconfig", f->dir);
	c = fopen(cfg, "w");
	assert_non_null(c);
	fputs("[buildid]\ndir=/srv/bid\n", c);
	fclose(c);
	same_as_kit();
	/* Not root's nor ours: ignored, as perf does, and said once. */
	char note[PATH_MAX + 128];
	assert_int_equal(chown(cfg, 65534, 65534), 0);
	assert_int_equal(buildid_cache_dir_note(out, sizeof(out), note, sizeof(note)), 0);
	assert_string_equal(out + strlen(f->dir), "/.debug");
	assert_non_null(strstr(note, "belongs to uid 65534"));
	same_as_kit();
	assert_int_equal(chown(cfg, 0, 0), 0);
	assert_int_equal(buildid_cache_dir_note(out, sizeof(out), note, sizeof(note)), 0);
	assert_string_equal(out, "/srv/bid");
	assert_string_equal(note, "");
	setenv("HOME", "/home/someone", 1);
	assert_int_equal(buildid_cache_dir(out, 8), -ENAMETOOLONG);
	assert_int_equal(perfsink_kit_buildid_cache_dir(out, 8), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(file_entry_and_link, setup, teardown),
		cmocka_unit_test_setup_teardown(old_layout_replaced, setup, teardown),
		cmocka_unit_test_setup_teardown(no_build_id_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(vdso_entry, setup, teardown),
		cmocka_unit_test_setup_teardown(fd_entry_under_its_name, setup, teardown),
		cmocka_unit_test_setup_teardown(fd_other_id_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(kallsyms_entry_0600, setup, teardown),
		cmocka_unit_test_setup_teardown(link_in_cache_not_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(foreign_cache_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(cache_dir, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
