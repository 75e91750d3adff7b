/* The BUILD_ID feature section of a perf.data file; see kit.h and perf_build_ids.h. */
#include <perfsink/kit.h>
#include "perf_build_ids.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* perf.data file header offsets (perf's struct perf_file_header). */
#define PF_MAGIC "PERFILE2"
#define PF_DATA 40      /* data section: offset, size */
#define PF_FEATURES 72  /* adds_features bitmap, 256 bits */
#define FEAT_TRACING_DATA 1
#define FEAT_BUILD_ID 2

int kit_build_ids_of_fd(int fd, struct perfsink_kit_buf *out)
{
	uint8_t h[PF_FEATURES + 8];
	uint64_t data[2], bits, sec[2];
	size_t idx;
	int rc;

	perfsink_kit_buf_reset(out);
	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h) || memcmp(h, PF_MAGIC, 8))
		return -EBADMSG;
	memcpy(data, h + PF_DATA, sizeof(data));
	memcpy(&bits, h + PF_FEATURES, 8);
	if (!(bits & (1ull << FEAT_BUILD_ID)))
		return 0; /* none: an empty list */
	/* The index has an entry per set bit, in bit order from bit 1. */
	idx = (bits >> FEAT_TRACING_DATA) & 1;
	if (pread(fd, sec, sizeof(sec), (off_t)(data[0] + data[1] + idx * sizeof(sec))) != (ssize_t)sizeof(sec) ||
	    sec[1] > (64u << 20))
		return -EBADMSG;
	if ((rc = perfsink_kit_buf_reserve(out, (size_t)sec[1])))
		return rc;
	if (pread(fd, out->data, (size_t)sec[1], (off_t)sec[0]) != (ssize_t)sec[1])
		return -EBADMSG;
	out->len = (size_t)sec[1];
	return 0;
}

int perfsink_kit_perf_file_build_ids(const char *path, struct perfsink_kit_buf *out)
{
	/* Kit 1.3: a regular file only, never through a link, and a FIFO cannot hang it. */
	int fd = perfsink_kit_input_open(AT_FDCWD, path, "read", NULL, 0), rc;

	perfsink_kit_buf_reset(out);
	if (fd < 0)
		return fd;
	rc = kit_build_ids_of_fd(fd, out);
	close(fd);
	return rc;
}
