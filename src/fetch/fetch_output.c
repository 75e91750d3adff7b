/* fetch's output, written aside and placed whole; see fetch_output.h. */
#include "fetch/fetch_output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int fetch_output_aside(int dirfd, const char *name, char *tmp, size_t n)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	unsigned seed = (unsigned)ts.tv_nsec ^ ((unsigned)getpid() << 16);
	for (int i = 0; i < 100; i++) {
		seed = seed * 1103515245u + 12345u;
		snprintf(tmp, n, ".%s.%08x", name, seed);
		int fd = openat(dirfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd < 0 ? -errno : fd;
	}
	return -EEXIST;
}

/* An entry at name that is not a regular file: -EPERM with why. */
static int existing_check(struct fetch_output *o, char *why, size_t n)
{
	struct stat st;
	if (fstatat(o->dirfd, o->name, &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISREG(st.st_mode))
		return 0;
	snprintf(why, n, "%s exists and is not a regular file: refused", o->path);
	return -EPERM;
}

int fetch_output_create(struct fetch_output *o, const char *path, char *why, size_t n)
{
	const char *slash = strrchr(path, '/');
	const char *leaf = slash ? slash + 1 : path;
	char dir[4096];

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->dirfd = o->fd = -1;
	if (!*leaf || strlen(leaf) >= sizeof(o->name) - 16 || !strcmp(leaf, ".") || !strcmp(leaf, "..")) {
		snprintf(why, n, "%s: not a file name", path);
		return -EINVAL;
	}
	snprintf(o->name, sizeof(o->name), "%s", leaf);
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
		 slash ? path : ".");
	o->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (o->dirfd < 0) {
		snprintf(why, n, "cannot open the directory of %s: %s", path, strerror(errno));
		return -errno;
	}
	int rc = existing_check(o, why, n);
	if (rc == 0 && (o->fd = fetch_output_aside(o->dirfd, o->name, o->tmp, sizeof(o->tmp))) < 0) {
		rc = o->fd;
		snprintf(why, n, "cannot create %s: %s", path, strerror(-rc));
	}
	if (rc) {
		close(o->dirfd);
		o->dirfd = -1;
	}
	return rc;
}

int fetch_output_place(struct fetch_output *o, char *why, size_t n)
{
	char old[300];
	struct stat st;

	if (o->placed)
		return 0;
	int rc = existing_check(o, why, n);
	if (rc)
		return rc;
	if (fstatat(o->dirfd, o->name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		snprintf(old, sizeof(old), "%s.old", o->name);
		if (renameat(o->dirfd, o->name, o->dirfd, old) < 0) {
			snprintf(why, n, "cannot move %s to %s.old: %s", o->path, o->path, strerror(errno));
			return -errno;
		}
	}
	if (renameat(o->dirfd, o->tmp, o->dirfd, o->name) < 0) {
		snprintf(why, n, "cannot rename %s into place: %s", o->path, strerror(errno));
		return -errno;
	}
	o->placed = 1;
	return 0;
}

int fetch_output_scratch(const struct fetch_output *o)
{
	char tmp[300];
	int fd = openat(o->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd < 0 ? -errno : fd;
	fd = fetch_output_aside(o->dirfd, "part", tmp, sizeof(tmp));
	if (fd >= 0)
		unlinkat(o->dirfd, tmp, 0);
	return fd;
}

int fetch_output_close(struct fetch_output *o)
{
	int rc = 0;
	if (o->fd >= 0 && close(o->fd) < 0)
		rc = -errno;
	if (o->dirfd >= 0 && !o->placed && o->tmp[0])
		unlinkat(o->dirfd, o->tmp, 0);
	if (o->dirfd >= 0)
		close(o->dirfd);
	o->fd = o->dirfd = -1;
	return rc;
}
