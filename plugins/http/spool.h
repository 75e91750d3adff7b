/*
 * The local spool: parts that could not be sent yet, one file each, at
 *
 *     {spool_dir}/{instance}/{host}/{session}/{seq}      (part->key below the instance)
 *     {spool_dir}/{instance}/{host}/{session}/end        (the end marker, key
 *                                                         {host}/{session}.end)
 *
 * written as "{seq}.tmp" ("end.tmp") and renamed, so a crash leaves whole
 * parts or nothing.  The end marker is there only when the recording ended
 * cleanly with the session's tail unsent: the scan lists it after the
 * session's parts, so it is sent after them.  The data parts it holds are capped at max bytes; meta parts
 * (prologue, LOST markers) are tiny and always accepted, so the stream a
 * later upload delivers stays readable.  What is in the directory at open
 * (a backlog of earlier runs) counts toward the cap.
 *
 * SAFETY.  perfsink runs as root on hosts it does not own, and the spool is
 * read back and sent to a collector, so nothing in it is trusted:
 * - every directory of the spool is created 0700 and checked at each use
 *   (owned by the effective uid, not writable by group or others), and is
 *   reached from a directory fd with O_NOFOLLOW, so no symlink is followed
 *   anywhere below spool_dir;
 * - a part is sent only when its name is a sequence number as the sink
 *   writes it (spool_seq_name) and its bytes are whole perf pipe-mode
 *   records (perfsink_kit_records_validate), read from a regular file owned by the
 *   effective uid with one link;
 * - an end marker likewise, when its bytes are exactly the sink's
 *   {"parts": N} (part_end_parse) and no part numbered N or more was in
 *   its session's directory (at the scan, or when it is loaded);
 * - anything else found there (odd name, symlink, FIFO, directory where a
 *   part belongs, truncated or corrupt part) is moved, never deleted, to
 *   {spool_dir}/quarantine/{instance}/... (made the same safe way), and
 *   reported through on_quarantine.
 *
 * Single-threaded: used from the sink's thread, or from open() before the
 * thread starts.
 */
#ifndef HTTP_SPOOL_H
#define HTTP_SPOOL_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct part;

/*
 * Told once per entry moved to quarantine: what it was (path), where it
 * went (to, or NULL when it could not be moved and was only left out),
 * why, and how many bytes of data that means lost.
 */
typedef void (*spool_quarantine_fn)(void *arg, const char *path, const char *to, const char *why,
				    uint64_t bytes);

struct spool {
	char *dir;        /* {spool_dir}/{instance}, for messages */
	char *qdir;       /* {spool_dir}/quarantine/{instance}, for messages */
	char *instance;
	int base_fd;      /* {spool_dir} */
	int fd;           /* {spool_dir}/{instance} */
	uid_t owner;      /* the effective uid at open */
	uint64_t max;     /* cap on data bytes */
	uint64_t part_max; /* a part file larger than this is quarantined unread (0: no cap) */
	uint64_t used;    /* bytes in the directory */
	spool_quarantine_fn on_quarantine; /* may be NULL */
	void *arg;
	char err[512];    /* the reason of the last failure other than a bad part */
};

/*
 * Create {spool_dir} (mkdir -p, 0700) and {spool_dir}/{instance} (0700),
 * check both (owner, mode, no symlink), check that files can be created,
 * and count what is there.  Returns 0 or a negative errno with one line of
 * reason in err (a foreign or group/world-writable directory: -EPERM).
 */
int spool_open(struct spool *s, const char *spool_dir, const char *instance,
	       uint64_t max, char *err, size_t errlen);
/* Safe after a failed open and a second time. */
void spool_close(struct spool *s);

/*
 * Store p's bytes under p->key and set p->spool_path.  The bytes stay in
 * memory; the caller frees them when it wants.  -ENOSPC when a data part
 * does not fit under the cap, -EPERM when a spool directory fails its
 * check, other negative errno on I/O errors (reason in s->err).
 */
int spool_put(struct spool *s, struct part *p);
/*
 * Read the bytes of a spooled part (or end marker) back into p->data and
 * check them, with bounded memory: a part larger than s->part_max is
 * quarantined unread; one larger than SPOOL_INMEM_MAX (spool_read.h) is
 * checked from its file and left there, open in p->file_fd, to be sent
 * from it.
 * -EBADMSG: the part was not a good one; it has been quarantined (and
 * reported), p->spool_path is NULL, the caller forgets p.  -ENOENT: it is
 * gone.  Other negative errno: the spool itself failed (reason in s->err).
 */
int spool_load(struct spool *s, struct part *p);
/* The part was delivered: delete its file (and empty parent dirs). */
void spool_remove(struct spool *s, struct part *p);

/*
 * The parts in the spool, as a list in order of place (host, session,
 * seq, then the session's end marker, kind PART_END, its seq the number of
 * parts the scan found that it must count at least) with data NULL, key
 * and spool_path set; *out NULL when empty.  Leftover "{seq}.tmp" and
 * "end.tmp" files (a write cut by a crash) are deleted; every entry that
 * is neither a part nor an end marker is quarantined.  Returns the number
 * of entries (end markers included) or a negative errno (reason in s->err).
 */
int spool_scan(struct spool *s, struct part **out);

/*
 * Whether name is a part name: the sink's "%010" PRIu64 form of a seq
 * below 10^19, i.e. 10 digits, or 11 to 19 digits not starting with 0.
 * Stores the seq in *seq (may be NULL).
 */
int spool_seq_name(const char *name, uint64_t *seq);

#endif
