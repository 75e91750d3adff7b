/*
 * Build-ids of mapped files for the pprof sink (pp_procs' buildid hook):
 * an MMAP2 that carries one gives it; for one that does not, the file's
 * ELF note is read, once per path (opened without following a link at its
 * end; FIFOs and devices refused), so a backend can symbolize by build-id
 * (symbolize = none) and the local symbolizer finds the file in the
 * build-id cache.  The aggregation thread's only; no locking.
 */
#ifndef PPROF_BUILDID_H
#define PPROF_BUILDID_H
#include <stddef.h>
#include <stdint.h>
#include <perfsink/pprof_model.h>

struct bid_cache {
	struct pp_intern paths;
	char (*hex)[41];      /* by paths index; "" when the file has none */
	uint32_t cap;
};

void bid_cache_init(struct bid_cache *c);
void bid_cache_free(struct bid_cache *c);
/* The hex build-id of file (a pp_buildid_fn; arg: the cache), or NULL:
 * none for the kernel, names not a path ([vdso], //anon) or an unreadable file. */
const char *bid_cache_get(void *arg, const char *file, int kernel);
/* Bytes held, about. */
size_t bid_cache_bytes(const struct bid_cache *c);

#endif
