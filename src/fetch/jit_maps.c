/* A session's JIT maps into /tmp; see jit_maps.h. */
#include "fetch/jit_maps.h"
#include "fetch/jit_dumps.h"
#include "fetch/collector.h"
#include "base/log.h"

#include <errno.h>
#include <fcntl.h>
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

/* All of b into fd; 0 or -errno. */
static int write_all(int fd, const struct bytes *b)
{
	for (size_t off = 0; off < b->len;) {
		ssize_t k = write(fd, b->p + off, b->len - off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		off += (size_t)k;
	}
	return 0;
}

int jit_file_create(int dirfd, const char *name, const struct bytes *b)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	/* 0644 whatever the umask: perf report may run as root or as us. */
	int rc = fchmod(fd, 0644) < 0 ? -errno : write_all(fd, b);
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (rc)
		unlinkat(dirfd, name, 0);
	return rc;
}

/* One map of the session into dir. */
static void map_place(struct collector *c, const char *rel_dir, const char *name, int pid,
		      const char *dir, struct jit_maps_result *res)
{
	char rel[1200], path[4200];
	struct bytes b;

	snprintf(rel, sizeof(rel), "%s%s", rel_dir, name);
	snprintf(path, sizeof(path), "%s/perf-%d.map", dir, pid);
	bytes_init(&b);
	int rc = collector_get(c, rel, &b);
	if (rc) {
		res->failed++;
		pr_err("jit map %s: %s", rel, rc == -EIO && c->err[0] ? c->err : strerror(-rc));
	} else if ((rc = jit_file_create(AT_FDCWD, path, &b)) == 0) {
		res->placed++;
		res->bytes += b.len;
		pr_debug("jit map %s placed as %s (%zu bytes)", rel, path, b.len);
	} else if (rc == -EEXIST) {
		res->present++;
		pr_warn("%s is already there: left as it is (a process of this machine has pid %d, or "
			"an earlier fetch placed it); perf report uses whatever it holds", path, pid);
	} else {
		res->failed++;
		pr_err("cannot create %s: %s", path, strerror(-rc));
	}
	bytes_free(&b);
}

int jit_maps_place(struct collector *c, const char *host, const char *session, const char *dir,
		   const char *home, struct jit_maps_result *res, struct jit_dumps_result *dumps)
{
	struct coll_list l = { 0 };
	char rel_dir[1100];

	memset(res, 0, sizeof(*res));
	memset(dumps, 0, sizeof(*dumps));
	snprintf(rel_dir, sizeof(rel_dir), "%s/%s/jit/", host, session);
	int rc = collector_list(c, rel_dir, &l);
	if (rc == -ENOENT)
		return 0;
	for (size_t i = 0; rc == 0 && i < l.nr; i++) {
		if (l.e[i].is_dir)
			continue; /* not something the sink writes there */
		int pid = jit_map_name_pid(l.e[i].name);
		if (pid < 0) {
			jit_dump_place(c, rel_dir, l.e[i].name, home, dumps);
			continue;
		}
		res->maps++;
		map_place(c, rel_dir, l.e[i].name, pid, dir, res);
	}
	coll_list_free(&l);
	return rc;
}
