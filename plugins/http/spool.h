/*
 * The local spool: parts that could not be sent yet, one file each, at
 *
 *     {spool_dir}/{instance}/{host}/{session}/{seq}      (part->key below the instance)
 *
 * written as "{seq}.tmp" and renamed, so a crash leaves whole parts or
 * nothing.  The data parts it holds are capped at max bytes; meta parts
 * (prologue, LOST markers) are tiny and always accepted, so the stream a
 * later upload delivers stays readable.  What is in the directory at open
 * (a backlog of earlier runs) counts toward the cap.
 *
 * Single-threaded: used from the sink's thread, or from open() before the
 * thread starts.
 */
#ifndef HTTP_SPOOL_H
#define HTTP_SPOOL_H
#include <stddef.h>
#include <stdint.h>

struct part;

struct spool {
	char *dir;        /* {spool_dir}/{instance} */
	uint64_t max;     /* cap on data bytes */
	uint64_t used;    /* bytes in the directory */
};

/*
 * Create {spool_dir}/{instance} (mkdir -p), check that files can be
 * created in it, and count what is there.  Returns 0 or a negative errno
 * with a reason in err.
 */
int spool_open(struct spool *s, const char *spool_dir, const char *instance,
	       uint64_t max, char *err, size_t errlen);
void spool_close(struct spool *s);

/*
 * Store p's bytes under p->key and set p->spool_path.  The bytes stay in
 * memory; the caller frees them when it wants.  -ENOSPC when a data part
 * does not fit under the cap, other negative errno on I/O errors.
 */
int spool_put(struct spool *s, struct part *p);
/* Read the bytes of a spooled part back into p->data. */
int spool_load(struct spool *s, struct part *p);
/* The part was delivered: delete its file (and empty parent dirs). */
void spool_remove(struct spool *s, struct part *p);

/*
 * The parts in the spool, as a list in key order (host, session, seq) with
 * data NULL, key and spool_path set; *out NULL when empty.  Leftover .tmp
 * files are deleted.  Returns the number of parts or a negative errno.
 */
int spool_scan(struct spool *s, struct part **out);

#endif
