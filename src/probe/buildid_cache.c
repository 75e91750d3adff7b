/* perf's build-id cache: see buildid_cache.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>
#include "probe/buildid.h"
#include "probe/buildid_cache.h"

#define KALLSYMS "[kernel.kallsyms]"
#define VDSO "[vdso]"
#define DEBUG_DIR "/usr/lib/debug/.build-id"

enum kind { K_FILE, K_KALLSYMS, K_VDSO };

/* mkdir -p path (mode 0755, as perf's mkdir_p). */
static int mkdir_p(const char *path)
{
	char p[PATH_MAX];

	if (snprintf(p, sizeof(p), "%s", path) >= (int)sizeof(p))
		return -ENAMETOOLONG;
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s)
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return -errno;
		if (!c)
			return 0;
		*s = c;
	}
}

/* Every byte of p[0..n) to fd. */
static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* All of in, from its start (pread: its offset is left alone), to out. */
static int copy_fd(int in, int out)
{
	char buf[65536];
	off_t at = 0;

	for (;;) {
		ssize_t n = pread(in, buf, sizeof(buf), at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		int r = write_all(out, buf, (size_t)n);
		if (r < 0)
			return r;
		at += n;
	}
}

/* The vDSO image of this process: the kernel maps the same one into every process of an ABI. */
static int vdso_image(const void **p, size_t *len)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	FILE *f;
	char line[512];
	int r = -ENOENT;

	if (!base)
		return -ENOENT;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo == base) {
			*p = (const void *)lo;
			*len = hi - lo;
			r = 0;
			break;
		}
	}
	fclose(f);
	return r;
}

/* Fill fd with the content the cache keeps: the vDSO, /proc/kallsyms or the file open as in. */
static int fill(int fd, enum kind k, int in)
{
	if (k == K_VDSO) {
		const void *p = NULL;
		size_t len = 0;
		int r = vdso_image(&p, &len);
		return r < 0 ? r : write_all(fd, p, len);
	}
	if (k == K_FILE)
		return copy_fd(in, fd);
	in = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	int r = copy_fd(in, fd);
	close(in);
	return r;
}

/* A copy of an ELF file holds the build-id it is filed under (hex), or -ESTALE. */
static int check_copy(int fd, enum kind k, const char *hex)
{
	uint8_t id[BUILDID_MAX];
	char got[2 * BUILDID_MAX + 1];
	size_t len = 0;

	if (k != K_FILE)
		return 0;
	if (buildid_read_fd(fd, id, &len) < 0)
		return -ESTALE;
	buildid_hex(id, len, got);
	return strcmp(got, hex) ? -ESTALE : 0;
}

/*
 * dst made complete or not at all: written into an unnamed file in its
 * directory, linked in once done (a temporary name where O_TMPFILE is not
 * supported, renamed).  An ELF file (in) is copied and linked in only when
 * the copy has the build-id hex: the file may change while it is read.
 */
static int create_copy(const char *dir, const char *dst, enum kind k, int in, const char *hex,
		       mode_t mode)
{
	char proc[64], tmp[PATH_MAX];
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	bool named = false;
	int r;

	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		if (snprintf(tmp, sizeof(tmp), "%s/.tmp-XXXXXX", dir) >= (int)sizeof(tmp))
			return -ENAMETOOLONG;
		fd = mkostemp(tmp, O_CLOEXEC);
		named = true;
	}
	if (fd < 0)
		return -errno;
	r = fill(fd, k, in);
	if (r == 0)
		r = check_copy(fd, k, hex);
	if (r == 0 && fchmod(fd, mode) < 0)
		r = -errno;
	if (r == 0 && named && rename(tmp, dst) < 0)
		r = -errno;
	if (r == 0 && !named) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		if (linkat(AT_FDCWD, proc, AT_FDCWD, dst, AT_SYMLINK_FOLLOW) < 0 && errno != EEXIST)
			r = -errno;
	}
	if (r < 0 && named)
		unlink(tmp);
	close(fd);
	return r;
}

/*
 * dst as a hard link to the file open as in (same mount), else a copy
 * with its mode.  The link is made through /proc/self/fd: the very file
 * whose build-id was read, whatever its name points to by now.
 */
static int link_or_copy_fd(const char *dir, int in, const char *hex, const char *dst)
{
	char proc[64];
	struct stat st;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", in);
	if (linkat(AT_FDCWD, proc, AT_FDCWD, dst, AT_SYMLINK_FOLLOW) == 0 || errno == EEXIST)
		return 0;
	if (fstat(in, &st) < 0)
		return -errno;
	return create_copy(dir, dst, K_FILE, in, hex, st.st_mode & 07777);
}

static int read_id(enum kind k, char hex[2 * BUILDID_MAX + 1])
{
	uint8_t id[BUILDID_MAX];
	size_t len = 0;
	int r = k == K_KALLSYMS ? buildid_read_kernel(id, &len) : buildid_read_vdso(id, &len);

	if (r == 0)
		buildid_hex(id, len, hex);
	return r;
}

/* A stripped binary's separate debug file, as perf caches it beside elf. */
static void add_debug_file(const char *entry, const char *hex)
{
	char dbg[PATH_MAX], dst[PATH_MAX];
	int fd;

	snprintf(dbg, sizeof(dbg), DEBUG_DIR "/%.2s/%s.debug", hex, hex + 2);
	if (snprintf(dst, sizeof(dst), "%s/debug", entry) >= (int)sizeof(dst) || access(dst, F_OK) == 0)
		return;
	fd = open(dbg, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	link_or_copy_fd(entry, fd, hex, dst);
	close(fd);
}

/* DIR/.build-id/xx/yyyy -> ../../<entry below DIR>, as perf links it. */
static int add_link(const char *dir, const char *entry, const char *hex)
{
	char link_dir[PATH_MAX], link_path[PATH_MAX], target[PATH_MAX];
	int r;

	if (snprintf(link_dir, sizeof(link_dir), "%s/.build-id/%.2s", dir, hex) >= (int)sizeof(link_dir) ||
	    snprintf(link_path, sizeof(link_path), "%s/%s", link_dir, hex + 2) >= (int)sizeof(link_path) ||
	    snprintf(target, sizeof(target), "../..%s", entry + strlen(dir)) >= (int)sizeof(target))
		return -ENAMETOOLONG;
	if ((r = mkdir_p(link_dir)) < 0)
		return r;
	if (symlink(target, link_path) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* The directory DIR/<path>/<hex> into entry; perf's old layout (a file there) replaced. */
static int make_entry(const char *dir, const char *path, const char *hex, char entry[PATH_MAX])
{
	struct stat st;
	int n = snprintf(entry, PATH_MAX, "%s%s%s/%s", dir, path[0] == '/' ? "" : "/", path, hex);

	if (n < 0 || n >= PATH_MAX)
		return -ENAMETOOLONG;
	if (stat(entry, &st) == 0 && S_ISREG(st.st_mode) && unlink(entry) < 0)
		return -errno;
	return mkdir_p(entry);
}

/* DIR/<path>/<hex>/elf from the file open as fd, its debug file, the .build-id link. */
static int add_elf(const char *dir, const char *path, int fd, const char *hex)
{
	char entry[PATH_MAX], file[PATH_MAX];
	size_t n = strlen(path);
	int r, added = 0;

	if ((r = make_entry(dir, path, hex, entry)) < 0)
		return r;
	if (snprintf(file, sizeof(file), "%s/elf", entry) >= (int)sizeof(file))
		return -ENAMETOOLONG;
	if (access(file, F_OK) < 0) {
		if ((r = link_or_copy_fd(entry, fd, hex, file)) < 0)
			return r;
		added = 1;
	}
	if (n < 3 || strcmp(path + n - 3, ".ko"))
		add_debug_file(entry, hex);
	r = add_link(dir, entry, hex);
	return r < 0 ? r : added;
}

/* The build-id of the file open as fd in hex; -ESTALE when want (want_len > 0) is another. */
static int fd_id(int fd, const uint8_t *want, size_t want_len, char hex[2 * BUILDID_MAX + 1])
{
	uint8_t id[BUILDID_MAX];
	size_t len = 0;
	int r = buildid_read_fd(fd, id, &len);

	if (r < 0)
		return r;
	if (want_len && (want_len != len || memcmp(want, id, len)))
		return -ESTALE;
	buildid_hex(id, len, hex);
	return 0;
}

int buildid_cache_add(const char *dir, const char *name)
{
	enum kind k = !strcmp(name, KALLSYMS) ? K_KALLSYMS : !strcmp(name, VDSO) ? K_VDSO : K_FILE;
	char hex[2 * BUILDID_MAX + 1], real[PATH_MAX], entry[PATH_MAX], file[PATH_MAX];
	int r, fd;

	if (k == K_FILE) {
		/* O_NONBLOCK: a FIFO or device named in a map must not hang us. */
		if ((fd = open(name, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
			return -errno;
		r = fd_id(fd, NULL, 0, hex);
		if (r == 0 && !realpath(name, real))
			r = -errno;
		if (r == 0)
			r = add_elf(dir, real, fd, hex);
		close(fd);
		return r;
	}
	if ((r = read_id(k, hex)) < 0 || (r = make_entry(dir, name, hex, entry)) < 0)
		return r;
	if (snprintf(file, sizeof(file), "%s/%s", entry, k == K_KALLSYMS ? "kallsyms" : "vdso") >=
	    (int)sizeof(file))
		return -ENAMETOOLONG;
	if (access(file, F_OK) == 0)
		return (r = add_link(dir, entry, hex)) < 0 ? r : 0;
	/* perf's modes */
	if ((r = create_copy(entry, file, k, -1, hex, k == K_KALLSYMS ? 0755 : 0600)) < 0 ||
	    (r = add_link(dir, entry, hex)) < 0)
		return r;
	return 1;
}

int buildid_cache_add_fd(const char *dir, const char *name, int fd, const uint8_t *want,
			 size_t want_len)
{
	char hex[2 * BUILDID_MAX + 1];
	int r;

	/* The name as that namespace's kernel wrote it: absolute, no "..". */
	if (name[0] != '/' || strstr(name, "/../") || (strlen(name) >= 3 && !strcmp(name + strlen(name) - 3, "/..")))
		return -EINVAL;
	if ((r = fd_id(fd, want, want_len, hex)) < 0)
		return r;
	return add_elf(dir, name, fd, hex);
}
