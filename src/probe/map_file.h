/*
 * The file a recorded mapping maps, opened without trusting its name.
 * perfsink runs as root among users it does not trust: the process that
 * mapped /tmp/x may have made /tmp/x a link to a file only root may read
 * by the time the recorder looks.  So the file is opened through the
 * process's own mapping (/proc/PID/map_files/START-END, the mapped file
 * whatever its name is now) while the process lives, else by its name
 * without following any link and only when its device, inode (and
 * generation, where the file system tells it) are the ones the record
 * gives.  No state; any thread.
 */
#ifndef PS_MAP_FILE_H
#define PS_MAP_FILE_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* A mapping, as an MMAP2 record (or a file opened once before) gives it. */
struct map_ref {
	const char *name;   /* as recorded: an absolute path */
	uint32_t pid;       /* the mapping process; 0 or (uint32_t)-1: none */
	uint64_t start, len;
	/* From MMAP2: the file's device, inode and generation; ino 0: not known. */
	uint32_t maj, min;
	uint64_t ino, gen;
	/*
	 * The process is in another mount namespace (a container): name is
	 * opened inside its root (/proc/PID/root), never on the host.
	 */
	bool other_ns;
	/* A file opened before (reopen): st_dev/st_ino must be these exactly. */
	bool exact;
	dev_t dev;
	ino_t ino_exact;
	/*
	 * Without a known identity (ino 0, not exact) the file at name is
	 * refused (-ESTALE) when set: a live recording; recover, which only
	 * reads build-ids, takes the name as it is then (links followed, as
	 * perf reads it).
	 */
	bool need_identity;
};

/*
 * Open r's file read-only (O_CLOEXEC, a regular file), through the mapping
 * when the process is alive and can be looked into, else by name.
 * Returns the fd, or -ESTALE when the file at the name is not the one
 * mapped (or could not be told to be), or another -errno when there is no
 * such file to open (gone, not a regular file, a link on the way).
 */
int map_file_open(const struct map_ref *r);

#endif
