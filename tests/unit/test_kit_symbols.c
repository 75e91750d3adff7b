/*
 * perfsink_kit_sym_read (libperfsink-sink) for an ELF entry: perf's
 * build-id cache under a temporary HOME first (by name, else by its
 * .build-id link), its build-id checked there too, else the recorded path
 * only when anyone could read the file there; it says why when neither has
 * it.  The file is this test program (it has a build-id); the "other" file
 * at its recorded path is true(1).  A cache in another user's directory,
 * a path through a link or to a file others may not read: not read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <perfsink/kit.h>

struct fx {
	char home[64];
	char cache[128];
	char exe[PATH_MAX];
	char other[PATH_MAX];          /* true(1), as the kernel names it: no link on its path */
	struct perfsink_kit_buf img;   /* the test program's bytes */
	char hex[2 * PERFSINK_KIT_BUILD_ID_MAX + 1];
	struct perfsink_kit_buf out;
};

static int sh(const char *fmt, const char *a, const char *b)
{
	char cmd[3 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), fmt, a, b);
	return system(cmd);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	uint8_t id[PERFSINK_KIT_BUILD_ID_MAX];
	size_t idlen;
	uint64_t size;
	ssize_t n;

	strcpy(f->home, "/tmp/test-kitsym.XXXXXX");
	if (!f || !mkdtemp(f->home))
		return -1;
	snprintf(f->cache, sizeof(f->cache), "%s/.debug", f->home);
	setenv("HOME", f->home, 1);
	setenv("PERF_CONFIG", "/dev/null", 1); /* no buildid.dir of this machine's */
	n = readlink("/proc/self/exe", f->exe, sizeof(f->exe) - 1);
	if (n <= 0)
		return -1;
	f->exe[n] = '\0';
	if (!realpath("/bin/true", f->other))
		return -1;
	if (perfsink_kit_file_read(f->exe, 0, &f->img, &size) ||
	    perfsink_kit_elf_build_id(f->img.data, f->img.len, id, &idlen))
		return -1;
	perfsink_kit_build_id_hex(id, idlen, f->hex);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	int r = sh("rm -rf '%s'%s", f->home, "");

	perfsink_kit_buf_free(&f->img);
	perfsink_kit_buf_free(&f->out);
	free(f);
	return r ? -1 : 0;
}

/* perf's layout: CACHE/ctr/prog/HEX/elf (a copy of src) and CACHE/.build-id/xx/yyyy -> it. */
static void cache_put(const struct fx *f, const char *hex, const char *src)
{
	char entry[PATH_MAX], elf[PATH_MAX + 8], link[PATH_MAX], target[PATH_MAX];

	snprintf(entry, sizeof(entry), "%s/ctr/prog/%s", f->cache, hex);
	snprintf(elf, sizeof(elf), "%s/elf", entry);
	assert_int_equal(sh("mkdir -p '%s'%s", entry, ""), 0);
	assert_int_equal(sh("cp '%s' '%s'", src, elf), 0);
	snprintf(link, sizeof(link), "%s/.build-id/%.2s", f->cache, hex);
	assert_int_equal(sh("mkdir -p '%s'%s", link, ""), 0);
	snprintf(link + strlen(link), sizeof(link) - strlen(link), "/%s", hex + 2);
	snprintf(target, sizeof(target), "../../ctr/prog/%s", hex);
	assert_int_equal(symlink(target, link), 0);
}

static struct perfsink_kit_build_id entry(const struct fx *f, const char *path)
{
	struct perfsink_kit_build_id b = { .name = path, .kind = PERFSINK_KIT_SYM_ELF };

	memcpy(b.hex, f->hex, sizeof(b.hex));
	return b;
}

/* The cache dir: $HOME/.debug, or buildid.dir of $PERF_CONFIG. */
static void cache_dir(void **state)
{
	struct fx *f = *state;
	char out[4096], cfg[PATH_MAX], small[8];
	FILE *c;

	assert_int_equal(perfsink_kit_buildid_cache_dir(out, sizeof(out)), 0);
	assert_string_equal(out, f->cache);
	snprintf(cfg, sizeof(cfg), "%s/perfconfig", f->home);
	c = fopen(cfg, "w");
	assert_non_null(c);
	fputs("[buildid]\n\tdir = /var/cache/bid\n", c);
	fclose(c);
	setenv("PERF_CONFIG", cfg, 1);
	assert_int_equal(perfsink_kit_buildid_cache_dir(out, sizeof(out)), 0);
	assert_string_equal(out, "/var/cache/bid");
	setenv("PERF_CONFIG", "/dev/null", 1);
	assert_int_equal(perfsink_kit_buildid_cache_dir(small, sizeof(small)), -ENAMETOOLONG);
}

/* Another file at the path (a container's binary, bind-mounted there). */
static void other_file_at_path(void **state)
{
	struct fx *f = *state;
	struct perfsink_kit_build_id b = entry(f, f->other);
	uint64_t size = 0;

	assert_int_equal(perfsink_kit_sym_read(&b, 0, &f->out, &size), -ESTALE);
	assert_int_equal(f->out.len, 0);
	cache_put(f, f->hex, f->exe);
	assert_int_equal(perfsink_kit_sym_read(&b, 0, &f->out, &size), 0);
	assert_int_equal(size, f->img.len);
	assert_int_equal(f->out.len, f->img.len);
	assert_memory_equal(f->out.data, f->img.data, f->img.len);
	/* The cache's copy is over max too: -EFBIG with its size. */
	assert_int_equal(perfsink_kit_sym_read(&b, 4096, &f->out, &size), -EFBIG);
	assert_int_equal(size, f->img.len);
	assert_int_equal(f->out.len, 0);
}

/* No file at the path any more: the cache's, else the path's error. */
static void path_gone(void **state)
{
	struct fx *f = *state;
	struct perfsink_kit_build_id b = entry(f, "/nonexistent/prog");
	uint64_t size = 0;

	assert_int_equal(perfsink_kit_sym_read(&b, 0, &f->out, &size), -ENOENT);
	cache_put(f, f->hex, f->exe);
	assert_int_equal(perfsink_kit_sym_read(&b, 0, &f->out, &size), 0);
	assert_memory_equal(f->out.data, f->img.data, f->img.len);
}

/* The cache checked too: a file there under a build-id it does not have is not taken. */
static void cache_checked(void **state)
{
	struct fx *f = *state;
	struct perfsink_kit_build_id b = entry(f, "/nonexistent/prog");
	uint64_t size = 0;

	cache_put(f, f->hex, f->other);
	assert_int_equal(perfsink_kit_sym_read(&b, 0, &f->out, &size), -ESTALE);
	assert_int_equal(f->out.len, 0);
}

/* perf's old layout: .build-id/xx/yyyy -> the file itself. */
static void old_layout(void **state)
{
	struct fx *f = *state;
	struct perfsink_kit_build_id b = entry(f, f->other);
	char dir[PATH_MAX], file[PATH_MAX], link[PATH_MAX], target[PATH_MAX];
	uint64_t size = 0;

	snprintf(dir, sizeof(dir), "%s/ctr/prog", f->cache);
	snprintf(file, sizeof(file), "%s/%s", dir, f->hex);
	assert_int_equal(sh("mkdir -p '%s'%s", dir, ""), 0);
	assert_int_equal(sh("cp '%s' '%s'", f->exe, file), 0);
	snprintf(link, sizeof(link), "%s/.build-id/%.2s", f->cache, f->hex);
	assert_int_equal(sh("mkdir -p '%s'%s", link, ""), 0);
	snprintf(link + strlen(link), sizeof(link) - strlen(link), "/%s", f->hex + 2);
	snprintf(target, sizeof(target), "../../ctr/prog/%s", f->hex);
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(perfsink_kit_sym_read(&b, 0, &f->out, &size), 0);
	assert_memory_equal(f->out.data, f->img.data, f->img.len);
}

/*
 * The file the cache has under the recorded name comes first: the very
 * file perfsink record cached, though the path has one of the same
 * build-id (a copy with more in it, a secret appended).
 */
static void cache_before_path(void **state)
{
	struct fx *f = *state;
	char entry_dir[512], path[128];
	struct perfsink_kit_build_id b;
	uint64_t size = 0;

	snprintf(path, sizeof(path), "%s/prog", f->home);
	assert_int_equal(sh("cp '%s' '%s'", f->exe, path), 0);
	assert_int_equal(sh("echo SECRET >> '%s'%s", path, ""), 0);
	b = entry(f, path);
	snprintf(entry_dir, sizeof(entry_dir), "%s%s/%s", f->cache, path, f->hex);
	assert_int_equal(sh("mkdir -p '%s'%s", entry_dir, ""), 0);
	assert_int_equal(sh("cp '%s' '%s/elf'", f->exe, entry_dir), 0);
	assert_int_equal(perfsink_kit_sym_read(&b, 0, &f->out, &size), 0);
	assert_int_equal(f->out.len, f->img.len);
	assert_memory_equal(f->out.data, f->img.data, f->img.len);
}

/* At the path only what anyone may read, never through a link. */
static void path_only_when_public(void **state)
{
	struct fx *f = *state;
	char path[128], link[128];
	struct perfsink_kit_build_id b;
	uint64_t size = 0;

	snprintf(path, sizeof(path), "%s/prog", f->home);
	assert_int_equal(sh("cp '%s' '%s'", f->exe, path), 0);
	assert_int_equal(chmod(f->home, 0755), 0);
	assert_int_equal(chmod(path, 0644), 0);
	b = entry(f, path);
	assert_int_equal(perfsink_kit_sym_read(&b, 0, &f->out, &size), 0);
	assert_int_equal(chmod(path, 0600), 0);   /* root's only */
	assert_int_equal(perfsink_kit_sym_read(&b, 0, &f->out, &size), -EACCES);
	assert_int_equal(f->out.len, 0);
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(chmod(f->home, 0700), 0); /* in a directory others may not search */
	assert_int_equal(perfsink_kit_sym_read(&b, 0, &f->out, &size), -EACCES);
	assert_int_equal(chmod(f->home, 0755), 0);
	snprintf(link, sizeof(link), "%s/link", f->home);
	assert_int_equal(symlink(path, link), 0);
	b = entry(f, link);
	assert_int_equal(perfsink_kit_sym_read(&b, 0, &f->out, &size), -ELOOP);
}

/* A cache below another user's directory (sudo -E's HOME) is not read. */
static void foreign_cache_not_read(void **state)
{
	struct fx *f = *state;
	struct perfsink_kit_build_id b = entry(f, "/nonexistent/prog");
	uint64_t size = 0;

	cache_put(f, f->hex, f->exe);
	assert_int_equal(chown(f->home, 65534, 65534), 0);
	setenv("SUDO_UID", "65534", 1);
	assert_int_equal(perfsink_kit_sym_read(&b, 0, &f->out, &size), -ENOENT);
	unsetenv("SUDO_UID");
	assert_int_equal(chown(f->home, 0, 0), 0);
	assert_int_equal(perfsink_kit_sym_read(&b, 0, &f->out, &size), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(cache_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(other_file_at_path, setup, teardown),
		cmocka_unit_test_setup_teardown(path_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(cache_checked, setup, teardown),
		cmocka_unit_test_setup_teardown(old_layout, setup, teardown),
		cmocka_unit_test_setup_teardown(cache_before_path, setup, teardown),
		cmocka_unit_test_setup_teardown(path_only_when_public, setup, teardown),
		cmocka_unit_test_setup_teardown(foreign_cache_not_read, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
