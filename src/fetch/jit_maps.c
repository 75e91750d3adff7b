/* A session's JIT maps into /tmp; see jit_maps.h. */
#include "fetch/jit_maps.h"
#include "fetch/jit_dumps.h"
#include "fetch/collector.h"
#include "fetch/fetch_output.h"
#include "base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int jit_name_pid(const char *name, const char *prefix, const char *suffix)
{
	size_t n = strlen(prefix);
	const char *s = name + n;
	long long pid = 0;

	if (strncmp(name, prefix, n) || *s < '1' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		pid = pid * 10 + (*s - '0');
		if (pid > INT_MAX)
			return -1;
	}
	return strcmp(s, suffix) ? -1 : (int)pid;
}

int jit_map_name_pid(const char *name)
{
	return jit_name_pid(name, "perf-", ".map");
}

int jit_file_fetch(struct collector *c, const char *rel, int dirfd, const char *name,
		   struct jit_limits *lim, uint64_t *len)
{
	char tmp[300];
	struct stat st;
	int rc;

	*len = 0;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return -EEXIST;
	if (lim->files_used >= lim->files || lim->bytes_used >= lim->bytes)
		return -EDQUOT;
	int fd = fetch_output_aside(dirfd, name, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	rc = collector_get_fd(c, rel, fd, lim->bytes - lim->bytes_used, len);
	if (rc == -EFBIG) {
		lim->bytes_used = lim->bytes; /* the rest would not fit either: no more tries */
		rc = -EDQUOT;
	}
	/* 0644 whatever the umask: perf report may run as root or as us. */
	if (!rc && fchmod(fd, 0644) < 0)
		rc = -errno;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc && renameat2(dirfd, tmp, dirfd, name, RENAME_NOREPLACE) < 0)
		rc = -errno;
	if (rc) {
		unlinkat(dirfd, tmp, 0);
		return rc;
	}
	lim->files_used++;
	lim->bytes_used += *len;
	return 0;
}

/* Why a JIT file was not placed: one line through base/log.h, counted by the caller. */
void jit_fetch_error(struct collector *c, const char *what, const char *rel, const char *path, int rc)
{
	if (rc == -EINTR || rc == -ENOENT || rc == -EIO || rc == -ETIMEDOUT)
		pr_err("%s %s: %s", what, rel, c->err[0] ? c->err : strerror(-rc));
	else
		pr_err("cannot create %s: %s", path, strerror(-rc));
}

/* One map of the session into dir; -EINTR ends the walk. */
static int map_place(struct collector *c, const char *rel_dir, const char *name, int pid,
		     const char *dir, struct jit_limits *lim, struct jit_maps_result *res)
{
	char rel[1200], leaf[64], path[4200];
	uint64_t len;

	snprintf(rel, sizeof(rel), "%s%s", rel_dir, name);
	snprintf(leaf, sizeof(leaf), "perf-%d.map", pid);
	snprintf(path, sizeof(path), "%s/%s", dir, leaf);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = dfd < 0 ? -errno : jit_file_fetch(c, rel, dfd, leaf, lim, &len);
	if (dfd >= 0)
		close(dfd);
	if (rc == 0) {
		res->placed++;
		res->bytes += len;
		pr_debug("jit map %s placed as %s (%" PRIu64 " bytes)", rel, path, len);
	} else if (rc == -EEXIST) {
		res->present++;
		pr_warn("%s is already there: left as it is (a process of this machine has pid %d, or "
			"an earlier fetch placed it); perf report uses whatever it holds", path, pid);
	} else if (rc == -EDQUOT) {
		res->capped++;
	} else {
		res->failed++;
		jit_fetch_error(c, "jit map", rel, path, rc);
	}
	return rc == -EINTR ? rc : 0;
}

int jit_maps_place(struct collector *c, const char *host, const char *session, const char *dir,
		   const char *home, struct jit_limits *lim, struct jit_maps_result *res,
		   struct jit_dumps_result *dumps)
{
	struct coll_list l = { 0 };
	char rel_dir[1100];

	memset(res, 0, sizeof(*res));
	memset(dumps, 0, sizeof(*dumps));
	if (!lim->files)
		lim->files = JIT_FILES_DEFAULT;
	if (!lim->bytes)
		lim->bytes = JIT_BYTES_DEFAULT;
	snprintf(rel_dir, sizeof(rel_dir), "%s/%s/jit/", host, session);
	int rc = collector_list(c, rel_dir, &l);
	if (rc == -ENOENT)
		return 0;
	for (size_t i = 0; rc == 0 && i < l.nr; i++) {
		if (l.e[i].is_dir)
			continue; /* not something the sink writes there */
		int pid = jit_map_name_pid(l.e[i].name);
		if (pid < 0) {
			rc = jit_dump_place(c, rel_dir, l.e[i].name, home, lim, dumps);
			continue;
		}
		res->maps++;
		rc = map_place(c, rel_dir, l.e[i].name, pid, dir, lim, res);
	}
	coll_list_free(&l);
	return rc;
}
