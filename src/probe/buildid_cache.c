/* perf's build-id cache: see buildid_cache.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <perfsink/kit.h>
#include "probe/buildid.h"
#include "probe/buildid_cache.h"

#define KALLSYMS "[kernel.kallsyms]"
#define VDSO "[vdso]"
#define DEBUG_DIR "/usr/lib/debug/.build-id"
#define WHAT "fill the build-id cache"
/* Every directory below the cache: made 0700, never through a link, root's or ours. */
#define WALK (PERFSINK_KIT_DIR_MKDIR | PERFSINK_KIT_DIR_OWN)

enum kind { K_FILE, K_KALLSYMS, K_VDSO };

int buildid_cache_open(const char *dir, char *why, size_t n)
{
	return perfsink_kit_dir_open(dir, WALK, "use the build-id cache", why, n);
}

/* The directory rel below the cache (dirfd), made as needed: an O_PATH fd or -errno. */
static int walk(int dirfd, const char *rel)
{
	return perfsink_kit_dir_walk(dirfd, rel, WALK, WHAT, "<cache>", NULL, 0);
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

/* fd (an unnamed file) linked in as name below dirfd; an existing name is kept. */
static int link_in(int fd, int dirfd, const char *name)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (linkat(AT_FDCWD, proc, dirfd, name, AT_SYMLINK_FOLLOW) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/*
 * A new file beside name, created without following a link: an unnamed
 * one (O_TMPFILE), else a random name (*tmp) no one can have planted.
 */
static int new_file(int dirfd, char tmp[32])
{
	uint64_t r = 0;
	int fd = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	tmp[0] = '\0';
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd < 0 ? -errno : fd;
	if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return -EIO;
	snprintf(tmp, 32, ".tmp-%016llx", (unsigned long long)r);
	fd = openat(dirfd, tmp, O_CREAT | O_EXCL | O_NOFOLLOW | O_RDWR | O_CLOEXEC, 0600);
	return fd < 0 ? -errno : fd;
}

/*
 * name below dirfd made complete or not at all: written into a new file
 * beside it (new_file), linked in once done.  An ELF file (in) is copied
 * and linked in only when the copy has the build-id hex: the file may
 * change while it is read.
 */
static int create_copy(int dirfd, const char *name, enum kind k, int in, const char *hex, mode_t mode)
{
	char tmp[32];
	int fd = new_file(dirfd, tmp), r;

	if (fd < 0)
		return fd;
	r = fill(fd, k, in);
	if (r == 0)
		r = check_copy(fd, k, hex);
	if (r == 0 && fchmod(fd, mode) < 0)
		r = -errno;
	if (r == 0 && tmp[0] && linkat(dirfd, tmp, dirfd, name, 0) < 0 && errno != EEXIST)
		r = -errno;
	if (r == 0 && !tmp[0])
		r = link_in(fd, dirfd, name);
	if (tmp[0])
		unlinkat(dirfd, tmp, 0);
	close(fd);
	return r;
}

/*
 * name below dirfd as a hard link to the file open as in (same mount),
 * else a copy with its permission bits (never set-id).  The link is made
 * through /proc/self/fd: the very file whose build-id was read, whatever
 * its name points to by now.
 */
static int link_or_copy_fd(int dirfd, const char *name, int in, const char *hex)
{
	struct stat st;

	if (link_in(in, dirfd, name) == 0)
		return 0;
	if (fstat(in, &st) < 0)
		return -errno;
	return create_copy(dirfd, name, K_FILE, in, hex, st.st_mode & 0777);
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

/* A stripped binary's separate debug file (root's tree), as perf caches it beside elf. */
static void add_debug_file(int entry, const char *hex)
{
	char dbg[PATH_MAX];
	int fd;

	snprintf(dbg, sizeof(dbg), DEBUG_DIR "/%.2s/%s.debug", hex, hex + 2);
	if (faccessat(entry, "debug", F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		return;
	fd = open(dbg, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	link_or_copy_fd(entry, "debug", fd, hex);
	close(fd);
}

/* .build-id/xx/yyyy -> ../../<rel>/<hex>, as perf links it. */
static int add_link(int dirfd, const char *rel, const char *hex)
{
	char sub[16], target[PATH_MAX];
	int lfd, r = 0;

	snprintf(sub, sizeof(sub), ".build-id/%.2s", hex);
	if (snprintf(target, sizeof(target), "../../%s/%s", rel, hex) >= (int)sizeof(target))
		return -ENAMETOOLONG;
	if ((lfd = walk(dirfd, sub)) < 0)
		return lfd;
	if (symlinkat(target, lfd, hex + 2) < 0 && errno != EEXIST)
		r = -errno;
	close(lfd);
	return r;
}

/* The directory <rel>/<hex> below the cache: an fd; perf's old layout (a file there) replaced. */
static int make_entry(int dirfd, const char *rel, const char *hex)
{
	struct stat st;
	int pfd = walk(dirfd, rel), efd;

	if (pfd < 0)
		return pfd;
	if (fstatat(pfd, hex, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	    unlinkat(pfd, hex, 0) < 0) {
		efd = -errno;
		close(pfd);
		return efd;
	}
	efd = walk(pfd, hex);
	close(pfd);
	return efd;
}

/* <rel>/<hex>/elf from the file open as fd, its debug file, the .build-id link. */
static int add_elf(int dirfd, const char *rel, int fd, const char *hex)
{
	size_t n = strlen(rel);
	int efd = make_entry(dirfd, rel, hex), r = 0, added = 0;

	if (efd < 0)
		return efd;
	if (faccessat(efd, "elf", F_OK, AT_SYMLINK_NOFOLLOW) < 0) {
		r = link_or_copy_fd(efd, "elf", fd, hex);
		added = r == 0;
	}
	if (r == 0 && (n < 3 || strcmp(rel + n - 3, ".ko")))
		add_debug_file(efd, hex);
	close(efd);
	if (r == 0)
		r = add_link(dirfd, rel, hex);
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

int buildid_cache_add(int dirfd, const char *name)
{
	enum kind k = !strcmp(name, KALLSYMS) ? K_KALLSYMS : !strcmp(name, VDSO) ? K_VDSO : K_FILE;
	const char *base = k == K_KALLSYMS ? "kallsyms" : "vdso";
	char hex[2 * BUILDID_MAX + 1];
	int r, efd;

	if (k == K_FILE)
		return -EINVAL;
	if ((r = read_id(k, hex)) < 0 || (efd = make_entry(dirfd, name, hex)) < 0)
		return r < 0 ? r : efd;
	if (faccessat(efd, base, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
		close(efd);
		return (r = add_link(dirfd, name, hex)) < 0 ? r : 0;
	}
	/* kallsyms as root reads it, with the kernel's addresses: 0600. */
	r = create_copy(efd, base, k, -1, hex, 0600);
	close(efd);
	if (r < 0 || (r = add_link(dirfd, name, hex)) < 0)
		return r;
	return 1;
}

/* A name as a kernel wrote it: absolute, no "." or ".." component. */
static bool name_ok(const char *name)
{
	if (name[0] != '/' || !name[1])
		return false;
	for (const char *c = name; c; c = strchr(c + 1, '/')) {
		size_t n = strcspn(c + 1, "/");
		if (n == 0 || (n == 1 && c[1] == '.') || (n == 2 && c[1] == '.' && c[2] == '.'))
			return false;
	}
	return true;
}

int buildid_cache_add_fd(int dirfd, const char *name, int fd, const uint8_t *want, size_t want_len)
{
	char hex[2 * BUILDID_MAX + 1];
	int r;

	if (!name_ok(name))
		return -EINVAL;
	if ((r = fd_id(fd, want, want_len, hex)) < 0)
		return r;
	return add_elf(dirfd, name + 1, fd, hex);
}
