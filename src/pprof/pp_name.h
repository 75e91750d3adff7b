/*
 * Locations are named once their input is read, not as they are met: a
 * pipe stream names its files' build-ids (HEADER_BUILD_ID) at its end, and
 * a file without one ([vdso]) is found in the build-id cache only by it.
 * Each new location waits here with what names it (kernel, or its DSO and
 * map); pp_name_run gives each its function and line.  Single-threaded.
 */
#ifndef PS_PPROF_NAME_H
#define PS_PPROF_NAME_H
#include <stddef.h>
#include <stdint.h>
#include <perfsink/pprof_symbols.h>

struct pp_input;

/* struct pp_pending and PP_UNKNOWN: <perfsink/pprof_symbols.h>. */

struct pp_name {
	struct pp_pending *p;
	size_t n, cap;
};

/* Queue a location; 0 or -ENOMEM. */
int pp_name_add(struct pp_name *nm, const struct pp_pending *e);
/* Name every queued location with what in (now read) says of the files;
 * kernel_bid (41 bytes) is filled from it when empty.  0 or -ENOMEM. */
int pp_name_run(struct pp_name *nm, struct pp_profile *prof, struct pp_procs *ps, struct pp_symbols *sy,
		const struct pp_input *in, char *kernel_bid);
void pp_name_free(struct pp_name *nm);

#endif
