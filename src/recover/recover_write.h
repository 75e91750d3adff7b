/*
 * Atomic output of `perfsink recover`: the first copy_len bytes of the
 * input (cloned or copied in the kernel where the file system can),
 * patched in place, then tail; written to a temporary file in the target's
 * directory with the input's mode (perfsink_kit_output: no link followed
 * anywhere in the path, the target if it exists a regular file of ours),
 * synced, and renamed onto the target.  On failure the temporary file is
 * removed and the target is untouched.
 */
#ifndef PS_RECOVER_WRITE_H
#define PS_RECOVER_WRITE_H
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

struct rw_patch {
	uint64_t off; /* < copy_len */
	const void *p;
	size_t len;
};

/* 0, or a negative errno with the failing step in err. */
int recover_write(int in_fd, const struct stat *in_st, uint64_t copy_len,
		  const struct rw_patch *patches, unsigned nr_patches, const void *tail,
		  size_t tail_len, const char *target, char *err, size_t errlen);

#endif
