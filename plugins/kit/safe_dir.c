/* perfsink_kit_dir_open and friends: see include/perfsink/kit.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <perfsink/kit.h>
#include "why.h"


/*
 * sudo's invoking user: `sudo perfsink record -o ~/x` writes into a
 * directory of the user who asked, who could write there anyway.
 */
static uid_t sudo_uid(void)
{
	const char *s = geteuid() == 0 ? getenv("SUDO_UID") : NULL;
	char *end;
	unsigned long v;

	if (!s || !*s)
		return (uid_t)-1;
	errno = 0;
	v = strtoul(s, &end, 10);
	return errno || *end || v == 0 || v >= (uid_t)-1 ? (uid_t)-1 : (uid_t)v;
}

int perfsink_kit_trusted_uid(uid_t uid)
{
	return uid == 0 || uid == geteuid() || uid == getuid() || uid == sudo_uid();
}

int perfsink_kit_dir_trust(const struct stat *st, const char *what, const char *shown,
			   char *why, size_t n)
{
	mode_t m = st->st_mode;

	if (!S_ISDIR(m))
		return kit_say(why, n, ENOTDIR, "refusing to %s: '%s' is not a directory", what, shown);
	if (!perfsink_kit_trusted_uid(st->st_uid))
		return kit_say(why, n, EPERM, "refusing to %s: directory '%s' belongs to uid %u, "
			   "neither root nor uid %u who records", what, shown,
			   (unsigned)st->st_uid, (unsigned)geteuid());
	/*
	 * Root's group writing is root writing (a tree unpacked by root as
	 * 0775); in a sticky directory only an entry's owner may rename or
	 * replace it.
	 */
	if ((m & S_IWOTH || (m & S_IWGRP && st->st_gid != 0)) && !(m & S_ISVTX))
		return kit_say(why, n, EPERM, "refusing to %s: directory '%s' is writable by group or "
			   "others and not sticky (mode %04o)", what, shown, (unsigned)(m & 07777));
	return 0;
}

/*
 * A directory on the way against the rule flags ask for: the trust rule
 * (perfsink_kit_dir_trust), narrowed to root and the effective uid with
 * PERFSINK_KIT_DIR_OWN, or replaced by "others may search it" with
 * PERFSINK_KIT_DIR_PUBLIC.  0 or -errno with why.
 */
static int dir_check(const struct stat *st, unsigned flags, const char *what, const char *shown,
		     char *why, size_t n)
{
	if (!S_ISDIR(st->st_mode))
		return perfsink_kit_dir_trust(st, what, shown, why, n);
	if (flags & PERFSINK_KIT_DIR_PUBLIC)
		return st->st_mode & S_IXOTH ? 0
			: kit_say(why, n, EACCES, "refusing to %s: directory '%s' is closed to "
				  "others (mode %04o)", what, shown, (unsigned)(st->st_mode & 07777));
	if (flags & PERFSINK_KIT_DIR_OWN && st->st_uid != 0 && st->st_uid != geteuid())
		return kit_say(why, n, EPERM, "refusing to %s: directory '%s' belongs to uid %u, "
			   "neither root nor uid %u who runs this", what, shown,
			   (unsigned)st->st_uid, (unsigned)geteuid());
	return perfsink_kit_dir_trust(st, what, shown, why, n);
}

/*
 * One step of the walk: comp below cur, named shown in messages; created
 * (mode 0700) when missing and flags has PERFSINK_KIT_DIR_MKDIR; checked
 * by dir_check.  The new fd or -errno.
 */
static int step(int cur, const char *comp, unsigned flags, const char *what, const char *shown,
		char *why, size_t n)
{
	struct stat st;
	int fd = openat(cur, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int r;

	if (fd < 0 && errno == ENOENT && flags & PERFSINK_KIT_DIR_MKDIR) {
		if (mkdirat(cur, comp, 0700) < 0 && errno != EEXIST)
			return kit_say(why, n, errno, "cannot %s: cannot create directory '%s': %s", what,
				   shown, strerror(errno));
		fd = openat(cur, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0) {
		int e = errno;
		if ((e == ELOOP || e == ENOTDIR) && fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(st.st_mode))
			return kit_say(why, n, ELOOP, "refusing to %s: '%s' is a symbolic link", what, shown);
		return kit_say(why, n, e, "cannot %s: '%s': %s", what, shown, strerror(e));
	}
	if (fstat(fd, &st) < 0)
		r = kit_say(why, n, errno, "cannot %s: '%s': %s", what, shown, strerror(errno));
	else
		r = dir_check(&st, flags, what, shown, why, n);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

int perfsink_kit_dir_walk(int dirfd, const char *rel, unsigned flags, const char *what,
			  const char *shown, char *why, size_t n)
{
	size_t cap = strlen(shown) + strlen(rel) + 2;
	char *copy = strdup(rel), *seen = malloc(cap), *save = NULL, *comp;
	int cur = fcntl(dirfd, F_DUPFD_CLOEXEC, 3);

	if (!copy || !seen || cur < 0) {
		int e = cur < 0 ? errno : ENOMEM;
		if (cur >= 0)
			close(cur);
		free(copy);
		free(seen);
		return kit_say(why, n, e, "cannot %s: %s", what, strerror(e));
	}
	strcpy(seen, shown);
	for (comp = strtok_r(copy, "/", &save); comp && cur >= 0; comp = strtok_r(NULL, "/", &save)) {
		int next;
		if (!strcmp(comp, "."))
			continue;
		if (strcmp(seen, "/"))
			strcat(seen, "/");
		strcat(seen, comp);
		next = step(cur, comp, flags, what, seen, why, n);
		close(cur);
		cur = next;
	}
	free(copy);
	free(seen);
	return cur;
}

int perfsink_kit_dir_open(const char *path, unsigned flags, const char *what, char *why,
			  size_t n)
{
	char *abs = NULL;
	struct stat st;
	int root, fd;

	if (!path || !*path)
		return kit_say(why, n, ENOENT, "refusing to %s: no directory named", what);
	if (path[0] != '/') {
		/* Relative to the working directory: check that from / as well. */
		char *cwd = getcwd(NULL, 0);
		if (!cwd)
			return kit_say(why, n, errno, "cannot %s: the working directory: %s", what,
				   strerror(errno));
		if (asprintf(&abs, "%s/%s", cwd, path) < 0)
			abs = NULL;
		free(cwd);
		if (!abs)
			return kit_say(why, n, ENOMEM, "cannot %s: %s", what, strerror(ENOMEM));
		path = abs;
	}
	root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		fd = kit_say(why, n, errno, "cannot %s: '/': %s", what, strerror(errno));
	else if (fstat(root, &st) < 0)
		fd = kit_say(why, n, errno, "cannot %s: '/': %s", what, strerror(errno));
	else if ((fd = dir_check(&st, flags, what, "/", why, n)) == 0)
		fd = perfsink_kit_dir_walk(root, path, flags, what, "/", why, n);
	if (root >= 0)
		close(root);
	free(abs);
	return fd;
}

int perfsink_kit_input_open(int dirfd, const char *path, const char *what, char *why, size_t n)
{
	struct stat st;
	int fd = openat(dirfd, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0) {
		int e = errno;
		if (e == ELOOP)
			return kit_say(why, n, e, "refusing to %s: '%s' is a symbolic link", what, path);
		return kit_say(why, n, e, "cannot %s: '%s': %s", what, path, strerror(e));
	}
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return kit_say(why, n, e, "cannot %s: '%s': %s", what, path, strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return kit_say(why, n, S_ISDIR(st.st_mode) ? EISDIR : EINVAL,
			   "refusing to %s: '%s' is not a regular file", what, path);
	}
	/* O_NONBLOCK only kept a FIFO from hanging the open; reads should block. */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		int e = errno;
		close(fd);
		return kit_say(why, n, e, "cannot %s: '%s': %s", what, path, strerror(e));
	}
	return fd;
}

int perfsink_kit_parent_open(const char *path, unsigned flags, const char **name, const char *what,
			     char *why, size_t n)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd;

	*name = slash ? slash + 1 : path;
	if (!slash)
		return perfsink_kit_dir_open(".", flags, what, why, n);
	dir = strndup(path, slash == path ? 1 : (size_t)(slash - path));
	if (!dir)
		return kit_say(why, n, ENOMEM, "cannot %s: %s", what, strerror(ENOMEM));
	fd = perfsink_kit_dir_open(dir, flags, what, why, n);
	free(dir);
	return fd;
}
