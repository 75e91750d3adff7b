/* A recorded process's files as it sees them; see proc_root.h. */
#define _GNU_SOURCE /* O_PATH */
#include "proc_root.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The last number of the line after key at a line start, or -1. */
static int last_field(const char *text, const char *key)
{
	size_t kl = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		long v = -1;
		const char *s = l + kl;

		if (strncmp(l, key, kl))
			continue;
		while (*s && *s != '\n') {
			char *end;
			long n;

			while (*s == ' ' || *s == '\t')
				s++;
			if (*s == '\n' || !*s)
				break;
			errno = 0;
			n = strtol(s, &end, 10);
			if (end == s || errno || n <= 0 || n > INT_MAX)
				return -1;
			v = n;
			s = end;
		}
		return (int)v;
	}
	return -1;
}

int proc_status_nspid(const char *status)
{
	int v = last_field(status, "NSpid:");

	return v > 0 ? v : last_field(status, "Pid:");
}

int proc_nspid(pid_t pid)
{
	char path[64], text[4096];
	ssize_t k;
	int fd, v;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	k = read(fd, text, sizeof(text) - 1); /* NSpid is in the first lines */
	v = k < 0 ? -errno : 0;
	close(fd);
	if (v)
		return v;
	text[k] = '\0';
	v = proc_status_nspid(text);
	return v > 0 ? v : -ENOENT;
}

int proc_other_mntns(pid_t pid)
{
	char path[64];
	struct stat self, other;

	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	if (stat(path, &other) < 0 || stat("/proc/self/ns/mnt", &self) < 0)
		return -errno;
	return self.st_dev != other.st_dev || self.st_ino != other.st_ino;
}

/* name (under dir) read-only if a regular file, not through a link: fd or -errno. */
static int regular_open(int dir, const char *name)
{
	struct stat st;
	/* O_NONBLOCK: a FIFO planted there must not block the open. */
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/* The next component of *p (advanced past it) into c: its length, 0 at the end. */
static size_t component(const char **p, char c[NAME_MAX + 1])
{
	size_t n;

	while (**p == '/')
		(*p)++;
	n = strcspn(*p, "/");
	if (n > NAME_MAX)
		return (size_t)-1;
	memcpy(c, *p, n);
	c[n] = '\0';
	*p += n;
	return n;
}

int proc_root_open(pid_t pid, const char *abs)
{
	char root[64];
	int dir, fd;

	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	dir = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -errno;
	fd = proc_root_open_at(dir, abs);
	close(dir);
	return fd;
}

int proc_root_open_at(int root, const char *abs)
{
	char c[NAME_MAX + 1];
	const char *p = abs;
	int dir, fd;
	size_t n;

	if (abs[0] != '/')
		return -EINVAL;
	/* Our own fd to walk with: the caller's root stays open and unmoved. */
	dir = openat(root, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -errno;
	for (;;) {
		n = component(&p, c);
		if (n == (size_t)-1 || !strcmp(c, ".") || !strcmp(c, "..") || n == 0) {
			close(dir);
			return n == (size_t)-1 ? -ENAMETOOLONG : -EINVAL;
		}
		while (*p == '/')
			p++;
		if (!*p)
			break;
		fd = openat(dir, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(dir);
		if (fd < 0)
			return -errno; /* a link there: ENOTDIR (O_DIRECTORY|O_NOFOLLOW) */
		dir = fd;
	}
	fd = regular_open(dir, c);
	close(dir);
	return fd;
}

int host_open(const char *path)
{
	return regular_open(AT_FDCWD, path);
}

void proc_fd_path(int fd, char *out, size_t n)
{
	snprintf(out, n, "/proc/self/fd/%d", fd);
}
