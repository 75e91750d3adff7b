/*
 * DWARF call graphs (--call-graph dwarf: PERF_SAMPLE_REGS_USER and
 * STACK_USER): the user stack is unwound from the sample's registers and
 * its stack copy with elfutils' libdwfl, as perf's unwind-libdw.c does,
 * reading CFI (.eh_frame, .debug_frame) from each mapped file as
 * pp_symbols finds it.  Unlike perf, the Dwfl of a process is kept across
 * its samples and made again only when its maps change.  x86-64 only.
 * Single-threaded.
 */
#ifndef PS_PPROF_UNWIND_H
#define PS_PPROF_UNWIND_H
#include <stdint.h>

struct pp_procs;
struct pp_proc;
struct pp_sample;
struct pp_symbols;

/* Unwind s of process p into pcs[0..max): the sample's pc first, then the
 * return addresses.  How many were found (0: none, not even the first). */
unsigned pp_unwind(struct pp_procs *ps, struct pp_proc *p, struct pp_symbols *sy, const struct pp_sample *s,
		   uint64_t *pcs, unsigned max);
/* Whether this build can unwind DWARF stacks (x86-64). */
int pp_unwind_supported(void);
/* Free a process's unwinder state (pp_procs.free_unwind). */
void pp_unwind_free(void *state);

#endif
