/* perfsink_kit_output: see include/perfsink/kit.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <perfsink/kit.h>
#include "why.h"

#define TMP_TRIES 16


static int cannot_create(char *why, size_t n, const char *path, int err)
{
	return kit_say(why, n, err, "cannot create '%s': %s", path, strerror(err));
}

/* What is at name now may be replaced by an output: absent, or our own file. */
static int check_existing(int dirfd, const char *name, const char *path, struct stat *st,
			  char *why, size_t n)
{
	if (fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 1;
		return cannot_create(why, n, path, errno);
	}
	if (S_ISLNK(st->st_mode))
		return kit_say(why, n, EPERM, "refusing to write '%s': it is a symbolic link", path);
	if (S_ISDIR(st->st_mode))
		return cannot_create(why, n, path, EISDIR);
	if (!S_ISREG(st->st_mode))
		return kit_say(why, n, EPERM, "refusing to write '%s': it is not a regular file", path);
	if (st->st_uid != geteuid())
		return kit_say(why, n, EPERM, "refusing to write '%s': it belongs to uid %u, not to uid %u who records",
			   path, (unsigned)st->st_uid, (unsigned)geteuid());
	return 0;
}

/*
 * Open path's directory (O_PATH) component by component (kit.h, safe
 * paths) and, with check_name, what is at the name.  Fills *name.
 */
static int open_checked(const char *path, const char **name, int *dirfd, int check_name,
			char *why, size_t n)
{
	char *what = NULL;
	struct stat st;
	int r;
	const char *slash = strrchr(path, '/');

	*name = slash ? slash + 1 : path;
	if (asprintf(&what, "write '%s'", path) < 0)
		return kit_say(why, n, ENOMEM, "cannot create '%s': %s", path, strerror(ENOMEM));
	if (!**name || !strcmp(*name, ".") || !strcmp(*name, ".."))
		r = cannot_create(why, n, path, EISDIR);
	else if ((r = *dirfd = perfsink_kit_parent_open(path, 0, name, what, why, n)) >= 0) {
		if (faccessat(*dirfd, ".", W_OK | X_OK, 0) < 0)
			r = cannot_create(why, n, path, errno);
		else if (check_name)
			r = check_existing(*dirfd, *name, path, &st, why, n);
	}
	free(what);
	if (r < 0 && *dirfd >= 0)
		close(*dirfd);
	if (r < 0)
		*dirfd = -1;
	return r < 0 ? r : 0;
}

void perfsink_kit_output_init(struct perfsink_kit_output *o)
{
	memset(o, 0, sizeof(*o));
	o->dirfd = -1;
	o->fd = -1;
}

int perfsink_kit_output_check(const char *path, char *why, size_t n)
{
	const char *name;
	int dirfd = -1;
	int r = open_checked(path, &name, &dirfd, 1, why, n);
	if (dirfd >= 0)
		close(dirfd);
	return r;
}

/*
 * A new temporary file beside name: never an existing file, never a link.
 * Locked while it is ours, so that perfsink_kit_output_sweep can tell the
 * temporary file of a killed run from one still being written.
 */
static int create_tmp(struct perfsink_kit_output *o, char *why, size_t n)
{
	size_t len = strlen(o->name);
	for (int i = 0; i < TMP_TRIES; i++) {
		unsigned rnd = 0;
		if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
			rnd = (unsigned)getpid() * 2654435761u + (unsigned)i;
		char *tmp;
		/* Short enough for NAME_MAX whatever the output's name is. */
		if (asprintf(&tmp, ".%.*s.%08x", (int)(len > 200 ? 200 : len), o->name, rnd) < 0)
			return cannot_create(why, n, o->path, ENOMEM);
		int fd = openat(o->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			struct stat st;
			(void)flock(fd, LOCK_EX | LOCK_NB);
			o->fd = fd;
			o->tmp = tmp;
			if (fstat(fd, &st) == 0) {
				o->dev = st.st_dev;
				o->ino = st.st_ino;
			}
			return 0;
		}
		int e = errno;
		free(tmp);
		if (e != EEXIST)
			return cannot_create(why, n, o->path, e);
	}
	return cannot_create(why, n, o->path, EEXIST);
}

static int create(struct perfsink_kit_output *o, const char *path, int check_name, char *why,
		  size_t n)
{
	const char *name;
	int r;
	perfsink_kit_output_init(o);
	if ((r = open_checked(path, &name, &o->dirfd, check_name, why, n)) < 0)
		return r;
	o->path = strdup(path);
	o->name = o->path ? strdup(name) : NULL;
	if (!o->name)
		r = cannot_create(why, n, path, ENOMEM);
	else
		r = create_tmp(o, why, n);
	if (r < 0)
		perfsink_kit_output_close(o);
	return r;
}

int perfsink_kit_output_create(struct perfsink_kit_output *o, const char *path, char *why, size_t n)
{
	return create(o, path, 1, why, n);
}

int perfsink_kit_output_create_new(struct perfsink_kit_output *o, const char *path, char *why,
				   size_t n)
{
	return create(o, path, 0, why, n);
}

/* Is name in the directory still the file (dev, ino)? */
static int same_file(int dirfd, const char *name, dev_t dev, ino_t ino)
{
	struct stat st;
	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	       st.st_dev == dev && st.st_ino == ino;
}

/* rename that fails with EEXIST rather than replace what is at to. */
static int rename_noreplace(int dirfd, const char *from, const char *to)
{
	if (renameat2(dirfd, from, dirfd, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	/* A file system without RENAME_NOREPLACE: link does not replace either. */
	if (linkat(dirfd, from, dirfd, to, 0) < 0)
		return -errno;
	unlinkat(dirfd, from, 0);
	return 0;
}

/* Our temporary file is now o->name. */
static void placed(struct perfsink_kit_output *o)
{
	free(o->tmp);
	o->tmp = NULL;
	o->placed = 1;
}

/* Move an existing output out of the way, as perf record does. */
static int keep_old(struct perfsink_kit_output *o, char *why, size_t n)
{
	struct stat st;
	int r = check_existing(o->dirfd, o->name, o->path, &st, why, n);
	if (r != 0)
		return r > 0 ? 0 : r; /* absent: nothing to keep */
	if (st.st_size == 0) {
		if (unlinkat(o->dirfd, o->name, 0) < 0 && errno != ENOENT)
			return cannot_create(why, n, o->path, errno);
		return 0;
	}
	char *old;
	if (asprintf(&old, "%s.old", o->name) < 0)
		return cannot_create(why, n, o->path, ENOMEM);
	if (renameat(o->dirfd, o->name, o->dirfd, old) < 0)
		r = kit_say(why, n, errno, "cannot rename '%s' to '%s.old': %s", o->path, o->path,
			strerror(errno));
	free(old);
	if (r < 0)
		return r;
	o->kept_old = 1;
	o->old_dev = st.st_dev;
	o->old_ino = st.st_ino;
	return 0;
}

/* Rename name.old back to name when it is still the file we moved. */
static int restore_old(struct perfsink_kit_output *o)
{
	char *old;
	int r = 0;
	if (!o->kept_old)
		return 0;
	if (asprintf(&old, "%s.old", o->name) < 0)
		return -ENOMEM;
	if (same_file(o->dirfd, old, o->old_dev, o->old_ino))
		r = rename_noreplace(o->dirfd, old, o->name);
	free(old);
	if (r == 0)
		o->kept_old = 0;
	return r;
}

int perfsink_kit_output_place(struct perfsink_kit_output *o, char *why, size_t n)
{
	int r = keep_old(o, why, n);
	if (r < 0)
		return r;
	r = rename_noreplace(o->dirfd, o->tmp, o->name);
	if (r == -EEXIST)
		return kit_say(why, n, EPERM, "refusing to write '%s': another file appeared there while "
			   "it was being created", o->path);
	if (r < 0)
		return cannot_create(why, n, o->path, -r);
	placed(o);
	return 0;
}

/* o->path and o->name with ".k" added. */
static int rename_to_suffix(struct perfsink_kit_output *o, unsigned k)
{
	char *path, *name;
	if (asprintf(&path, "%s.%u", o->path, k) < 0)
		return -ENOMEM;
	if (asprintf(&name, "%s.%u", o->name, k) < 0) {
		free(path);
		return -ENOMEM;
	}
	int r = rename_noreplace(o->dirfd, o->tmp, name);
	if (r == 0) {
		free(o->path);
		free(o->name);
		o->path = path;
		o->name = name;
		return 0;
	}
	free(path);
	free(name);
	return r;
}

#define SUFFIX_TRIES 100

int perfsink_kit_output_place_new(struct perfsink_kit_output *o, char *why, size_t n)
{
	int r = rename_noreplace(o->dirfd, o->tmp, o->name);
	unsigned k = 0;
	while (r == -EEXIST && ++k < SUFFIX_TRIES)
		r = rename_to_suffix(o, k);
	if (r == -EEXIST)
		return kit_say(why, n, EEXIST, "cannot write '%s': it and '%s.1' to '%s.%u' are taken",
			   o->path, o->path, o->path, SUFFIX_TRIES - 1);
	if (r < 0)
		return cannot_create(why, n, o->path, -r);
	placed(o);
	return (int)k;
}

int perfsink_kit_output_replace(struct perfsink_kit_output *o, char *why, size_t n)
{
	struct stat st;
	int r = check_existing(o->dirfd, o->name, o->path, &st, why, n);
	if (r < 0)
		return r;
	if (renameat(o->dirfd, o->tmp, o->dirfd, o->name) < 0)
		return cannot_create(why, n, o->path, errno);
	placed(o);
	return 0;
}

int perfsink_kit_output_reopen(const struct perfsink_kit_output *o, int flags)
{
	struct stat st;
	int fd = openat(o->dirfd, o->placed ? o->name : o->tmp, flags | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_dev != o->dev || st.st_ino != o->ino) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

int perfsink_kit_output_discard(struct perfsink_kit_output *o)
{
	int r = 0;
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->dirfd >= 0) {
		const char *now = o->placed ? o->name : o->tmp;
		if (now && same_file(o->dirfd, now, o->dev, o->ino) && unlinkat(o->dirfd, now, 0) < 0)
			r = -errno;
		if (r == 0)
			r = restore_old(o);
	}
	free(o->tmp);
	o->tmp = NULL;
	o->placed = 0;
	perfsink_kit_output_close(o);
	return r;
}

int perfsink_kit_output_close(struct perfsink_kit_output *o)
{
	int r = 0;
	if (!o->placed && o->tmp && o->dirfd >= 0)
		return perfsink_kit_output_discard(o);
	if (o->fd >= 0 && close(o->fd) < 0)
		r = -errno;
	if (o->dirfd >= 0)
		close(o->dirfd);
	free(o->path);
	free(o->name);
	free(o->tmp);
	perfsink_kit_output_init(o);
	return r;
}

void perfsink_kit_output_report_done(const struct perfsink_instance *inst, const char *path)
{
	struct stat st;

	if (inst && path)
		perfsink_output(inst, PERFSINK_OUTPUT_DONE, path,
				stat(path, &st) == 0 ? (uint64_t)st.st_size : 0);
}
