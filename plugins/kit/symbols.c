/* The files behind a recording's build-ids; see kit.h. */
#include <perfsink/kit.h>
#include "debuglink.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define REC_HDR PERFSINK_KIT_REC_HDR
#define MISC_BUILD_ID_SIZE (1u << 15) /* PERF_RECORD_MISC_BUILD_ID_SIZE */
#define KERNEL_NAME "[kernel.kallsyms]"
#define VDSO_NAME "[vdso]"
#define DEBUG_ROOT "/usr/lib/debug/.build-id"

/* reserved byte 21 of a build-id: mapped, no sample fell in it (perfsink record). */
#define MAPPED_ONLY 2

int perfsink_kit_build_id_next(const uint8_t *p, size_t len, size_t *off,
			       struct perfsink_kit_build_id *out)
{
	/* struct perf_record_header_build_id: header, pid, id[24], name. */
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec rec;

	perfsink_kit_rec_iter_init(&it, p, len);
	it.off = *off < len ? *off : len;
	while (perfsink_kit_rec_next(&it, &rec) && rec.size >= REC_HDR + 4 + 24) {
		const uint8_t *r = rec.p;
		size_t n, nl;

		*off = it.off;
		n = (rec.misc & MISC_BUILD_ID_SIZE) ? r[REC_HDR + 4 + 20] : 20;
		nl = strnlen((const char *)r + 36, rec.size - 36u);
		if (n < 1 || n > PERFSINK_KIT_BUILD_ID_MAX || nl == rec.size - 36u || !nl)
			continue;
		perfsink_kit_build_id_hex(r + 12, n, out->hex);
		out->name = (const char *)r + 36;
		out->sampled = r[REC_HDR + 4 + 21] != MAPPED_ONLY;
		out->kind = !strcmp(out->name, KERNEL_NAME) ? PERFSINK_KIT_SYM_KALLSYMS
			    : !strcmp(out->name, VDSO_NAME) ? PERFSINK_KIT_SYM_VDSO
							    : PERFSINK_KIT_SYM_ELF;
		if (out->kind == PERFSINK_KIT_SYM_ELF && out->name[0] != '/')
			continue; /* no file to read: another special map */
		return 1;
	}
	return 0;
}

const char *perfsink_kit_sym_cache_name(enum perfsink_kit_sym_kind kind)
{
	/* perf's build_id_cache__basename */
	return kind == PERFSINK_KIT_SYM_KALLSYMS ? "kallsyms" : kind == PERFSINK_KIT_SYM_VDSO ? "vdso" : "elf";
}

/* The whole of fd into out, failing with -EFBIG past max bytes (0: no cap). */
static int fd_read(int fd, uint64_t max, struct perfsink_kit_buf *out, uint64_t *size)
{
	struct stat st;
	int rc;

	perfsink_kit_buf_reset(out);
	if (fstat(fd, &st) < 0)
		return -errno;
	*size = (uint64_t)st.st_size;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (max && *size > max)
		return -EFBIG;
	if ((rc = perfsink_kit_buf_reserve(out, st.st_size ? (size_t)st.st_size : 65536)))
		return rc;
	for (;;) {
		ssize_t k;

		if (out->cap - out->len < 4096 && (rc = perfsink_kit_buf_reserve(out, out->cap)))
			return rc;
		k = read(fd, out->data + out->len, out->cap - out->len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			break;
		out->len += (size_t)k;
		*size = out->len > *size ? out->len : *size;
		if (max && out->len > max)
			return -EFBIG; /* /proc files have no size to check first */
	}
	return 0;
}

int perfsink_kit_file_read(const char *path, uint64_t max, struct perfsink_kit_buf *out, uint64_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	*size = 0;
	if (fd < 0)
		return -errno;
	rc = fd_read(fd, max, out, size);
	close(fd);
	if (rc)
		perfsink_kit_buf_reset(out);
	return rc;
}

/* The ELF file open as fd into out when it has build-id hex: -ESTALE when another. */
static int elf_read_checked(int fd, const char *hex, uint64_t max, struct perfsink_kit_buf *out,
			    uint64_t *size)
{
	uint8_t id[PERFSINK_KIT_BUILD_ID_MAX];
	char got[2 * PERFSINK_KIT_BUILD_ID_MAX + 1];
	size_t idlen;
	int rc = fd_read(fd, max, out, size);

	if (rc) {
		perfsink_kit_buf_reset(out);
		return rc;
	}
	if (perfsink_kit_elf_build_id(out->data, out->len, id, &idlen) ||
	    (perfsink_kit_build_id_hex(id, idlen, got), strcmp(got, hex))) {
		perfsink_kit_buf_reset(out);
		return -ESTALE;
	}
	return 0;
}

/* A recorded file name: absolute, with no "." or ".." component. */
static int name_ok(const char *p)
{
	if (p[0] != '/' || !p[1])
		return 0;
	for (const char *c = p; c; c = strchr(c + 1, '/')) {
		size_t n = strcspn(c + 1, "/");
		if ((n == 1 && c[1] == '.') || (n == 2 && c[1] == '.' && c[2] == '.'))
			return 0;
	}
	return 1;
}

/* The file <rel>/<hex>/elf below the cache cfd (<rel>/<hex> itself in perf's old layout), or -errno. */
static int cache_entry_open(int cfd, const char *cache, const char *rel, const char *hex)
{
	char path[4096 + 2 * PERFSINK_KIT_BUILD_ID_MAX + 8];
	const char *what = "read the build-id cache";
	int efd, fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", rel, hex) >= sizeof(path))
		return -ENAMETOOLONG;
	efd = perfsink_kit_dir_walk(cfd, path, PERFSINK_KIT_DIR_OWN, what, cache, NULL, 0);
	if (efd >= 0) {
		fd = perfsink_kit_input_open(efd, "elf", what, NULL, 0);
		close(efd);
		return fd;
	}
	if (efd != -ENOTDIR)
		return efd;
	efd = perfsink_kit_dir_walk(cfd, rel, PERFSINK_KIT_DIR_OWN, what, cache, NULL, 0);
	if (efd < 0)
		return efd;
	fd = perfsink_kit_input_open(efd, hex, what, NULL, 0);
	close(efd);
	return fd;
}

/*
 * Where the cache's link .build-id/xx/yyyy points ("../../<rel>/<hex>",
 * as perf makes it) into rel: read, never followed, and taken only when
 * it stays inside the cache.  0 or -errno.
 */
static int cache_link(int cfd, const char *cache, const char *hex, char *rel, size_t n)
{
	char sub[16], target[4096];
	int lfd;
	ssize_t k;
	size_t hl = strlen(hex);

	snprintf(sub, sizeof(sub), ".build-id/%.2s", hex);
	lfd = perfsink_kit_dir_walk(cfd, sub, PERFSINK_KIT_DIR_OWN, "read the build-id cache", cache,
				    NULL, 0);
	if (lfd < 0)
		return lfd;
	k = readlinkat(lfd, hex + 2, target, sizeof(target) - 1);
	close(lfd);
	if (k < 0)
		return -errno;
	target[k] = '\0';
	/* "../../" REL "/" HEX, REL a name_ok path without its leading '/' */
	if (strncmp(target, "../../", 6) || (size_t)k < 6 + hl + 2 || target[k - hl - 1] != '/' ||
	    strcmp(target + k - hl, hex))
		return -EINVAL;
	target[k - hl - 1] = '\0';
	if (!name_ok(target + 5) || (size_t)snprintf(rel, n, "%s", target + 6) >= n)
		return -EINVAL;
	return 0;
}

/*
 * The file of b in perf's build-id cache: DIR/<name>/<hex>/elf (the file
 * DIR/<name>/<hex> in perf's old layout), else where DIR/.build-id/xx/yyyy
 * says (an entry filed under another name).  Every directory from / is
 * opened without following a link and must belong to root or the
 * effective uid (PERFSINK_KIT_DIR_OWN): a cache another user could change
 * is not read.  The fd, or -ENOENT when the cache has none that way.
 */
static int cache_open(const struct perfsink_kit_build_id *b)
{
	char dir[4096], rel[4096];
	int cfd, fd = -ENOENT;

	if (!name_ok(b->name) || perfsink_kit_buildid_cache_dir(dir, sizeof(dir)))
		return -ENOENT;
	cfd = perfsink_kit_dir_open(dir, PERFSINK_KIT_DIR_OWN, "read the build-id cache", NULL, 0);
	if (cfd < 0)
		return -ENOENT;
	fd = cache_entry_open(cfd, dir, b->name + 1, b->hex);
	if (fd < 0 && cache_link(cfd, dir, b->hex, rel, sizeof(rel)) == 0 && strcmp(rel, b->name + 1))
		fd = cache_entry_open(cfd, dir, rel, b->hex);
	close(cfd);
	return fd < 0 ? -ENOENT : fd;
}

/*
 * The file at path only when anyone could read it: every directory from /
 * searchable by others, no link anywhere on the way, a regular file
 * readable by others.  Run as root, a path is no proof of what a process
 * mapped (it may be a link to a secret by now); a file any user may read
 * gives nobody anything.  The fd, -EACCES, or the error opening it.
 */
static int public_open(const char *path)
{
	const char *what = "read", *name;
	struct stat st;
	int dfd, fd;

	if (!name_ok(path))
		return -EINVAL;
	dfd = perfsink_kit_parent_open(path, PERFSINK_KIT_DIR_PUBLIC, &name, what, NULL, 0);
	if (dfd < 0)
		return dfd;
	fd = perfsink_kit_input_open(dfd, name, what, NULL, 0);
	close(dfd);
	if (fd >= 0 && (fstat(fd, &st) < 0 || !(st.st_mode & S_IROTH))) {
		close(fd);
		return -EACCES;
	}
	return fd;
}

/* The file open as fd (or the error opening it) into out, checked; fd closed. */
static int read_open(int fd, const char *hex, uint64_t max, struct perfsink_kit_buf *out,
		     uint64_t *size)
{
	int rc;

	*size = 0;
	if (fd < 0)
		return fd;
	rc = elf_read_checked(fd, hex, max, out, size);
	close(fd);
	return rc;
}

int perfsink_kit_sym_read(const struct perfsink_kit_build_id *b, uint64_t max,
			  struct perfsink_kit_buf *out, uint64_t *size)
{
	uint8_t id[PERFSINK_KIT_BUILD_ID_MAX];
	char hex[2 * PERFSINK_KIT_BUILD_ID_MAX + 1];
	const uint8_t *img;
	size_t len, idlen;
	uint64_t cached;
	int rc, cached_rc;

	*size = 0;
	perfsink_kit_buf_reset(out);
	switch (b->kind) {
	case PERFSINK_KIT_SYM_KALLSYMS:
		/* As perf's cache keeps it: the running kernel's table, whose
		 * build-id is the recording's when recorded on this boot. */
		return perfsink_kit_file_read("/proc/kallsyms", max, out, size);
	case PERFSINK_KIT_SYM_VDSO:
		/* The vdso of this process: the same kernel maps the same image
		 * into every process of our ABI (a 32-bit one has another id). */
		if ((rc = perfsink_kit_vdso_image(&img, &len)))
			return rc;
		*size = len;
		if (max && len > max)
			return -EFBIG;
		if (perfsink_kit_elf_build_id(img, len, id, &idlen) ||
		    (perfsink_kit_build_id_hex(id, idlen, hex), strcmp(hex, b->hex)))
			return -ESTALE;
		return perfsink_kit_buf_append(out, img, len);
	case PERFSINK_KIT_SYM_ELF:
		break;
	}
	/* The cache first: perfsink record files there the very file each
	 * process mapped (a container's too), opened through the mapping. */
	cached_rc = read_open(cache_open(b), b->hex, max, out, &cached);
	if (cached_rc == 0 || cached_rc == -EFBIG) {
		*size = cached;
		return cached_rc;
	}
	rc = read_open(public_open(b->name), b->hex, max, out, size);
	if (rc == 0 || cached_rc == -ENOENT)
		return rc;
	*size = cached;
	return cached_rc;
}

void perfsink_kit_debug_path(const char *hex, char *out, size_t n)
{
	snprintf(out, n, "%s/%.2s/%s.debug", DEBUG_ROOT, hex, hex + 2);
}

int perfsink_kit_debug_read(const char *hex, uint64_t max, struct perfsink_kit_buf *out, uint64_t *size)
{
	char path[sizeof(DEBUG_ROOT) + 2 * PERFSINK_KIT_BUILD_ID_MAX + 16];

	perfsink_kit_debug_path(hex, path, sizeof(path));
	return perfsink_kit_file_read(path, max, out, size);
}

/* The debug file a .gnu_debuglink names, where gdb and perf look for it (NULL past the last). */
static const char *link_place(int i, const char *dir, const char *name, char *out, size_t n)
{
	static const char *const sub[] = { "", "/.debug" };
	int k = i < 2 ? snprintf(out, n, "%s%s/%s", dir, sub[i], name)
		      : i == 2 ? snprintf(out, n, "/usr/lib/debug%s/%s", dir, name) : -1;

	return k < 0 || (size_t)k >= n ? NULL : out;
}

/*
 * The name and CRC32 b's own file gives in .gnu_debuglink, and the
 * directory it was recorded in: 0, or -ENOENT.  The file is b's in the
 * build-id cache, else at its path when anyone may read it there.
 */
static int link_of(const struct perfsink_kit_build_id *b, char *dir, size_t dn, char *name,
		   size_t nn, uint32_t *crc)
{
	const char *slash = strrchr(b->name, '/');
	int fd, rc;

	if (b->kind != PERFSINK_KIT_SYM_ELF || !slash || (size_t)(slash - b->name) >= dn)
		return -ENOENT;
	fd = cache_open(b);
	if (fd < 0)
		fd = public_open(b->name);
	if (fd < 0)
		return -ENOENT;
	rc = kit_debuglink_of_fd(fd, name, nn, crc);
	close(fd);
	memcpy(dir, b->name, (size_t)(slash - b->name));
	dir[slash - b->name] = '\0';
	return rc ? -ENOENT : 0;
}

int perfsink_kit_debug_find(const struct perfsink_kit_build_id *b)
{
	char path[4096 + 300], dir[4096], name[256];
	struct stat st;
	uint32_t crc;

	perfsink_kit_debug_path(b->hex, path, sizeof(path));
	if (stat(path, &st) == 0)
		return PERFSINK_KIT_DEBUG_BUILD_ID;
	if (link_of(b, dir, sizeof(dir), name, sizeof(name), &crc))
		return 0;
	for (int i = 0; link_place(i, dir, name, path, sizeof(path)); i++) {
		int fd = public_open(path);

		if (fd >= 0) {
			close(fd);
			return PERFSINK_KIT_DEBUG_LINK;
		}
	}
	return 0;
}

/* The debug file open as fd into out when it is the one the link names: CRC32 and build-id. */
static int link_read(int fd, const struct perfsink_kit_build_id *b, uint32_t crc, uint64_t max,
		     struct perfsink_kit_buf *out, uint64_t *size)
{
	int rc = fd_read(fd, max, out, size);

	close(fd);
	if (rc == 0 && kit_debuglink_crc32(0, out->data, out->len) != crc)
		rc = -ESTALE;
	if (rc == 0) {
		uint8_t id[PERFSINK_KIT_BUILD_ID_MAX];
		char hex[2 * PERFSINK_KIT_BUILD_ID_MAX + 1];
		size_t idlen;

		if (perfsink_kit_elf_build_id(out->data, out->len, id, &idlen) ||
		    (perfsink_kit_build_id_hex(id, idlen, hex), strcmp(hex, b->hex)))
			rc = -ESTALE;
	}
	if (rc)
		perfsink_kit_buf_reset(out);
	return rc;
}

int perfsink_kit_debug_read_of(const struct perfsink_kit_build_id *b, uint64_t max,
			       struct perfsink_kit_buf *out, uint64_t *size, int *how)
{
	char path[4096 + 300], dir[4096], name[256];
	uint32_t crc;
	int rc = perfsink_kit_debug_read(b->hex, max, out, size), found = -ENOENT;

	*how = PERFSINK_KIT_DEBUG_BUILD_ID;
	if (rc != -ENOENT)
		return rc;
	*how = PERFSINK_KIT_DEBUG_LINK;
	if (link_of(b, dir, sizeof(dir), name, sizeof(name), &crc))
		return -ENOENT;
	/* As gdb: the first place whose file has the CRC32 the link gives. */
	for (int i = 0; link_place(i, dir, name, path, sizeof(path)); i++) {
		int fd = public_open(path);

		if (fd < 0)
			continue;
		rc = link_read(fd, b, crc, max, out, size);
		if (rc == 0 || rc == -EFBIG)
			return rc;
		found = rc;
	}
	return found;
}
