/* A process's right to read a file: see proc_creds.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "probe/proc_creds.h"

/* The text after "\nKEY" (or KEY at the start), or NULL. */
static const char *field(const char *text, const char *key)
{
	size_t kl = strlen(key);

	if (!strncmp(text, key, kl))
		return text + kl;
	for (const char *l = strchr(text, '\n'); l; l = strchr(l + 1, '\n'))
		if (!strncmp(l + 1, key, kl))
			return l + 1 + kl;
	return NULL;
}

/* Up to max numbers of the line at p into v; how many, or -1 for a bad one. */
static int numbers(const char *p, unsigned long *v, size_t max)
{
	int n = 0;

	while (p && *p && *p != '\n') {
		char *end;

		if (*p == ' ' || *p == '\t') {
			p++;
			continue;
		}
		errno = 0;
		unsigned long x = strtoul(p, &end, 10);
		if (end == p || errno || x > (unsigned long)(gid_t)-1)
			return -1;
		if ((size_t)n < max)
			v[n++] = x;
		p = end;
	}
	return n;
}

int proc_creds_parse(const char *status, struct proc_creds *c)
{
	unsigned long ids[4], g[PROC_CREDS_GROUPS_MAX];
	const char *groups = field(status, "Groups:");
	int n;

	if (numbers(field(status, "Uid:"), ids, 4) != 4)
		return -EINVAL;
	c->fsuid = (uid_t)ids[3];
	if (numbers(field(status, "Gid:"), ids, 4) != 4)
		return -EINVAL;
	c->fsgid = (gid_t)ids[3];
	if (!groups || (n = numbers(groups, g, PROC_CREDS_GROUPS_MAX)) < 0)
		return -EINVAL;
	c->ngroups = (size_t)n;
	for (int i = 0; i < n; i++)
		c->groups[i] = (gid_t)g[i];
	return 0;
}

int proc_creds_read(pid_t pid, struct proc_creds *c)
{
	char path[64], *text = malloc(65536);
	size_t got = 0;
	int fd, r;

	if (!text)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = errno == ENOENT ? -ESRCH : -errno;
		free(text);
		return r;
	}
	for (;;) {
		ssize_t k = read(fd, text + got, 65535 - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0 || (got += (size_t)k) == 65535)
			break;
	}
	close(fd);
	text[got] = '\0';
	r = got ? proc_creds_parse(text, c) : -ESRCH; /* an empty read: it is gone */
	free(text);
	return r;
}

/* The mode bits' answer, where the kernel cannot be asked (no faccessat2). */
static int mode_allows(const struct proc_creds *c, const struct stat *st)
{
	if (c->fsuid == 0)
		return 1;
	if (st->st_uid == c->fsuid)
		return !!(st->st_mode & S_IRUSR);
	bool in_group = st->st_gid == c->fsgid;
	for (size_t i = 0; i < c->ngroups && !in_group; i++)
		in_group = st->st_gid == c->groups[i];
	return !!(st->st_mode & (in_group ? S_IRGRP : S_IROTH));
}

/* Ask the kernel with c's identity on this thread; 1, 0 or -errno. */
static int ask_as(const struct proc_creds *c, int fd, const struct stat *st)
{
	int nown = getgroups(0, NULL), r;
	gid_t *own = malloc((size_t)(nown > 0 ? nown : 1) * sizeof(*own));

	if (!own || nown < 0 || getgroups(nown, own) != nown) {
		free(own);
		return -ENOMEM;
	}
	/* Raw calls: glibc's setgroups would change every thread's groups. */
	if (syscall(SYS_setgroups, c->ngroups, c->groups) < 0) {
		r = -errno;
		free(own);
		return r;
	}
	long gid = syscall(SYS_setfsgid, c->fsgid), uid = syscall(SYS_setfsuid, c->fsuid);
	if (syscall(SYS_setfsuid, -1) != (long)c->fsuid || syscall(SYS_setfsgid, -1) != (long)c->fsgid)
		r = -EPERM;
	else if (syscall(SYS_faccessat2, fd, "", R_OK, AT_EMPTY_PATH | AT_EACCESS) == 0)
		r = 1;
	else
		r = errno == EACCES || errno == EPERM ? 0 : errno == ENOSYS ? mode_allows(c, st) : -errno;
	syscall(SYS_setfsuid, uid);
	syscall(SYS_setfsgid, gid);
	syscall(SYS_setgroups, (size_t)nown, own);
	free(own);
	return r;
}

int proc_creds_can_read(const struct proc_creds *c, int fd)
{
	struct stat st;

	if (geteuid() != 0)
		return 1;
	if (fstat(fd, &st) < 0)
		return -errno;
	return ask_as(c, fd, &st);
}

int proc_creds_anyone_reads(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && (st.st_mode & S_IROTH);
}
