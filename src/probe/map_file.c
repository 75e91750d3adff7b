/* The file a recorded mapping maps: see map_file.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "probe/map_file.h"

static bool has_pid(const struct map_ref *r)
{
	return r->pid && r->pid != (uint32_t)-1;
}

/* fd is r's file by what is known of it: inode only (a mapping's own file), or all of it. */
static bool same_file(const struct map_ref *r, int fd, bool by_mapping)
{
	struct stat st;
	unsigned long gen = 0; /* file systems write an int into it */

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return false;
	if (r->exact)
		return st.st_dev == r->dev && st.st_ino == r->ino_exact;
	if (!r->ino)
		return by_mapping || !r->need_identity;
	if (st.st_ino != r->ino)
		return false;
	if (by_mapping) /* the mapping's own file: the inode tells a remapped range */
		return true;
	if (st.st_dev != makedev(r->maj, r->min))
		return false;
	/* A freed inode number given to another file: its generation differs. */
	return !r->gen || ioctl(fd, FS_IOC_GETVERSION, &gen) < 0 || (uint32_t)gen == (uint32_t)r->gen;
}

static int open_mapping(uint32_t pid, uint64_t lo, uint64_t hi)
{
	char path[96];

	snprintf(path, sizeof(path), "/proc/%u/map_files/%" PRIx64 "-%" PRIx64, pid, lo, hi);
	return open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
}

/*
 * The range as recorded may be gone while the file is still mapped (the
 * dynamic loader's mprotect splits a mapping): another mapping of the same
 * inode in /proc/PID/maps.  The fd or -1.
 */
static int open_other_mapping(const struct map_ref *r)
{
	char path[64], line[512];
	FILE *f;
	int fd = -1;

	if (!r->ino && !r->exact)
		return -1;
	snprintf(path, sizeof(path), "/proc/%u/maps", r->pid);
	if (!(f = fopen(path, "re")))
		return -1;
	while (fd < 0 && fgets(line, sizeof(line), f)) {
		uint64_t lo, hi, ino;
		unsigned maj, min;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %*s %x:%x %" SCNu64, &lo, &hi, &maj, &min,
			   &ino) == 5 && ino == (r->exact ? (uint64_t)r->ino_exact : r->ino))
			fd = open_mapping(r->pid, lo, hi);
	}
	fclose(f);
	return fd;
}

/* By the mapping: the fd of r's file, or -1. */
static int by_mapping(const struct map_ref *r)
{
	int fd = open_mapping(r->pid, r->start, r->start + r->len);

	if (fd < 0 && errno == ENOENT)
		fd = open_other_mapping(r);
	if (fd >= 0 && !same_file(r, fd, true)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int openat2_nolinks(int dirfd, const char *path, uint64_t resolve)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY,
		.resolve = resolve | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

/* By name, no link followed: inside the process's root when it is in another namespace. */
static int by_name(const struct map_ref *r)
{
	char root[64];
	int rfd, fd;

	if (!r->other_ns && !r->ino && !r->exact && !r->need_identity) {
		/* Nothing to check it against, nothing shipped: as perf reads it. */
		fd = open(r->name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		return fd < 0 ? -errno : fd;
	}
	if (!r->other_ns)
		return openat2_nolinks(AT_FDCWD, r->name, 0);
	if (!has_pid(r))
		return -ENOENT;
	snprintf(root, sizeof(root), "/proc/%u/root", r->pid);
	rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		return errno == EACCES ? -EACCES : -ENOENT; /* gone: its files went with it */
	fd = openat2_nolinks(rfd, r->name, RESOLVE_IN_ROOT);
	close(rfd);
	return fd;
}

int map_file_open(const struct map_ref *r)
{
	int fd = has_pid(r) ? by_mapping(r) : -1;

	if (fd >= 0)
		return fd;
	if (r->name[0] != '/')
		return -EINVAL;
	fd = by_name(r);
	/* A link now where the kernel wrote a real path: not what was mapped. */
	if (fd == -ELOOP || fd == -EXDEV)
		return -ESTALE;
	if (fd < 0)
		return fd;
	if (!same_file(r, fd, false)) {
		struct stat st;
		int e = fstat(fd, &st) == 0 && !S_ISREG(st.st_mode) ? -EINVAL : -ESTALE;
		close(fd);
		return e;
	}
	return fd;
}
