/* ~/.debug from the collector's buildid/ tree; see symbols.h. */
#include "fetch/symbols.h"
#include "fetch/collector.h"
#include "fetch/fetch_output.h"
#include "format/build_id_flags.h"
#include <perfsink/kit.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MISC_BUILD_ID_SIZE (1u << 15) /* PERF_RECORD_MISC_BUILD_ID_SIZE */
#define WHAT "fill the build-id cache"
/* Every directory below the cache: made 0700, never through a link, root's or ours. */
#define WALK (PERFSINK_KIT_DIR_MKDIR | PERFSINK_KIT_DIR_OWN)

/* The cache being filled: its directory, checked once from /. */
struct cache {
	int fd;           /* O_PATH */
	const char *dir;  /* for messages */
};

/* A recorded path we will place under the cache: no "." or "..", no empty name. */
static int path_ok(const char *p)
{
	if (!*p)
		return 0;
	for (const char *c = p; *c;) {
		size_t n = strcspn(c, "/");
		if (n == 0 && c != p)
			return 0;
		if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
		c += n;
		if (*c)
			c++;
	}
	return 1;
}

/*
 * GET key into a new file in the cache's root (O_CREAT|O_EXCL|O_NOFOLLOW,
 * an unpredictable name: nothing planted there is written through),
 * streamed to disk.  0 with its name in tmp and its size in *len, or
 * -errno (nothing left behind).
 */
static int fetch_tmp(struct collector *c, const struct cache *k, const char *key, char *tmp, size_t n,
		     uint64_t *len)
{
	int fd = fetch_output_aside(k->fd, "fetch", tmp, n);
	if (fd < 0)
		return fd;
	int rc = collector_get_fd(c, key, fd, UINT64_MAX, len);
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (rc)
		unlinkat(k->fd, tmp, 0);
	return rc;
}

/* Whether the file tmp in the cache's root starts with an ELF header. */
static int is_elf(const struct cache *k, const char *tmp)
{
	char m[4];
	int fd = openat(k->fd, tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int elf = fd >= 0 && read(fd, m, 4) == 4 && !memcmp(m, "\177ELF", 4);
	if (fd >= 0)
		close(fd);
	return elf;
}

/* tmp (in the cache's root) as name in efd, mode: never over anything; tmp removed. */
static int tmp_place(const struct cache *k, const char *tmp, int efd, const char *name, mode_t mode)
{
	int rc = fchmodat(k->fd, tmp, mode, 0) < 0 ? -errno : 0;
	if (!rc && linkat(k->fd, tmp, efd, name, 0) < 0 && errno != EEXIST)
		rc = -errno;
	unlinkat(k->fd, tmp, 0);
	return rc;
}

/* .build-id/xx/yyyy -> ../../{rel}/{hex}, as perf links it (one there is replaced). */
static int link_put(const struct cache *k, const char *rel, const char *hex, char *why, size_t n)
{
	char sub[16], target[4200];
	snprintf(sub, sizeof(sub), ".build-id/%.2s", hex);
	snprintf(target, sizeof(target), "../../%s/%s", rel, hex);
	int lfd = perfsink_kit_dir_walk(k->fd, sub, WALK, WHAT, k->dir, why, n), rc = 0;
	if (lfd < 0)
		return lfd;
	unlinkat(lfd, hex + 2, 0);
	if (symlinkat(target, lfd, hex + 2) < 0) {
		rc = -errno;
		snprintf(why, n, "cannot link %s/%s/%s: %s", k->dir, sub, hex + 2, strerror(-rc));
	}
	close(lfd);
	return rc;
}

/* The entry {rel}/{hex} below the cache, made as needed: an O_PATH fd or -errno (why says). */
static int entry_open(const struct cache *k, const char *rel, const char *hex, char *why, size_t n)
{
	char d[4200];
	if ((size_t)snprintf(d, sizeof(d), "%s/%s", rel, hex) >= sizeof(d))
		return -ENAMETOOLONG;
	return perfsink_kit_dir_walk(k->fd, d, WALK, WHAT, k->dir, why, n);
}

/*
 * The directory {rel}/{hex} below the cache when it exists, without
 * creating or following anything: whether base is in it already.
 */
static int entry_has(const struct cache *k, const char *rel, const char *hex, const char *base)
{
	char d[4200];
	snprintf(d, sizeof(d), "%s/%s", rel, hex);
	int efd = perfsink_kit_dir_walk(k->fd, d, PERFSINK_KIT_DIR_OWN, WHAT, k->dir, NULL, 0);
	if (efd < 0)
		return 0;
	int has = faccessat(efd, base, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
	close(efd);
	return has;
}

/* The debuginfo of hex, if the collector has it, into efd as "debug". */
static void debug_fill(struct collector *c, const struct cache *k, const char *hex, int efd,
		       struct symbols_result *res)
{
	char key[128], tmp[300];
	uint64_t len = 0;
	snprintf(key, sizeof(key), "buildid/%s/debuginfo", hex);
	int rc = fetch_tmp(c, k, key, tmp, sizeof(tmp), &len);
	res->bytes += len;
	if (rc == 0 && tmp_place(k, tmp, efd, "debug", 0644) == 0) {
		res->debuginfo++;
		res->files++;
	}
}

/*
 * One build-id: what the collector has for it into the cache.  0, a
 * refused directory (res->refused, why says it), or -errno.
 */
static int entry_fill(struct collector *c, const struct cache *k, const char *hex, const char *file,
		      struct symbols_result *res, char *why, size_t n)
{
	int kernel = !strcmp(file, "[kernel.kallsyms]");
	/* perf's names for the cached file (build_id_cache__basename). */
	const char *base = kernel ? "kallsyms" : !strcmp(file, "[vdso]") ? "vdso" : "elf";
	const char *rel = file[0] == '/' ? file + 1 : file;
	char key[128], tmp[300];
	uint64_t len = 0;

	if (entry_has(k, rel, hex, base) || (kernel && entry_has(k, rel, hex, "elf"))) {
		res->cached++;
		return 0;
	}
	snprintf(key, sizeof(key), "buildid/%s/executable", hex);
	int rc = fetch_tmp(c, k, key, tmp, sizeof(tmp), &len);
	res->bytes += len;
	if (rc)
		return rc == -ENOENT ? 0 : rc; /* -ENOENT: the collector has no such file */
	/* A kernel's entry is its symbol table; an ELF there would be a vmlinux. */
	if (kernel && is_elf(k, tmp))
		base = "elf";
	int efd = entry_open(k, rel, hex, why, n);
	if (efd < 0) {
		unlinkat(k->fd, tmp, 0);
		if (efd == -ELOOP || efd == -EPERM || efd == -ENOTDIR) {
			res->refused++;
			return 0;
		}
		return efd;
	}
	/* kallsyms holds the kernel's addresses as root saw them: 0600. */
	rc = tmp_place(k, tmp, efd, base, kernel ? 0600 : 0755);
	if (rc) {
		snprintf(why, n, "cannot write %.400s/%.400s/%s/%s: %s", k->dir, rel, hex, base, strerror(-rc));
		close(efd);
		return rc;
	}
	res->found++;
	res->files++;
	if (!kernel)
		debug_fill(c, k, hex, efd, res);
	close(efd);
	if (collector_stopped(c))
		return -EINTR;
	return link_put(k, rel, hex, why, n);
}

int symbols_marked(const struct bytes *build_ids)
{
	uint16_t size;

	for (size_t off = 0; build_ids->len - off >= 8 + 4 + 24; off += size) {
		const uint8_t *r = build_ids->p + off;

		memcpy(&size, r + 6, 2);
		if (size < 8 + 4 + 24 || size > build_ids->len - off)
			return 0;
		if (r[12 + DSO_HITS_RULE_BYTE] == DSO_HITS_CHAIN)
			return 1;
	}
	return 0;
}

int symbols_fill(struct collector *c, const struct bytes *build_ids, const char *dir,
		 const struct symbols_filter *want, struct symbols_result *res, char *msg, size_t msglen)
{
	struct cache k = { .fd = -1, .dir = dir };
	int opened = 0;
	char why[1024] = "";
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec rec;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	msg[0] = '\0';
	perfsink_kit_rec_iter_init(&it, build_ids->p, build_ids->len);
	/* struct perf_record_header_build_id: header, pid, id[24], name. */
	while (perfsink_kit_rec_next(&it, &rec) && rec.size >= 8 + 4 + 24) {
		const uint8_t *r = rec.p;
		uint16_t size = rec.size;
		unsigned n = rec.misc & MISC_BUILD_ID_SIZE ? r[8 + 4 + 20] : 20;
		char hex[2 * 20 + 1], file[4096];
		if (n < 1 || n > 20)
			continue;
		for (unsigned i = 0; i < n; i++)
			snprintf(hex + 2 * i, 3, "%02x", r[12 + i]);
		size_t fl = strnlen((const char *)r + 36, size - 36u);
		snprintf(file, sizeof(file), "%.*s", (int)fl, (const char *)r + 36);
		res->build_ids++;
		if (!path_ok(file))
			continue;
		if (want && (want->marked ? r[12 + DSO_HIT_BYTE] == DSO_MAPPED_ONLY
					  : !want->need(want->ctx, file, hex))) {
			res->not_needed++;
			continue;
		}
		if (rc == 0 && !opened) {
			opened = 1;
			/* Opened at the first entry to fill: the cache from / checked once. */
			k.fd = perfsink_kit_dir_open(dir, WALK, "use the build-id cache", why, sizeof(why));
			if (k.fd < 0) {
				rc = k.fd;
				snprintf(msg, msglen, "%s", why);
			}
		}
		if (rc) {
			res->refused++;
			continue;
		}
		unsigned refused = res->refused;
		why[0] = '\0';
		int e = entry_fill(c, &k, hex, file, res, why, sizeof(why));
		if (res->refused > refused && !msg[0])
			snprintf(msg, msglen, "%s", why); /* the first one; the others counted */
		if (e == -EIO || e == -ETIMEDOUT || e == -EFBIG)
			continue; /* the collector's error for one file; the others may work */
		if (e == -EINTR)
			snprintf(msg, msglen, "%s", c->err);
		if (e) {
			if (!msg[0] || e != -EINTR)
				snprintf(msg, msglen, "%s", why[0] ? why : strerror(-e));
			rc = e;
			break;
		}
	}
	if (k.fd >= 0)
		close(k.fd);
	return rc;
}
