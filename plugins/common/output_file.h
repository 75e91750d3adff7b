/*
 * output_file: how a file sink creates an output (the main file, a rotated
 * segment, a flight-recorder dump) safely when it runs as root in a
 * directory other users may write, such as /tmp.
 *
 *  - Refused, with a one-line reason naming the path (-EPERM): a parent
 *    directory writable by group or others that is not sticky; an existing
 *    entry at the path that is a symbolic link, not a regular file, or
 *    owned by another user than the effective uid.  A sticky directory
 *    such as /tmp is fine when the file does not exist or is ours.
 *  - Never written through a link: the data goes to a new temporary file
 *    ".NAME.XXXXXXXX" created with O_CREAT|O_EXCL|O_NOFOLLOW relative to a
 *    descriptor of the parent directory, renamed into place (without
 *    replacing anything) once the sink has written its header.
 *  - An existing non-empty output is renamed NAME.old first, as perf record
 *    does (an empty one is replaced); output_discard() removes our file and
 *    puts NAME.old back, so a run that fails before recording leaves the
 *    directory as it found it, byte for byte.
 *
 * Every function fills why (one line, may be NULL) on failure and returns
 * a negative errno.  THREADS: one thread at a time per output_file.
 */
#ifndef PS_OUTPUT_FILE_H
#define PS_OUTPUT_FILE_H
#include <stddef.h>
#include <sys/types.h>

struct output_file {
	char *path;     /* as given: for messages */
	char *name;     /* last component */
	char *tmp;      /* temporary name until placed, then NULL */
	int dirfd;      /* parent directory (O_PATH), -1 when closed */
	int fd;         /* the new file, O_WRONLY; -1 when closed */
	int placed;     /* renamed to name */
	int kept_old;   /* an existing file was renamed to name.old */
	dev_t dev;
	ino_t ino;      /* our file */
	dev_t old_dev;
	ino_t old_ino;  /* the file we renamed to name.old */
};

/* A closed output_file (output_close and output_discard are no-ops on it). */
void output_init(struct output_file *o);
/* Could path become an output now?  For open(): checks only, creates nothing. */
int output_check(const char *path, char *why, size_t n);
/*
 * Check again and create the temporary file beside path; o->fd is ready
 * for writing.  o must be closed (output_init); on failure it stays so.
 */
int output_create(struct output_file *o, const char *path, char *why, size_t n);
/* Rename an existing output to .old (or drop it when empty), ours to path. */
int output_place(struct output_file *o, char *why, size_t n);
/*
 * Another descriptor on the same file (e.g. O_WRONLY|O_DIRECT), opened
 * relative to the directory without following links and checked to be
 * the same inode.  Returns the fd or a negative errno.
 */
int output_reopen(const struct output_file *o, int flags);
/*
 * The run did not record into this output: close it, remove it (only if
 * the name still points at our file) and put name.old back.  0 or -errno.
 */
int output_discard(struct output_file *o);
/* Close the descriptors, keeping a placed file (an unplaced one is
 * discarded).  0 or the first close error. */
int output_close(struct output_file *o);

#endif
