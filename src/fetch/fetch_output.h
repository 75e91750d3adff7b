/*
 * fetch's output file, never partial under its name: written under a
 * temporary name ".NAME.XXXXXXXX" beside it (O_CREAT|O_EXCL|O_NOFOLLOW,
 * relative to a descriptor of the directory), renamed into place once it
 * is a whole perf.data file; an existing regular file there is kept as
 * NAME.old first, as perf record does, and anything else there (a symlink,
 * a directory) is refused.  An output that is never placed (an interrupted
 * fetch, nothing to write) is removed.
 *
 * Single-threaded.
 */
#ifndef PS_FETCH_FETCH_OUTPUT_H
#define PS_FETCH_FETCH_OUTPUT_H
#include <stddef.h>

struct fetch_output {
	const char *path;   /* as given */
	char name[256];     /* its last component */
	char tmp[300];      /* the temporary name, until placed */
	int dirfd;          /* its directory */
	int fd;             /* the file, O_RDWR */
	int placed;
};

/* 0, or -errno with one line in why. */
int fetch_output_create(struct fetch_output *o, const char *path, char *why, size_t n);
/* Under its name now (a second call does nothing).  0, or -errno with why. */
int fetch_output_place(struct fetch_output *o, char *why, size_t n);
/*
 * A file for one downloaded part, in the output's directory, with no name
 * (O_TMPFILE; else a temporary name removed at once).  fd or -errno.
 */
int fetch_output_scratch(const struct fetch_output *o);
/*
 * A new file ".NAME.XXXXXXXX" in dirfd, created O_RDWR|O_CREAT|O_EXCL|
 * O_NOFOLLOW, mode 0600; its name in tmp.  fd or -errno.
 */
int fetch_output_aside(int dirfd, const char *name, char *tmp, size_t n);
/* Close; an output not placed is removed.  0 or the close error (-errno). */
int fetch_output_close(struct fetch_output *o);

#endif
