/* SPDX-License-Identifier: MIT */
/*
 * perfsink pprof symbols: what turns a sample's addresses into a stack of
 * named locations, shared by `perfsink pprof` (src/pprof) and the pprof
 * sink (plugins/pprof) and written once in plugins/pprofmodel
 * (libpprofmodel, beside <perfsink/pprof_model.h>): the processes and
 * their maps (pp_procs.c), names from ELF and DWARF through elfutils and
 * from kallsyms (pp_symbols.c), C++ demangling (pp_demangle.c), DWARF
 * unwinding with libdwfl (pp_unwind.c), and a sample's frames and one
 * location's name (pp_locate.c).  Nothing logs or exits; errors are
 * negative errno values.  An object is used by one thread at a time.
 */
#ifndef PERFSINK_PPROF_SYMBOLS_H
#define PERFSINK_PPROF_SYMBOLS_H
#include <stddef.h>
#include <stdint.h>
#include <perfsink/pprof_model.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The processes a recording shows and what each had mapped, from its
 * MMAP/MMAP2, COMM, FORK and EXIT records, as perf's machine/thread code
 * keeps them: a new map replaces the part of older ones it overlaps, a
 * forked process starts with its parent's maps, exec (COMM with COMM_EXEC)
 * clears them.  Kernel maps live in one process of their own.  Only
 * executable maps are kept (the ones a code address can fall in).  Each
 * mapped file is a DSO: one per file name and build-id, shared by every
 * process, kept for the table's life; what its symbols cost to read is a
 * cache its user may bound (pp_symbols_trim).
 */

#define PP_KERNEL_PID 0xffffffffu

struct pp_dso {
	char *name;           /* as the MMAP record names it */
	char bid[41];         /* hex build-id, "" when none is known */
	void *sym;            /* the symbol reader's state (pp_symbols.c), NULL until used */
	int sym_tried;
	uint64_t sym_used;    /* when its symbols were last asked for (pp_symbols' clock) */
	size_t sym_bytes;     /* what sym counts (pp_symbols_stats), 0 without one */
};

struct pp_map {
	uint64_t start, end, pgoff;
	uint32_t dso;
	uint32_t tag;         /* the user's (the sink: which window mapping_id is of) */
	int64_t mapping_id;   /* the profile's Mapping, 0 until made */
};

struct pp_proc {
	uint32_t pid;
	char comm[32];
	struct pp_map *m;     /* sorted by start, not overlapping */
	size_t n, cap;
	uint32_t gen;         /* changes whenever m does (for caches built on it) */
	int exited;           /* EXIT seen: dropped by pp_procs_reap */
	void *unwind;         /* the unwinder's state (pp_unwind.c), NULL until used */
	uint64_t unwind_used; /* when it last unwound (pp_procs.unwinders' clock) */
};

/* The processes' unwinders (pp_unwind.c): how many there are and what
 * became of them, for a user that bounds them (pp_procs_trim_unwinders). */
struct pp_unwind_stats {
	uint64_t clock;       /* one tick per unwind: the LRU order */
	uint32_t held;        /* processes with an unwinder now */
	uint64_t made;        /* unwinders made (again after a map change or an eviction) */
	uint64_t evictions;   /* dropped by pp_procs_trim_unwinders */
};

/* The build-id (hex) a recording names for file, or NULL: perf.data's
 * HEADER_BUILD_ID for the verb, the file's ELF note for the sink.  Called
 * for an MMAP without one of its own. */
typedef const char *(*pp_buildid_fn)(void *arg, const char *file, int kernel);

struct pp_procs {
	struct pp_intern pids, dso_keys;
	struct pp_intern tids;        /* threads a COMM named apart from their process */
	char (*tcomm)[32];            /* their names, by tids index */
	uint32_t cap_tcomm;
	struct pp_proc *proc;
	struct pp_dso *dso;
	uint32_t cap_proc, cap_dso;
	uint32_t nexited;             /* processes waiting for pp_procs_reap */
	size_t map_bytes;             /* the processes' map arrays */
	struct pp_unwind_stats unwinders;
	void (*free_unwind)(void *);  /* frees pp_proc.unwind */
	void (*free_sym)(void *);     /* frees pp_dso.sym */
	pp_buildid_fn buildid;        /* may be NULL */
	void *buildid_arg;
};

void pp_procs_init(struct pp_procs *ps);
void pp_procs_free(struct pp_procs *ps);
/* Forget the processes (another recording's pids are other tasks); the
 * DSOs and what their symbols cost to read stay. */
void pp_procs_forget(struct pp_procs *ps);
/* Take a record if it is MMAP, MMAP2, COMM, FORK or EXIT.  An EXIT only
 * marks its process: later records (of other CPUs) may still name it until
 * the caller calls pp_procs_reap.  0 or -ENOMEM. */
int pp_procs_record(struct pp_procs *ps, const uint8_t *r, uint16_t size);
/* Drop the processes that exited (their maps, unwinder and threads'
 * names), so a long run holds only live ones.  Pointers to pp_proc are
 * stale after it.  0 or -ENOMEM (nothing dropped then). */
int pp_procs_reap(struct pp_procs *ps);
/* Drop the unwinders (pp_unwind.c) of the processes that unwound least
 * recently until at most max are held; one is made again when its
 * process is next unwound.  Each holds a Dwfl with every file its process
 * maps open (a descriptor and a mapping each) and the CFI read from them.
 * How many were dropped. */
unsigned pp_procs_trim_unwinders(struct pp_procs *ps, uint32_t max);
/* Process pid (PP_KERNEL_PID: the kernel's maps), made when missing; NULL: no memory. */
struct pp_proc *pp_procs_get(struct pp_procs *ps, uint32_t pid);
/* The name of thread tid of p, as perf shows it: its own COMM, else its process's. */
const char *pp_procs_comm(const struct pp_procs *ps, const struct pp_proc *p, uint32_t tid);
/* The map of p holding addr, or NULL. */
struct pp_map *pp_proc_find(struct pp_proc *p, uint64_t addr);
/* Add a map to p (what MMAP does); 0 or -ENOMEM. */
int pp_proc_map(struct pp_proc *p, const struct pp_map *m);
/* Bytes the table holds (processes, maps, DSO names), about. */
size_t pp_procs_bytes(const struct pp_procs *ps);

/*
 * Names for code addresses.  A DSO's file is looked up in perf's build-id
 * cache (~/.debug, what `perfsink record` and `fetch` fill) by its
 * build-id first, then at its recorded path when its build-id matches (or
 * none is known); its symbols come from the ELF symtab/dynsym and its lines
 * from DWARF, both through elfutils (libdwfl).  Kernel addresses are named
 * from the recording's shipped kallsyms (CACHE/[kernel.kallsyms]/ID/),
 * else /proc/kallsyms.  A [vdso] without a build-id (pipe streams carry
 * none) is this kernel's own, as perf report takes it.  Nothing found:
 * name NULL (the caller says "[unknown]").  Names are as the file has them
 * (pp_demangle demangles).
 */

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
/* The file of d, opened when first asked (pp_unwind.c reports the same
 * file); NULL when none was found. */
const char *pp_symbols_open(struct pp_symbols *sy, struct pp_dso *d);

/*
 * The files' symbol state is a cache (pp_symcache.c): read when a file is
 * first asked for, kept until pp_symbols_trim drops the least recently
 * used files (the sink does at a window's end, down to symbol_cache_max);
 * a file dropped is read again when next asked.  Counted per file: the
 * sorted function table, the symbol entries and names it was built from
 * (libelf maps them from the file, resident once read), the load headers
 * and the path.  Not counted: the rest of the file's mapping (file-backed
 * pages), the DWARF state libdw builds for line lookups, separate debug
 * files, libdwfl's module records, kallsyms (one table) and the
 * processes' unwinders (pp_unwind.c).
 */

struct pp_symbols_stats {
	size_t bytes;        /* held now, as counted above */
	uint32_t files;      /* files held now */
	uint64_t reads;      /* files read (again after an eviction) */
	uint64_t evictions;  /* files dropped by pp_symbols_trim */
};

void pp_symbols_stats(const struct pp_symbols *sy, struct pp_symbols_stats *out);
/* Drop the symbol state of ps's least recently used files until sy holds
 * at most max bytes (ps->free_sym frees it).  A name pp_symbols_user gave
 * is invalid after (pp_name_location copies it into the profile at once).
 * How many files were dropped. */
unsigned pp_symbols_trim(struct pp_symbols *sy, struct pp_procs *ps, size_t max);

/*
 * C++ symbol names as perf report shows them: demangled (libstdc++'s
 * __cxa_demangle, found by configure), without the parameter list, the
 * qualifiers after it or a template function's return type
 * ("_ZNK2ns1K5cspinEi" -> "ns::K::cspin", "_ZN2ns5tspinIlEET_S1_" ->
 * "ns::tspin<long>").  Pure but for the demangler's malloc.
 */

/* name demangled into out (n bytes); 0, or -1 when name is not a mangled
 * C++ name (or no demangler was built in): use it as it is. */
int pp_demangle(const char *name, char *out, size_t n);
/* Cut a full demangled name (with parameters) as perf shows it, in place. */
void pp_demangle_simplify(char *s);

/*
 * DWARF call graphs (--call-graph dwarf: PERF_SAMPLE_REGS_USER and
 * STACK_USER): the user stack is unwound from the sample's registers and
 * its stack copy with elfutils' libdwfl, as perf's unwind-libdw.c does,
 * reading CFI (.eh_frame, .debug_frame) from each mapped file as
 * pp_symbols finds it.  Unlike perf, the Dwfl of a process is kept across
 * its samples and made again only when its maps change.  x86-64 only.
 */

/* Unwind s of process p into pcs[0..max): the sample's pc first, then the
 * return addresses.  How many were found (0: none, not even the first). */
unsigned pp_unwind(struct pp_procs *ps, struct pp_proc *p, struct pp_symbols *sy, const struct pp_sample *s,
		   uint64_t *pcs, unsigned max);
/* Whether this build can unwind DWARF stacks (x86-64). */
int pp_unwind_supported(void);
/* Free a process's unwinder state (pp_procs.free_unwind). */
void pp_unwind_free(void *state);

/*
 * A sample's frames and a location's name, as both users build them.
 */

#define PP_UNKNOWN "[unknown]"

struct pp_frame {
	uint64_t addr;
	int kernel;
};

/* The frames of s in process p, leaf first, into f[0..max): the recorded
 * chain (PERF_CONTEXT_* marks skipped), with the user part unwound from
 * the DWARF stack when there is one (pcs: max scratch entries).  *dwarf:
 * 1 when s had a DWARF stack, 2 when it unwound past its leaf.  At least
 * one frame (the ip). */
unsigned pp_frames(struct pp_procs *ps, struct pp_proc *p, struct pp_symbols *sy, const struct pp_sample *s,
		   struct pp_frame *f, uint64_t *pcs, unsigned max, int *dwarf);

/* What names a location: the kernel, or a DSO and the map it was met in. */
struct pp_pending {
	uint64_t loc, addr;
	uint64_t start, pgoff;  /* its map (user) */
	uint32_t dso;           /* user: the DSO index */
	uint8_t kind;           /* PP_NAME_* */
	uint8_t caller;         /* a return address: named one byte back */
};

enum { PP_NAME_NONE, PP_NAME_KERNEL, PP_NAME_USER };

/* What names location loc, made for frame f (the i-th of its stack: after
 * the first a return address) found in map m (NULL: in none). */
struct pp_pending pp_pending_of(uint64_t loc, const struct pp_frame *f, const struct pp_map *m, unsigned i);

/* Give location e->loc of prof its function (demangled name, system name,
 * file) and line, "[unknown]" when nothing names it; its mapping gets its
 * DSO's build-id when it had none.  kernel_bid: hex or "".  0 or -ENOMEM. */
int pp_name_location(struct pp_profile *prof, struct pp_procs *ps, struct pp_symbols *sy,
		     const char *kernel_bid, const struct pp_pending *e);

#ifdef __cplusplus
}
#endif
#endif /* PERFSINK_PPROF_SYMBOLS_H */
