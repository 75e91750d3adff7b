/* One JIT file from a collector into a directory; see jit_file.h. */
#include "fetch/jit_file.h"
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
