/*
 * Names for code addresses.  A DSO's file is looked up in perf's build-id
 * cache (~/.debug, what `perfsink record` and `fetch` fill) by its
 * build-id first, then at its recorded path when its build-id matches (or
 * none is known); its symbols come from the ELF symtab/dynsym and its lines
 * from DWARF, both through elfutils (libdwfl).  Kernel addresses are named
 * from the recording's shipped kallsyms (~/.debug/[kernel.kallsyms]/ID/),
 * else /proc/kallsyms.  A [vdso] without a build-id (pipe streams carry
 * none) is this kernel's own, as perf report takes it.  Nothing found: name NULL (the caller says
 * "[unknown]").  Names are as the file has them (pp_demangle.c demangles).
 * Single-threaded.
 */
#ifndef PS_PPROF_SYMBOLS_H
#define PS_PPROF_SYMBOLS_H
#include <stdint.h>

struct pp_dso;
struct pp_map;

struct pp_sym {
	const char *name;   /* valid until the next call; NULL: not known */
	const char *file;   /* source file, or NULL */
	int line;           /* 0: not known */
};

struct pp_symbols;

/* 0 or -ENOMEM. cache_dir: perf's build-id cache directory. */
int pp_symbols_new(struct pp_symbols **out, const char *cache_dir);
void pp_symbols_free(struct pp_symbols *sy);
/* Name addr of map m (of DSO d); caller: whether addr is a return address
 * (looked up one byte back, inside the call).  Always fills out. */
void pp_symbols_user(struct pp_symbols *sy, struct pp_dso *d, const struct pp_map *m, uint64_t addr,
		     int caller, struct pp_sym *out);
/* Name a kernel address; kernel_bid: the recording's kernel build-id hex or "". */
void pp_symbols_kernel(struct pp_symbols *sy, const char *kernel_bid, uint64_t addr, struct pp_sym *out);
/* The file pp_symbols_user found for d (the cached copy or the path), or NULL. */
const char *pp_symbols_path(const struct pp_dso *d);
/* Free a DSO's symbol state (pp_procs.free_sym). */
void pp_symbols_dso_free(void *state);
/* The libdwfl module for d, opened when first asked (pp_unwind.c reports
 * the same file); NULL when none was found. */
const char *pp_symbols_open(struct pp_symbols *sy, struct pp_dso *d);

#endif
