/*
 * The processes a recording shows and what each had mapped, from its
 * MMAP/MMAP2, COMM and FORK records, as perf's machine/thread code keeps
 * them: a new map replaces the part of older ones it overlaps, a forked
 * process starts with its parent's maps, exec (COMM with COMM_EXEC) clears
 * them.  Kernel maps live in one process of their own.  Only executable
 * maps are kept (the ones a code address can fall in).  Each mapped file is
 * a DSO: one per file name and build-id, shared by every process.
 * Single-threaded.
 */
#ifndef PS_PPROF_PROCS_H
#define PS_PPROF_PROCS_H
#include <stddef.h>
#include <stdint.h>
#include "pprof/pp_intern.h"

struct pp_input;

#define PP_KERNEL_PID 0xffffffffu

struct pp_dso {
	char *name;           /* as the MMAP record names it */
	char bid[41];         /* hex build-id, "" when none is known */
	void *sym;            /* the symbol reader's state (pp_symbols.c), NULL until used */
	int sym_tried;
};

struct pp_map {
	uint64_t start, end, pgoff;
	uint32_t dso;
	int64_t mapping_id;   /* the profile's Mapping, 0 until made */
};

struct pp_proc {
	uint32_t pid;
	char comm[32];
	struct pp_map *m;     /* sorted by start, not overlapping */
	size_t n, cap;
	uint32_t gen;         /* changes whenever m does (for caches built on it) */
	void *unwind;         /* the unwinder's state (pp_unwind.c), NULL until used */
};

struct pp_procs {
	struct pp_intern pids, dso_keys;
	struct pp_intern tids;        /* threads a COMM named apart from their process */
	char (*tcomm)[32];            /* their names, by tids index */
	uint32_t cap_tcomm;
	struct pp_proc *proc;
	struct pp_dso *dso;
	uint32_t cap_proc, cap_dso;
	void (*free_unwind)(void *);  /* frees pp_proc.unwind */
	void (*free_sym)(void *);     /* frees pp_dso.sym */
};

void pp_procs_init(struct pp_procs *ps);
void pp_procs_free(struct pp_procs *ps);
/* Forget the processes (another recording's pids are other tasks); the
 * DSOs and what their symbols cost to read stay. */
void pp_procs_forget(struct pp_procs *ps);
/* Take a record if it is MMAP, MMAP2, COMM or FORK; in names the build-ids
 * of its recording.  0 or -ENOMEM. */
int pp_procs_record(struct pp_procs *ps, const struct pp_input *in, const uint8_t *r, uint16_t size);
/* Process pid (PP_KERNEL_PID: the kernel's maps), made when missing; NULL: no memory. */
struct pp_proc *pp_procs_get(struct pp_procs *ps, uint32_t pid);
/* The name of thread tid of p, as perf shows it: its own COMM, else its process's. */
const char *pp_procs_comm(const struct pp_procs *ps, const struct pp_proc *p, uint32_t tid);
/* The map of p holding addr, or NULL. */
struct pp_map *pp_proc_find(struct pp_proc *p, uint64_t addr);
/* Add a map to p (what MMAP does); 0 or -ENOMEM. */
int pp_proc_map(struct pp_proc *p, const struct pp_map *m);

#endif
