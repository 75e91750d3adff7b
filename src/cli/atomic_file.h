/*
 * A file replaced whole (--stats-file, --summary-json): written to a
 * temporary file the kit creates beside the path (perfsink_kit_output:
 * the directory walked without following links, an unpredictable name
 * made with O_EXCL|O_NOFOLLOW), then renamed over the path.  Readers
 * (node_exporter's textfile collector, a script reading the JSON) see the
 * old file or the new one, never half of one.
 */
#ifndef PS_ATOMIC_FILE_H
#define PS_ATOMIC_FILE_H
#include <stdio.h>
#include <perfsink/kit.h>

struct atomic_file {
	FILE *f;
	struct perfsink_kit_output o;
	char why[512]; /* the reason of the last failure, one line */
};

/* Could path be written now?  Checks only; 0 or -errno with why. */
int atomic_file_check(const char *path, char *why, size_t n);
/* Open the temporary file beside path, mode 0644.  0 or -errno (a->why says why). */
int atomic_file_open(struct atomic_file *a, const char *path);
/* Close it and rename it over path (or remove it on error).  0 or -errno (a->why). */
int atomic_file_commit(struct atomic_file *a);

#endif
