/* ~/.debug from the collector's buildid/ tree; see symbols.h. */
#include "fetch/symbols.h"
#include "fetch/collector.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MISC_BUILD_ID_SIZE (1u << 15) /* PERF_RECORD_MISC_BUILD_ID_SIZE */

/* mkdir -p of path (0755, like perf's cache). */
static int mkdirs(char *path)
{
	for (char *s = path + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		int rc = mkdir(path, 0755);
		*s = '/';
		if (rc < 0 && errno != EEXIST)
			return -errno;
	}
	return mkdir(path, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

/* A recorded path we will place under the cache: no "..", no empty name. */
static int path_ok(const char *p)
{
	if (!*p)
		return 0;
	for (const char *s = p; (s = strstr(s, "..")); s += 2)
		if ((s == p || s[-1] == '/') && (s[2] == '/' || !s[2]))
			return 0;
	return 1;
}

/*
 * GET key into a temporary file beside path ("PATH.tmpPID", mode), streamed
 * to disk: memory stays bounded whatever the collector sends.  0 with its
 * name in tmp and its size in *len, or -errno (nothing left behind).
 */
static int fetch_tmp(struct collector *c, const char *key, const char *path, mode_t mode, char *tmp,
		     size_t n, uint64_t *len)
{
	snprintf(tmp, n, "%s.tmp%d", path, (int)getpid());
	int fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	int rc = collector_get_fd(c, key, fd, UINT64_MAX, len);
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (rc)
		unlink(tmp);
	return rc;
}

/* Whether the file at path starts with an ELF header. */
static int is_elf(const char *path)
{
	char m[4];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int elf = fd >= 0 && read(fd, m, 4) == 4 && !memcmp(m, "\177ELF", 4);
	if (fd >= 0)
		close(fd);
	return elf;
}

/* tmp to path; 0 or -errno (tmp removed). */
static int tmp_place(const char *tmp, const char *path)
{
	if (rename(tmp, path) == 0)
		return 0;
	int e = -errno;
	unlink(tmp);
	return e;
}

/* {dir}/.build-id/xx/yyyy -> ../../{path}/{hex}, as perf links it. */
static int link_put(const char *dir, const char *rel, const char *hex)
{
	char ln[4200], target[4200];
	snprintf(ln, sizeof(ln), "%s/.build-id/%.2s", dir, hex);
	int rc = mkdirs(ln);
	if (rc)
		return rc;
	snprintf(ln, sizeof(ln), "%s/.build-id/%.2s/%s", dir, hex, hex + 2);
	snprintf(target, sizeof(target), "../../%s/%s", rel, hex);
	unlink(ln);
	return symlink(target, ln) < 0 ? -errno : 0;
}

/* One build-id: what the collector has for it into the cache. */
static int entry_fill(struct collector *c, const char *dir, const char *hex, const char *file,
		      struct symbols_result *res, char *msg, size_t msglen)
{
	int kernel = !strcmp(file, "[kernel.kallsyms]");
	/* perf's names for the cached file (build_id_cache__basename). */
	const char *base = kernel ? "kallsyms" : !strcmp(file, "[vdso]") ? "vdso" : "elf";
	const char *rel = file[0] == '/' ? file + 1 : file;
	char d[4200], path[4300], key[128];
	struct stat st;

	snprintf(d, sizeof(d), "%s/%s/%s", dir, rel, hex);
	snprintf(path, sizeof(path), "%s/%s", d, base);
	if (stat(path, &st) == 0) {
		res->cached++;
		return 0;
	}
	char tmp[4400];
	uint64_t len = 0;
	int rc = mkdirs(d);
	if (rc) {
		snprintf(msg, msglen, "cannot write %s: %s", path, strerror(-rc));
		return rc;
	}
	snprintf(key, sizeof(key), "buildid/%s/executable", hex);
	rc = fetch_tmp(c, key, path, kernel ? 0644 : 0755, tmp, sizeof(tmp), &len);
	res->bytes += len;
	if (rc == -ENOENT)
		rmdir(d); /* made for nothing: the collector has no such file */
	if (rc)
		return rc == -ENOENT ? 0 : rc;
	/* A kernel's entry is its symbol table; an ELF there would be a vmlinux. */
	if (kernel && is_elf(tmp))
		snprintf(path, sizeof(path), "%s/elf", d);
	rc = tmp_place(tmp, path);
	if (rc) {
		snprintf(msg, msglen, "cannot write %s: %s", path, strerror(-rc));
		return rc;
	}
	res->found++;
	snprintf(key, sizeof(key), "buildid/%s/debuginfo", hex);
	snprintf(path, sizeof(path), "%s/debug", d);
	if (!kernel) {
		rc = fetch_tmp(c, key, path, 0644, tmp, sizeof(tmp), &len);
		res->bytes += len;
		if (rc == 0 && tmp_place(tmp, path) == 0)
			res->debuginfo++;
		if (rc == -EINTR)
			return rc;
	}
	rc = link_put(dir, rel, hex);
	if (rc)
		snprintf(msg, msglen, "cannot link %s/.build-id/%.2s/%s: %s", dir, hex, hex + 2, strerror(-rc));
	return rc;
}

int symbols_fill(struct collector *c, const struct bytes *build_ids, const char *dir,
		 struct symbols_result *res, char *msg, size_t msglen)
{
	size_t off = 0;
	memset(res, 0, sizeof(*res));
	while (build_ids->len - off >= 8 + 4 + 24) {
		const uint8_t *r = build_ids->p + off;
		uint16_t misc, size;
		memcpy(&misc, r + 4, 2);
		memcpy(&size, r + 6, 2);
		if (size < 8 + 4 + 24 || size > build_ids->len - off)
			break;
		unsigned n = misc & MISC_BUILD_ID_SIZE ? r[8 + 4 + 20] : 20;
		char hex[2 * 20 + 1], file[4096];
		if (n < 1 || n > 20) {
			off += size;
			continue;
		}
		for (unsigned i = 0; i < n; i++)
			snprintf(hex + 2 * i, 3, "%02x", r[12 + i]);
		size_t fl = strnlen((const char *)r + 36, size - 36u);
		snprintf(file, sizeof(file), "%.*s", (int)fl, (const char *)r + 36);
		off += size;
		res->build_ids++;
		if (!path_ok(file))
			continue;
		int rc = entry_fill(c, dir, hex, file, res, msg, msglen);
		if (rc == -EIO || rc == -ETIMEDOUT || rc == -EFBIG)
			continue; /* the collector's error for one file; the others may work */
		if (rc == -EINTR)
			snprintf(msg, msglen, "%s", c->err);
		if (rc)
			return rc;
	}
	return 0;
}
