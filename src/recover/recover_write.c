/* recover_write: see recover_write.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/fs.h>
#include <perfsink/kit.h>
#include "recover/recover_write.h"

/* Through user space, for file systems without copy_file_range. */
static int copy_plain(int in, int out, uint64_t len)
{
	uint8_t buf[1 << 16];
	for (uint64_t off = 0; off < len;) {
		size_t want = len - off < sizeof(buf) ? (size_t)(len - off) : sizeof(buf);
		ssize_t r = pread(in, buf, want, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO; /* shrank under us */
		int err = perfsink_kit_pwrite_all(out, buf, (size_t)r, off);
		if (err)
			return err;
		off += (uint64_t)r;
	}
	return 0;
}

/* The first len bytes of in into out: a reflink, an in-kernel copy, or read/write. */
static int copy_prefix(int in, int out, uint64_t len)
{
	if (ioctl(out, FICLONE, in) == 0)
		return ftruncate(out, (off_t)len) < 0 ? -errno : 0;
	loff_t ioff = 0, ooff = 0;
	while ((uint64_t)ioff < len) {
		ssize_t n = copy_file_range(in, &ioff, out, &ooff, (size_t)(len - (uint64_t)ioff), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && ioff == 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
					   errno == EOPNOTSUPP))
			return copy_plain(in, out, len);
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
	}
	return 0;
}

static int fill(int in, const struct stat *st, int out, uint64_t copy_len,
		const struct rw_patch *patches, unsigned n, const void *tail, size_t tail_len,
		const char **step)
{
	int err;
	*step = "copy the data";
	if ((err = copy_prefix(in, out, copy_len)))
		return err;
	*step = "write the header and features";
	for (unsigned i = 0; i < n; i++)
		if ((err = perfsink_kit_pwrite_all(out, patches[i].p, patches[i].len, patches[i].off)))
			return err;
	if ((err = perfsink_kit_pwrite_all(out, tail, tail_len, copy_len)))
		return err;
	*step = "set the mode";
	if (fchmod(out, st->st_mode & 0777) < 0)
		return -errno;
	*step = "sync";
	return fsync(out) < 0 ? -errno : 0;
}

int recover_write(int in_fd, const struct stat *in_st, uint64_t copy_len,
		  const struct rw_patch *patches, unsigned nr_patches, const void *tail,
		  size_t tail_len, const char *target, char *err, size_t errlen)
{
	struct perfsink_kit_output o;
	const char *step;
	int r = perfsink_kit_output_create(&o, target, err, errlen);

	if (r < 0)
		return r;
	r = fill(in_fd, in_st, o.fd, copy_len, patches, nr_patches, tail, tail_len, &step);
	if (r < 0) {
		snprintf(err, errlen, "cannot %s (%s): %s", step, o.tmp, strerror(-r));
		perfsink_kit_output_discard(&o);
		return r;
	}
	if ((r = perfsink_kit_output_replace(&o, err, errlen)) < 0) {
		perfsink_kit_output_discard(&o);
		return r;
	}
	/* The rename on disk, before anyone reads the repaired file. */
	int dfd = openat(o.dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		(void)fsync(dfd);
		close(dfd);
	}
	return perfsink_kit_output_close(&o);
}
