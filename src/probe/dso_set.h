/*
 * The DSOs a recording maps, from its MMAP/MMAP2 records, and the BUILD_ID
 * feature made from them.  perf record reads its whole output back at the
 * end to find the DSOs that were hit; perfsink lists every DSO mapped
 * instead and reads only the ELF notes of each, once.  Engine thread only.
 */
#ifndef PS_DSO_SET_H
#define PS_DSO_SET_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/bytes.h"

struct dso_entry;

/* A DSO as it is first seen (on_new). */
struct dso_seen {
	const char *name; /* as recorded */
	/*
	 * A file mapped by a process in another mount namespace (a container):
	 * fd is that file, opened at once through /proc/PID/root, and from
	 * then on_new's (it closes it or hands it on); path is that
	 * /proc/PID/root path; id[0..id_len) the build-id read from fd (id_len
	 * 0: none could be read).  fd -1: a file of our namespace (or one that
	 * could not be opened), to be read by its name.  Valid during the call.
	 */
	int fd;
	const char *path;
	const uint8_t *id;
	size_t id_len;
};

struct dso_set {
	struct dso_entry **buckets;
	unsigned nr_buckets;
	unsigned n;
	/*
	 * Optional: called with each DSO as it is first seen (the build-id
	 * cache).  It owns seen->fd when that is >= 0; without on_new the set
	 * closes it: the set itself keeps no fd open.
	 */
	void (*on_new)(void *arg, const struct dso_seen *seen);
	void *on_new_arg;
	/*
	 * The records come from a live recording (set by the engine; recover
	 * leaves it false, the pids are long gone): a file mapped by a process
	 * in another mount namespace (a container) has its build-id read at
	 * once through /proc/PID/root, as perf reads it in that namespace, and
	 * before the process can exit.
	 */
	bool live;
	uint64_t self_mntns; /* inode of /proc/self/ns/mnt; 0: not read yet */
};

void dso_set_init(struct dso_set *s);
void dso_set_free(struct dso_set *s);
/*
 * Add the files named by the MMAP/MMAP2 records among recs (whole records);
 * returns the number of records walked, so a caller need not walk again.
 * A DSO is its name and, from MMAP2, its device and inode (as perf's dso
 * id): the same path in two mount namespaces can be two files, two ids.
 */
size_t dso_set_scan(struct dso_set *s, const uint8_t *recs, size_t len);
/* Number of DSOs seen. */
unsigned dso_set_count(const struct dso_set *s);
/*
 * The BUILD_ID feature payload: one perf build-id record per DSO whose
 * build-id could be read (ELF notes; the kernel's from /sys/kernel/notes).
 * Reads the notes of DSOs added since the last call.  out is replaced.
 */
int dso_set_build_ids(struct dso_set *s, struct bytes *out);

#endif
