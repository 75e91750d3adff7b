/* perfsink_kit_output_sweep: see include/perfsink/kit.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <perfsink/kit.h>

#define RND_HEX 8     /* the kit's temporary names: ".NAME[...].%08x" */
#define MKSTEMP_RND 6 /* recover before kit 1.3: ".NAME.recover.XXXXXX" */
#define NOTE_NAMES 3

static int is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

/* A temporary name of an output named bname (or of one of its segments)? */
static int tmp_name(const char *bname, const char *name)
{
	size_t b = strlen(bname), l = strlen(name);
	if (name[0] != '.' || strncmp(name + 1, bname, b) || name[b + 1] != '.')
		return 0;
	if (l >= b + 2 + RND_HEX && name[l - RND_HEX - 1] == '.' &&
	    is_hex(name + l - RND_HEX, RND_HEX))
		return 1;
	return l == b + 2 + strlen("recover.") + MKSTEMP_RND &&
	       !strncmp(name + b + 2, "recover.", strlen("recover."));
}

/*
 * Open name if it is a file a killed run of ours left: a regular file of
 * ours with one link, starting with magic (when given) or empty, that no
 * live writer holds locked.  The fd (locked) or -1.
 */
static int open_stale(int dfd, const char *name, const char *magic, struct stat *st)
{
	char head[16];
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t m = magic ? strlen(magic) : 0;
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode) || st->st_uid != geteuid() ||
	    st->st_nlink != 1 || m > sizeof(head) ||
	    (m && st->st_size && (pread(fd, head, m, 0) != (ssize_t)m || memcmp(head, magic, m))) ||
	    flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void add_note(char *note, size_t n, unsigned k, const char *name, off_t size)
{
	size_t used = note ? strlen(note) : 0;
	if (!note || used + 1 >= n || k > NOTE_NAMES)
		return;
	if (k == NOTE_NAMES)
		snprintf(note + used, n - used, ", ...");
	else
		snprintf(note + used, n - used, "%s'%s' (%.1f MB)", k ? ", " : "", name,
			 (double)size / 1e6);
}

int perfsink_kit_output_sweep(const char *path, const char *magic, char *note, size_t n)
{
	const char *bname;
	int removed = 0;

	if (note && n)
		note[0] = '\0';
	int dfd = perfsink_kit_parent_open(path, 0, &bname, "clean up", NULL, 0);
	int lfd = dfd < 0 ? -1 : openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = lfd < 0 ? NULL : fdopendir(lfd);
	struct dirent *de;
	if (!d) {
		int e = dfd < 0 ? -dfd : errno;
		if (lfd >= 0)
			close(lfd);
		if (dfd >= 0)
			close(dfd);
		return -e;
	}
	while ((de = readdir(d))) {
		struct stat st, now;
		int fd;
		if (!tmp_name(bname, de->d_name) || (fd = open_stale(dfd, de->d_name, magic, &st)) < 0)
			continue;
		/* Still the file we locked: nobody swapped the name since. */
		if (fstatat(dfd, de->d_name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
		    now.st_ino == st.st_ino && now.st_dev == st.st_dev &&
		    unlinkat(dfd, de->d_name, 0) == 0)
			add_note(note, n, (unsigned)removed++, de->d_name, st.st_size);
		close(fd);
	}
	closedir(d);
	close(dfd);
	return removed;
}
