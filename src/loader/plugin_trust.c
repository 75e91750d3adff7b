/* Checking a plugin file and the directories above it before dlopen. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loader/plugin_trust.h"

static int owner_ok(const struct stat *st)
{
	return st->st_uid == 0 || st->st_uid == geteuid();
}

/*
 * Who besides the owner may write: others, or a group other than root's.
 * Root's group writing is root writing: a tree root unpacked from `git
 * archive` (directories 0775) and built with umask 002 (plugins 0775) is
 * as trusted as root.  The kit's safe paths take the same rule for output
 * directories (perfsink_kit_dir_trust).
 */
static const char *foreign_writer(const struct stat *st)
{
	if (st->st_mode & S_IWOTH)
		return "world";
	if ((st->st_mode & S_IWGRP) && st->st_gid != 0)
		return "group";
	return NULL;
}

/* One component: dir (not the file itself) or the file. */
static int component_check(const char *path, const char *comp, const struct stat *st,
			   int is_file, char *err, size_t errlen)
{
	const char *who = foreign_writer(st);

	if (!owner_ok(st)) {
		snprintf(err, errlen, "%s: refusing plugin: %s %s is owned by uid %u, neither root "
			 "nor uid %u", path, is_file ? "file" : "directory", comp,
			 (unsigned)st->st_uid, (unsigned)geteuid());
		return -EPERM;
	}
	if (!who)
		return 0;
	if (is_file) {
		snprintf(err, errlen, "%s: refusing a %s-writable plugin (mode %04o, group %u; "
			 "chmod go-w %s)", path, who, (unsigned)(st->st_mode & 07777),
			 (unsigned)st->st_gid, comp);
		return -EPERM;
	}
	/* In a root-owned sticky directory only the owner may rename or replace an entry. */
	if ((st->st_mode & S_ISVTX) && st->st_uid == 0)
		return 0;
	snprintf(err, errlen, "%s: refusing plugin: directory %s is %s-writable (mode %04o, "
		 "group %u) and not a root-owned sticky directory", path, comp, who,
		 (unsigned)(st->st_mode & 07777), (unsigned)st->st_gid);
	return -EPERM;
}

/*
 * Open name below dirfd (a directory, or the file when is_file) and check
 * it; shown is the path up to it, for messages.  The fd, or -errno.
 */
static int open_checked(int dirfd, const char *path, const char *shown, const char *name,
			int is_file, char *err, size_t errlen)
{
	struct stat st;
	int fd, ret;

	if (!*name)
		fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	else if (is_file) /* O_NONBLOCK: a FIFO must not hang the open */
		fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	else
		fd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: refusing plugin: cannot open %s: %s", path, shown,
			 strerror(errno));
		return -errno;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		snprintf(err, errlen, "%s: cannot stat %s: %s", path, shown, strerror(errno));
	} else if (is_file && !S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		snprintf(err, errlen, "%s: not a regular file", path);
	} else {
		ret = component_check(path, shown, &st, is_file, err, errlen);
	}
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

int plugin_trust_open(const char *path, char *err, size_t errlen)
{
	char real[PATH_MAX];
	char *name, *slash;
	int dirfd, fd;

	if (!realpath(path, real)) {
		fd = -errno;
		snprintf(err, errlen, "sink plugin '%s' not found: %s", path, strerror(errno));
		return fd;
	}
	if (!real[1]) {
		snprintf(err, errlen, "%s: not a regular file", path);
		return -EINVAL;
	}
	dirfd = open_checked(-1, path, "/", "", 0, err, errlen);
	for (name = real + 1; dirfd >= 0; name = slash + 1) {
		slash = strchr(name, '/');
		if (slash)
			*slash = '\0'; /* real is now the path up to name */
		fd = open_checked(dirfd, path, real, name, !slash, err, errlen);
		close(dirfd);
		if (fd < 0 || !slash)
			return fd;
		*slash = '/';
		dirfd = fd;
	}
	return dirfd;
}
