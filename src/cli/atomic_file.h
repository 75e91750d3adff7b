/* A file replaced whole: written to PATH.tmp.PID, then renamed over PATH. */
#ifndef PS_ATOMIC_FILE_H
#define PS_ATOMIC_FILE_H
#include <stdio.h>

struct atomic_file {
	FILE *f;
	char tmp[4096];
	const char *path;
};

/* Open the temporary file next to path.  0 or -errno. */
int atomic_file_open(struct atomic_file *a, const char *path);
/* Flush, fsync-free close, rename over path (or remove the temporary on error).  0 or -errno. */
int atomic_file_commit(struct atomic_file *a);

#endif
