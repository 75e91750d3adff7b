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
#include "buildid.h"
#include "buildid_cache.h"

struct fx {
	char dir[64];     /* the cache */
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
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

/* <dir><real path>/<build-id>/elf and .build-id/xx/yyyy -> ../..<real path>/<build-id>. */
static void file_entry_and_link(void **state)
{
	struct fx *f = *state;
	char path[2 * PATH_MAX], link[PATH_MAX], want[2 * PATH_MAX], got[2 * PATH_MAX] = "";
	struct stat a, b;

	assert_int_equal(buildid_cache_add(f->dir, f->bin), 1);
	snprintf(path, sizeof(path), "%s%s/%s/elf", f->dir, f->bin, f->hex);
	assert_int_equal(stat(path, &a), 0);
	assert_int_equal(stat(f->bin, &b), 0);
	assert_int_equal(a.st_size, b.st_size);
	snprintf(link, sizeof(link), "%s/.build-id/%.2s/%s", f->dir, f->hex, f->hex + 2);
	assert_true(readlink(link, got, sizeof(got) - 1) > 0);
	snprintf(want, sizeof(want), "../..%s/%s", f->bin, f->hex);
	assert_string_equal(got, want);
	/* Once there, it is there: 0, nothing changed. */
	assert_int_equal(buildid_cache_add(f->dir, f->bin), 0);
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
	assert_int_equal(buildid_cache_add(f->dir, f->bin), 1);
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
	assert_true(buildid_cache_add(f->dir, txt) < 0);
	snprintf(entry, sizeof(entry), "%s%s", f->dir, txt);
	assert_int_not_equal(access(entry, F_OK), 0);
	assert_true(buildid_cache_add(f->dir, "/nonexistent/x") < 0);
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
	assert_int_equal(buildid_cache_add_fd(f->dir, name, fd, id, len), 1);
	snprintf(path, sizeof(path), "%s%s/%s/elf", f->dir, name, f->hex);
	assert_int_equal(stat(path, &a), 0);
	assert_int_equal(fstat(fd, &b), 0);
	assert_int_equal(a.st_size, b.st_size);
	snprintf(link, sizeof(link), "%s/.build-id/%.2s/%s", f->dir, f->hex, f->hex + 2);
	assert_true(readlink(link, got, sizeof(got) - 1) > 0);
	snprintf(want, sizeof(want), "../..%s/%s", name, f->hex);
	assert_string_equal(got, want);
	assert_int_equal(buildid_cache_add_fd(f->dir, name, fd, id, len), 0);
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
	assert_int_equal(buildid_cache_add_fd(f->dir, "/ctr/prog", fd, id, len), -ESTALE);
	snprintf(entry, sizeof(entry), "%s/ctr", f->dir);
	assert_int_not_equal(access(entry, F_OK), 0);
	snprintf(entry, sizeof(entry), "%s/.build-id", f->dir);
	assert_int_not_equal(access(entry, F_OK), 0);
	id[0] ^= 0xff;
	assert_int_equal(buildid_cache_add_fd(f->dir, "ctr/prog", fd, id, len), -EINVAL);
	assert_int_equal(buildid_cache_add_fd(f->dir, "/ctr/../../prog", fd, id, len), -EINVAL);
	assert_int_equal(buildid_cache_add_fd(f->dir, "/ctr/..", fd, id, len), -EINVAL);
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
	assert_true(buildid_cache_add(f->dir, "[vdso]") >= 0);
	snprintf(path, sizeof(path), "%s/[vdso]/%s/vdso", f->dir, hex);
	v = fopen(path, "r");
	assert_non_null(v);
	assert_int_equal(fread(magic, 1, 4, v), 4);
	fclose(v);
	assert_memory_equal(magic, "\177ELF", 4);
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
		cmocka_unit_test_setup_teardown(cache_dir, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
