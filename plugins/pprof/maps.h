/*
 * The processes' executable mappings, as the recording's MMAP/MMAP2,
 * FORK, COMM (exec) and EXIT records describe them, so that an address a
 * sample names can be put in its mapping (file, offset, build-id) for a
 * backend to symbolize.  The kernel's maps are pid -1.  Build-ids come
 * from MMAP2 when it carries one, else from the file's ELF notes, read once
 * per path (opened without following a link at its end; FIFOs and devices
 * refused).  The aggregation thread's only; no locking.
 */
#ifndef PPROF_MAPS_H
#define PPROF_MAPS_H
#include <stddef.h>
#include <stdint.h>
#include <perfsink/kit.h>

struct map_ent {
	uint64_t start, end, pgoff;
	uint32_t file;        /* index into the file table */
	uint32_t window;      /* window that mapping_id belongs to */
	uint64_t mapping_id;  /* the profile's Mapping id in that window */
};

struct map_file {
	char *path;
	char build_id[2 * PERFSINK_KIT_BUILD_ID_MAX + 1]; /* hex; "" when not known */
	int looked;          /* build-id read from the file (or tried) */
};

struct maps_proc;

struct maps {
	struct maps_proc *procs;  /* open addressing by pid */
	uint32_t nprocs, cap;     /* cap: a power of two */
	struct map_file *files;
	uint32_t nfiles, cap_files;
	size_t bytes;             /* memory held, about */
};

void maps_init(struct maps *m);
void maps_free(struct maps *m);
/*
 * pid mapped [start, start+len) of path at pgoff (replacing what it
 * overlaps); bid (bidlen bytes) is the MMAP2 build-id, or NULL.  0, -ENOMEM.
 */
int maps_mmap(struct maps *m, int32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
	      const char *path, const uint8_t *bid, size_t bidlen);
/* A new process pid forked from ppid shares its maps.  0, -ENOMEM. */
int maps_fork(struct maps *m, int32_t ppid, int32_t pid);
/* pid exec'd (or exited): its maps are gone. */
void maps_forget(struct maps *m, int32_t pid);
/* The mapping of pid holding addr, or NULL. */
struct map_ent *maps_find(struct maps *m, int32_t pid, uint64_t addr);
/* The file of a mapping; its build-id looked up on first use. */
const struct map_file *maps_file(struct maps *m, uint32_t i);

#endif
