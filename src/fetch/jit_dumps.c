/* A session's jitdump files at their recorded paths; see jit_dumps.h. */
#include "fetch/jit_dumps.h"
#include "fetch/jit_file.h"
#include "fetch/collector.h"
#include "base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HOME_JIT "/.debug/jit"

static int kept(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
	       c == '-';
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* 1 when every component of the absolute path is a name: not empty, ".", "..". */
static int components_ok(const char *path)
{
	for (const char *p = path; *p == '/';) {
		size_t n = strcspn(p + 1, "/");

		if (n == 0 || (n == 1 && p[1] == '.') || (n == 2 && p[1] == '.' && p[2] == '.'))
			return 0;
		p += 1 + n;
	}
	return 1;
}

int jit_dump_name_path(const char *name, char *out, size_t n)
{
	size_t o = 0;

	for (const char *p = name; *p; o++) {
		int hi, lo;

		if (o + 1 >= n)
			return -EINVAL;
		if (*p != '_') {
			if (!kept((unsigned char)*p))
				return -EINVAL;
			out[o] = *p++;
			continue;
		}
		hi = hexval(p[1]);
		lo = hi < 0 ? -1 : hexval(p[2]);
		if (lo < 0 || kept((unsigned char)(hi * 16 + lo)) || hi * 16 + lo == 0)
			return -EINVAL; /* the sink escapes exactly the others */
		out[o] = (char)(hi * 16 + lo);
		p += 3;
	}
	if (!n)
		return -EINVAL;
	out[o] = '\0';
	if (out[0] != '/' || !components_ok(out) || jit_name_pid(strrchr(out, '/') + 1, "jit-", ".dump") < 0)
		return -EINVAL;
	return 0;
}

/* The length of base when path is base/SOMETHING, else 0. */
static size_t under(const char *path, const char *base, size_t bl)
{
	return !strncmp(path, base, bl) && path[bl] == '/' && path[bl + 1] ? bl : 0;
}

size_t jit_dump_base(const char *path, const char *home)
{
	char hj[PATH_MAX];
	size_t hl;

	/* HOME/.debug/jit first: a home below /tmp is still a home. */
	if (!home || home[0] != '/')
		return under(path, "/tmp", 4);
	hl = strlen(home);
	while (hl > 1 && home[hl - 1] == '/')
		hl--;
	if (hl == 1)
		hl = 0; /* HOME=/ */
	if (hl + sizeof(HOME_JIT) > sizeof(hj))
		return under(path, "/tmp", 4);
	memcpy(hj, home, hl);
	memcpy(hj + hl, HOME_JIT, sizeof(HOME_JIT));
	size_t base = components_ok(hj) ? under(path, hj, hl + sizeof(HOME_JIT) - 1) : 0;
	return base ? base : under(path, "/tmp", 4);
}

/*
 * A directory fd for dir/name, created (0755) if missing and create is
 * set, never through a symlink; refused (-EPERM, *why set) when it is not
 * ours or others may write it.  Takes dir (closed).
 */
static int dir_step(int dir, const char *name, int create, const char **why)
{
	struct stat st;
	int fd;

	if (create && mkdirat(dir, name, 0755) < 0 && errno != EEXIST) {
		int e = -errno;
		close(dir);
		return e;
	}
	fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(dir);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
		*why = "a directory on the way is not ours, or others may write it";
		close(fd);
		return -EPERM;
	}
	return fd;
}

/*
 * The directory of path, whose first base bytes are a directory there is
 * (/tmp: every directory below it must be there already and ours; or
 * HOME/.debug/jit: HOME must exist, .debug, jit and below are made as
 * needed).  An fd and the leaf in *leaf, or -errno (*why may say more).
 */
static int dump_dir(const char *path, size_t base, char *rel, size_t reln, const char **leaf,
		    const char **why)
{
	int in_tmp = base == 4, dir;
	char *p, *slash;

	if (in_tmp) {
		dir = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		snprintf(rel, reln, "%s", path + 5);
	} else {
		size_t hl = base - (sizeof(HOME_JIT) - 1);
		char home[PATH_MAX];

		snprintf(home, sizeof(home), "%.*s", (int)hl, path);
		dir = open(hl ? home : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		snprintf(rel, reln, "%s", path + hl + 1);
	}
	if (dir < 0)
		return -errno;
	for (p = rel; (slash = strchr(p, '/')); p = slash + 1) {
		*slash = '\0';
		if ((dir = dir_step(dir, p, !in_tmp, why)) < 0)
			return dir;
	}
	*leaf = p;
	return dir;
}

/* Why a dump in a /tmp directory is not placed, in one warning. */
static void tmp_refusal(const char *rel, const char *path, int rc, struct jit_dumps_result *res)
{
	res->refused++;
	pr_warn("jitdump %s: not placed at %s: its directory %s (fetch makes no directory in /tmp, "
		"and places files only in one of the fetching user's that others cannot write); "
		"perf inject --jit reads it there: make the directory and fetch again if you trust the "
		"recording", rel, path, rc == -ENOENT ? "does not exist" : "is not the fetching user's");
}

int jit_dump_place(struct collector *c, const char *rel_dir, const char *name, const char *home,
		   struct jit_limits *lim, struct jit_dumps_result *res)
{
	char rel[1200], path[PATH_MAX], drel[PATH_MAX];
	const char *why = NULL, *leaf = NULL;
	uint64_t len = 0;

	if (jit_dump_name_path(name, path, sizeof(path)) < 0)
		return 0; /* not something the sink writes there */
	res->dumps++;
	size_t base = jit_dump_base(path, home);
	if (!base) {
		res->outside++;
		pr_warn("jitdump %s%s: not placed at %s (outside /tmp and ~/.debug/jit); perf inject "
			"--jit reads it there: put it there by hand if you trust the recording", rel_dir, name,
			path);
		return 0;
	}
	snprintf(rel, sizeof(rel), "%s%s", rel_dir, name);
	int dir = dump_dir(path, base, drel, sizeof(drel), &leaf, &why);
	if (base == 4 && (dir == -ENOENT || dir == -EPERM || dir == -ENOTDIR || dir == -ELOOP)) {
		tmp_refusal(rel, path, dir, res);
		return 0;
	}
	int rc = dir < 0 ? dir : jit_file_fetch(c, rel, dir, leaf, lim, &len);
	if (dir >= 0)
		close(dir);
	if (rc == 0) {
		res->placed++;
		res->bytes += len;
		pr_debug("jitdump %s placed as %s (%" PRIu64 " bytes)", rel, path, len);
	} else if (rc == -EEXIST) {
		res->present++;
		pr_warn("%s is already there: left as it is (a runtime of this machine wrote it, or an "
			"earlier fetch placed it); perf inject --jit uses whatever it holds", path);
	} else if (rc == -EDQUOT) {
		res->capped++;
	} else if (why) {
		res->failed++;
		pr_err("cannot create %s: %s", path, why);
	} else {
		res->failed++;
		jit_fetch_error(c, "jitdump", rel, path, rc);
	}
	return rc == -EINTR ? rc : 0;
}
