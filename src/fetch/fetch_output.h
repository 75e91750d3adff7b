/*
 * Files fetch writes beside others: a temporary name that no one can
 * predict or plant (JIT files, before they are renamed into place), and a
 * nameless scratch file for one downloaded part.  fetch's output itself
 * goes through the kit's perfsink_kit_output_* (<perfsink/kit.h>): never
 * partial under its name, an existing file kept as NAME.old.
 *
 * Single-threaded.
 */
#ifndef PS_FETCH_FETCH_OUTPUT_H
#define PS_FETCH_FETCH_OUTPUT_H
#include <stddef.h>

/*
 * A new file ".NAME.XXXXXXXX" in dirfd, created O_RDWR|O_CREAT|O_EXCL|
 * O_NOFOLLOW, mode 0600; its name in tmp.  fd or -errno.
 */
int fetch_output_aside(int dirfd, const char *name, char *tmp, size_t n);
/*
 * A file for one downloaded part in directory dirfd, with no name
 * (O_TMPFILE; else a temporary name removed at once).  fd or -errno.
 */
int fetch_output_scratch(int dirfd);

#endif
