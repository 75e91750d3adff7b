/* Names for code addresses; see <perfsink/pprof_symbols.h>. */
#include <perfsink/pprof_symbols.h>
#include "pp_search.h"
#include "pp_symcache.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <link.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct ksym {
	uint64_t addr;
	size_t name;   /* offset in names */
};

struct pp_symbols {
	char cache[4096];
	struct ksym *k;
	size_t nk;
	char *names;
	int k_loaded;
	struct pp_symcache files;   /* what the DSOs' states hold */
};

/* A function symbol, at its module address. */
struct fsym {
	GElf_Addr addr, size;
	const char *name;  /* libdwfl's, valid while the Dwfl lives */
	unsigned char bind;
};

/* What a DSO's file gave. */
struct dso_sym {
	char *path;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Addr bias;
	GElf_Phdr *load;   /* its PT_LOAD headers */
	size_t nload;
	struct fsym *fs;   /* sorted by addr, one per address */
	size_t nfs;
	size_t read;       /* the symbol entries and names read to build fs */
};

static const Dwfl_Callbacks offline_cb = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

int pp_symbols_new(struct pp_symbols **out, const char *cache_dir)
{
	struct pp_symbols *sy = calloc(1, sizeof(*sy));
	if (!sy)
		return -ENOMEM;
	snprintf(sy->cache, sizeof(sy->cache), "%s", cache_dir);
	*out = sy;
	return 0;
}

void pp_symbols_free(struct pp_symbols *sy)
{
	if (!sy)
		return;
	free(sy->k);
	free(sy->names);
	free(sy);
}

void pp_symbols_dso_free(void *state)
{
	struct dso_sym *s = state;
	if (s->dwfl)
		dwfl_end(s->dwfl);
	free(s->load);
	free(s->fs);
	free(s->path);
	free(s);
}

static int is_file(const char *p)
{
	struct stat st;
	return !stat(p, &st) && S_ISREG(st.st_mode);
}

/* The build-id hex of mod, or "". */
static void mod_bid(Dwfl_Module *mod, char hex[41])
{
	const unsigned char *bits;
	GElf_Addr va;
	int n = dwfl_module_build_id(mod, &bits, &va);
	hex[0] = 0;
	for (int i = 0; i < n && i < 20; i++)
		snprintf(hex + 2 * i, 3, "%02x", bits[i]);
}

/* Report the file open on fd (named path) alone in a Dwfl of s; whether it
 * is the file (build-id) d names.  fd is closed either way. */
static int try_fd(struct dso_sym *s, const struct pp_dso *d, const char *path, int fd)
{
	char hex[41];
	Dwfl *dwfl = fd >= 0 ? dwfl_begin(&offline_cb) : NULL;
	Dwfl_Module *mod = dwfl ? dwfl_report_elf(dwfl, d->name, path, fd, 0, true) : NULL;
	if (!mod && fd >= 0)
		close(fd); /* dwfl owns fd once a module has it */
	if (mod)
		dwfl_report_end(dwfl, NULL, NULL);
	if (mod)
		mod_bid(mod, hex);
	if (!mod || (d->bid[0] && strcmp(hex, d->bid))) {
		if (dwfl)
			dwfl_end(dwfl);
		return 0;
	}
	s->dwfl = dwfl;
	s->mod = mod;
	return (s->path = strdup(path)) != NULL;
}

static int try_path(struct dso_sym *s, const struct pp_dso *d, const char *path)
{
	return is_file(path) && try_fd(s, d, path, open(path, O_RDONLY | O_CLOEXEC));
}

/* The bytes of our own vDSO image: its program and section headers' extent. */
static size_t vdso_size(const ElfW(Ehdr) *eh)
{
	size_t n = (size_t)eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((const char *)eh + eh->e_phoff);
	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset + ph[i].p_filesz > n)
			n = ph[i].p_offset + ph[i].p_filesz;
	return n;
}

/* A [vdso] without a build-id (a pipe stream): this kernel's, the one
 * perfsink itself runs with, as perf report takes its own. */
static int try_own_vdso(struct dso_sym *s, const struct pp_dso *d)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)getauxval(AT_SYSINFO_EHDR);
	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return 0;
	size_t n = vdso_size(eh);
	int fd = n <= (1u << 20) ? memfd_create("vdso", MFD_CLOEXEC) : -1;
	if (fd >= 0 && write(fd, eh, n) != (ssize_t)n) {
		close(fd);
		fd = -1;
	}
	return try_fd(s, d, "[vdso]", fd);
}

/* Its PT_LOAD headers, to turn a file offset into an ELF address. */
static void load_phdrs(struct dso_sym *s)
{
	Elf *elf = dwfl_module_getelf(s->mod, &s->bias);
	size_t n;
	if (!elf || elf_getphdrnum(elf, &n) || !(s->load = calloc(n + 1, sizeof(*s->load))))
		return;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			s->load[s->nload++] = ph;
	}
	GElf_Phdr *fit = realloc(s->load, (s->nload + 1) * sizeof(*s->load));
	if (fit)   /* kept for the run: no slack */
		s->load = fit;
}

static int underscores(const char *n)
{
	int k = 0;
	while (n[k] == '_')
		k++;
	return k;
}

/* Of two symbols at one address, the one perf's choose_best_symbol keeps
 * first: sized, not weak, global, fewer leading underscores, longer name. */
static int fsym_cmp(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (!x->size != !y->size)
		return x->size ? -1 : 1;
	if ((x->bind == STB_WEAK) != (y->bind == STB_WEAK))
		return x->bind == STB_WEAK ? 1 : -1;
	if ((x->bind == STB_GLOBAL) != (y->bind == STB_GLOBAL))
		return x->bind == STB_GLOBAL ? -1 : 1;
	if (underscores(x->name) != underscores(y->name))
		return underscores(x->name) - underscores(y->name);
	size_t lx = strlen(x->name), ly = strlen(y->name);
	return lx == ly ? strcmp(x->name, y->name) : lx > ly ? -1 : 1;
}

/* The module's function symbols, sorted once: libdwfl's own lookup scans
 * the whole table on every call. */
static void load_symbols(struct dso_sym *s)
{
	int n = dwfl_module_getsymtab(s->mod);
	if (n <= 0 || !(s->fs = calloc((size_t)n, sizeof(*s->fs))))
		return;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(s->mod, i, &sym, &addr, &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);
		if (!name || !*name || sym.st_shndx == SHN_UNDEF || !addr ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		s->fs[s->nfs++] = (struct fsym){ addr, sym.st_size, name, GELF_ST_BIND(sym.st_info) };
		s->read += strlen(name) + 1;
	}
	s->read += (size_t)n * sizeof(Elf64_Sym);
	qsort(s->fs, s->nfs, sizeof(*s->fs), fsym_cmp);
	size_t w = 0;
	for (size_t i = 0; i < s->nfs; i++)
		if (!w || s->fs[w - 1].addr != s->fs[i].addr)
			s->fs[w++] = s->fs[i];
	s->nfs = w;
	struct fsym *fit = w ? realloc(s->fs, w * sizeof(*s->fs)) : NULL;
	if (fit)   /* kept for the run: no slack */
		s->fs = fit;
}

/* What s counts in the cache (see pp_symbols_stats). */
static size_t dso_bytes(const struct dso_sym *s)
{
	return sizeof(*s) + strlen(s->path) + 1 + (s->load ? (s->nload + 1) * sizeof(*s->load) : 0) +
	       s->nfs * sizeof(*s->fs) + s->read;
}

/* The function at module address a, or NULL: the last one starting at or
 * before a, when a is inside it (a symbol without a size reaches the next). */
static const char *fsym_find(const struct dso_sym *s, GElf_Addr a)
{
	size_t lo = pp_upper(s->fs, s->nfs, sizeof(*s->fs), offsetof(struct fsym, addr), a);
	if (!lo)
		return NULL;
	const struct fsym *f = &s->fs[lo - 1];
	return !f->size || a < f->addr + f->size ? f->name : NULL;
}

/* Find d's file: the build-id cache, then its own path. */
static struct dso_sym *dso_open(struct pp_symbols *sy, struct pp_dso *d)
{
	char p[8192];
	pp_symcache_touch(&sy->files, d);
	if (d->sym_tried)
		return d->sym;
	d->sym_tried = 1;
	struct dso_sym *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	int ok = 0;
	if (d->bid[0]) {
		static const char *const leaf[] = { "elf", "vdso", "debug" };
		for (unsigned i = 0; !ok && i < 3; i++) {
			snprintf(p, sizeof(p), "%s/.build-id/%.2s/%s/%s", sy->cache, d->bid, d->bid + 2, leaf[i]);
			ok = try_path(s, d, p);
		}
	}
	if (!ok && d->name[0] == '/')
		ok = try_path(s, d, d->name);
	if (!ok && !d->bid[0] && !strcmp(d->name, "[vdso]"))
		ok = try_own_vdso(s, d);
	if (!ok) {
		free(s);
		return NULL;
	}
	load_phdrs(s);
	load_symbols(s);
	d->sym = s;
	pp_symcache_add(&sy->files, d, dso_bytes(s));
	return s;
}

void pp_symbols_stats(const struct pp_symbols *sy, struct pp_symbols_stats *out)
{
	*out = sy->files.st;
}

unsigned pp_symbols_trim(struct pp_symbols *sy, struct pp_procs *ps, size_t max)
{
	return pp_symcache_trim(&sy->files, ps, max);
}

const char *pp_symbols_open(struct pp_symbols *sy, struct pp_dso *d)
{
	struct dso_sym *s = dso_open(sy, d);
	return s && s->path[0] != '[' ? s->path : NULL; /* [vdso]: in memory, no file to report */
}

const char *pp_symbols_path(const struct pp_dso *d)
{
	const struct dso_sym *s = d->sym;
	return s ? s->path : NULL;
}

/* The module address of file offset off, or 0 when no PT_LOAD holds it. */
static GElf_Addr file_to_mod(const struct dso_sym *s, uint64_t off)
{
	for (size_t i = 0; i < s->nload; i++) {
		const GElf_Phdr *ph = &s->load[i];
		if (off >= ph->p_offset && off < ph->p_offset + ph->p_filesz)
			return off - ph->p_offset + ph->p_vaddr + s->bias;
	}
	return 0;
}

void pp_symbols_user(struct pp_symbols *sy, struct pp_dso *d, const struct pp_map *m, uint64_t addr,
		     int caller, struct pp_sym *out)
{
	memset(out, 0, sizeof(*out));
	struct dso_sym *s = dso_open(sy, d);
	if (!s)
		return;
	GElf_Addr a = file_to_mod(s, addr - m->start + m->pgoff);
	if (!a)
		return;
	a -= caller && a > 0;
	out->name = fsym_find(s, a);
	Dwfl_Line *l = out->name ? dwfl_module_getsrc(s->mod, a) : NULL;
	if (l)
		out->file = dwfl_lineinfo(l, NULL, &out->line, NULL, NULL, NULL);
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Read a kallsyms file's text symbols, sorted. */
static void kallsyms_load(struct pp_symbols *sy, const char *path)
{
	FILE *f = fopen(path, "re");
	char line[1024], name[512], type;
	unsigned long long a;
	size_t cap = 0, ncap = 0, nlen = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %511s", &a, &type, name) != 3 || !a || !strchr("tTwW", type))
			continue;
		size_t l = strlen(name) + 1;
		if (sy->nk == cap || nlen + l > ncap) {
			cap = cap ? cap * 2 : 4096;
			ncap = ncap ? ncap * 2 : 1 << 20;
			struct ksym *k = realloc(sy->k, cap * sizeof(*k));
			char *nm = k ? realloc(sy->names, ncap) : NULL;
			if (k)
				sy->k = k;
			if (!nm)
				break;
			sy->names = nm;
		}
		memcpy(sy->names + nlen, name, l);
		sy->k[sy->nk++] = (struct ksym){ a, nlen };
		nlen += l;
	}
	fclose(f);
	if (sy->nk)
		qsort(sy->k, sy->nk, sizeof(*sy->k), ksym_cmp);
}

void pp_symbols_kernel(struct pp_symbols *sy, const char *kernel_bid, uint64_t addr, struct pp_sym *out)
{
	memset(out, 0, sizeof(*out));
	if (!sy->k_loaded) {
		char p[8192];
		sy->k_loaded = 1;
		snprintf(p, sizeof(p), "%s/[kernel.kallsyms]/%s/kallsyms", sy->cache, kernel_bid);
		if (kernel_bid[0])
			kallsyms_load(sy, p);
		if (!sy->nk)
			kallsyms_load(sy, "/proc/kallsyms");
	}
	size_t lo = pp_upper(sy->k, sy->nk, sizeof(*sy->k), offsetof(struct ksym, addr), addr);
	if (lo)
		out->name = sy->names + sy->k[lo - 1].name;
}
