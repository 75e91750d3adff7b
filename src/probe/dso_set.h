/*
 * The DSOs a recording maps, from its MMAP/MMAP2 records, and the BUILD_ID
 * feature made from them.  perf record reads its whole output back at the
 * end to find the DSOs that were hit; perfsink lists every DSO mapped
 * instead and reads only the ELF notes of each, once.  Engine thread only.
 */
#ifndef PS_DSO_SET_H
#define PS_DSO_SET_H
#include <stddef.h>
#include <stdint.h>
#include "base/bytes.h"

struct dso_entry;

struct dso_set {
	struct dso_entry **buckets;
	unsigned nr_buckets;
	unsigned n;
	/* Optional: called with each DSO's name as it is first seen (the build-id cache). */
	void (*on_new)(void *arg, const char *name);
	void *on_new_arg;
};

void dso_set_init(struct dso_set *s);
void dso_set_free(struct dso_set *s);
/* Add the files named by the MMAP/MMAP2 records among recs (whole records);
 * returns the number of records walked, so a caller need not walk again. */
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
