#include <errno.h>
#include <unistd.h>
#include <perfsink/kit.h>

int perfsink_kit_pwrite_all(int fd, const void *p, size_t len, uint64_t off)
{
	const uint8_t *b = p;
	while (len) {
		ssize_t n = pwrite(fd, b, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO; /* no progress: never loop on it */
		b += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}
