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
#include "format/build_id_flags.h" /* what dso_set_build_ids marks */

struct dso_entry;
struct dso_hits;
struct dso_pending;
struct dso_pending_stats;

struct map_ref;

/* A DSO as it is first seen (on_new). */
struct dso_seen {
	const char *name; /* as recorded */
	/*
	 * A file a process of a live recording mapped: fd is that file,
	 * opened at once through the process's mapping (probe/map_file.h,
	 * never by re-resolving its name) and kept only when that process
	 * could read it itself; from then on on_new's (it closes it or hands
	 * it on).  ref tells how to open the very same file again (its exact
	 * device and inode) should the fd have to be closed meanwhile.
	 * id[0..id_len) the build-id read from fd (id_len 0: none).  A kernel
	 * module's file (a path perfsink found in /lib/modules): fd opened by
	 * that path, ref NULL.  fd -1, ref NULL: "[kernel.kallsyms]",
	 * "[vdso]", or any file when not live.  Valid during the call.
	 */
	int fd;
	const struct map_ref *ref;
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
	 * leaves it false, the pids are long gone): each file is opened as
	 * its MMAP goes by, through the process's mapping while it lives (a
	 * container's file in its own namespace), and its build-id read from
	 * that fd.  A file that is not the one mapped, or that its process
	 * could not read, is refused: not listed, not cached, counted
	 * (dso_set_refused).  Not live: a file is read by its name, no link
	 * followed, when its device and inode are the record's.
	 */
	bool live;
	uint64_t self_mntns; /* inode of /proc/self/ns/mnt; 0: not read yet */
	/* Sample hits (dso_set_track_hits): NULL, every DSO counts as hit. */
	struct dso_hits *hits;
	bool kernel_hit;
	/* User ips (samples, chain frames) in no file mapped yet: their MMAP
	 * or FORK may be in a ring read later (probe/dso_pending.h). */
	struct dso_pending *pending;
	/*
	 * Where a non-sample record's time is, in bytes back from its end
	 * (format/record.h record_id_time_back; set by the engine from the
	 * attrs' sample_id), so a waiting hit takes the mapping of its time.
	 * 0: records carry no time; every mapping counts as older than a sample.
	 */
	unsigned id_time_back;
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
/* The same for one record of a walk the caller makes (any type: others are ignored). */
struct perfsink_kit_rec;
void dso_set_record(struct dso_set *s, const struct perfsink_kit_rec *r);
/* Number of DSOs seen. */
unsigned dso_set_count(const struct dso_set *s);
/*
 * Files refused (see live): how many, and the first DSO_REFUSED_NAMED of
 * them into names (n bytes, "" when none) as "PATH (why), ...".
 */
#define DSO_REFUSED_NAMED 3
unsigned dso_set_refused(const struct dso_set *s, char *names, size_t n);
/* Why a refused state (-ESTALE, -EACCES, -EPERM), in words. */
const char *dso_refusal_why(int state);
/*
 * The BUILD_ID feature payload: one perf build-id record per DSO whose
 * build-id could be read (ELF notes; the kernel's from /sys/kernel/notes).
 * Reads the notes of DSOs added since the last call; marks what the hits
 * still waiting have found so far.  out is replaced.
 */
int dso_set_build_ids(struct dso_set *s, struct bytes *out);

/*
 * Which DSOs samples fell in (perf record finds them by reading its output
 * back at the end).  Once tracked, dso_set_scan keeps each process's
 * mapped ranges and the BUILD_ID records say which DSOs were hit
 * (DSO_HIT_BYTE).  0 or -ENOMEM (then every DSO counts as hit).
 */
int dso_set_track_hits(struct dso_set *s);
/*
 * A sample's ip, or a frame of its call chain: its pid, ip and cpumode
 * (header.misc & CPUMODE_MASK, or the chain's context).  true when it is
 * a user ip in no file mapped yet: the caller hands it to
 * dso_set_sample_wait with the sample's time (the time is not passed
 * here: this is the drain's hot path, and most ips are found).
 */
bool dso_set_sample(struct dso_set *s, int32_t pid, uint64_t ip, unsigned cpumode);
/* That ip waits (dso_pending.h) for the MMAP or FORK that maps it, which
 * another ring may bring later. */
void dso_set_sample_wait(struct dso_set *s, int32_t pid, uint64_t ip, uint64_t time);
/* A FORK (the child has its parent's maps), EXIT or COMM record. */
void dso_set_task(struct dso_set *s, const uint8_t *rec, uint32_t type, uint16_t misc, uint16_t size);
/* The end of a drain pass: waiting hits whose window is over are settled. */
void dso_set_pass_end(struct dso_set *s);
/* How the hits that waited for their mapping fared (zeros when not tracked). */
void dso_set_pending_stats(const struct dso_set *s, struct dso_pending_stats *out);
/* DSOs with a build-id that samples fell in. */
unsigned dso_set_hit_count(const struct dso_set *s);

#endif
