/* Temporary and scratch files beside fetch's outputs; see fetch_output.h. */
#include "fetch/fetch_output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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

int fetch_output_scratch(int dirfd)
{
	char tmp[300];
	int fd = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd < 0 ? -errno : fd;
	fd = fetch_output_aside(dirfd, "part", tmp, sizeof(tmp));
	if (fd >= 0)
		unlinkat(dirfd, tmp, 0);
	return fd;
}
