/* Processes' mappings for the pprof sink; see maps.h. */
#include "maps.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <perfsink/kit.h>

struct maps_proc {
	int32_t pid;          /* 0: empty slot (pid 0, the idle task, maps nothing) */
	uint32_t n, cap;
	struct map_ent *v;    /* sorted by start, not overlapping */
};

#define FILE_MAX (1ull << 31) /* a larger "ELF" is not read for its build-id */

void maps_init(struct maps *m) { memset(m, 0, sizeof(*m)); }

void maps_free(struct maps *m)
{
	for (uint32_t i = 0; i < m->cap; i++)
		free(m->procs[i].v);
	for (uint32_t i = 0; i < m->nfiles; i++)
		free(m->files[i].path);
	free(m->procs);
	free(m->files);
	memset(m, 0, sizeof(*m));
}

/* pid 0 is stored as INT32_MIN so that 0 marks an empty slot. */
static int32_t key(int32_t pid) { return pid ? pid : INT32_MIN; }

static struct maps_proc *slot(const struct maps *m, int32_t pid)
{
	uint32_t mask = m->cap - 1, h = ((uint32_t)key(pid) * 2654435761u) & mask;
	while (m->procs[h].pid && m->procs[h].pid != key(pid))
		h = (h + 1) & mask;
	return &m->procs[h];
}

static int grow_procs(struct maps *m)
{
	struct maps old = *m;
	uint32_t cap = m->cap ? m->cap * 2 : 256;
	m->procs = calloc(cap, sizeof(*m->procs));
	if (!m->procs) {
		m->procs = old.procs;
		return -ENOMEM;
	}
	m->cap = cap;
	for (uint32_t i = 0; i < old.cap; i++)
		if (old.procs[i].pid)
			*slot(m, old.procs[i].pid == INT32_MIN ? 0 : old.procs[i].pid) = old.procs[i];
	free(old.procs);
	m->bytes += (size_t)(cap - old.cap) * sizeof(*m->procs);
	return 0;
}

/* The process pid, made (empty) when new; NULL when out of memory. */
static struct maps_proc *proc(struct maps *m, int32_t pid, int make)
{
	if (!m->cap) {
		if (!make || grow_procs(m))
			return NULL;
	}
	struct maps_proc *p = slot(m, pid);
	if (p->pid || !make)
		return p->pid ? p : NULL;
	if (2 * (m->nprocs + 1) > m->cap) {
		if (grow_procs(m))
			return NULL;
		p = slot(m, pid);
	}
	p->pid = key(pid);
	m->nprocs++;
	return p;
}

/* The index of path in the file table, added when new (a linear scan of a
 * hash would be faster; the table holds the distinct files mapped, few). */
static int64_t file_of(struct maps *m, const char *path, const uint8_t *bid, size_t bidlen)
{
	for (uint32_t i = m->nfiles; i-- > 0;)
		if (!strcmp(m->files[i].path, path)) {
			if (bid && bidlen && !m->files[i].build_id[0]) {
				perfsink_kit_build_id_hex(bid, bidlen, m->files[i].build_id);
				m->files[i].looked = 1;
			}
			return i;
		}
	if (m->nfiles == m->cap_files) {
		uint32_t c = m->cap_files ? m->cap_files * 2 : 64;
		struct map_file *f = realloc(m->files, c * sizeof(*f));
		if (!f)
			return -ENOMEM;
		m->files = f;
		m->cap_files = c;
	}
	struct map_file *f = &m->files[m->nfiles];
	memset(f, 0, sizeof(*f));
	if (!(f->path = strdup(path)))
		return -ENOMEM;
	if (bid && bidlen) {
		perfsink_kit_build_id_hex(bid, bidlen, f->build_id);
		f->looked = 1;
	}
	m->bytes += sizeof(*f) + strlen(path) + 1;
	return m->nfiles++;
}

static int room(struct maps *m, struct maps_proc *p, uint32_t more)
{
	if (p->n + more <= p->cap)
		return 0;
	uint32_t c = p->cap ? p->cap : 16;
	while (c < p->n + more)
		c *= 2;
	struct map_ent *v = realloc(p->v, c * sizeof(*v));
	if (!v)
		return -ENOMEM;
	m->bytes += (size_t)(c - p->cap) * sizeof(*v);
	p->v = v;
	p->cap = c;
	return 0;
}

/* Insert e into p, trimming or splitting what it overlaps (as perf does). */
static int insert(struct maps *m, struct maps_proc *p, struct map_ent e)
{
	if (room(m, p, 2))
		return -ENOMEM;
	uint32_t w = 0, n = p->n;
	struct map_ent right = { 0 };
	int have_right = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct map_ent x = p->v[i];
		if (x.end <= e.start || x.start >= e.end) {
			p->v[w++] = x;
			continue;
		}
		if (x.end > e.end) {     /* the part after e */
			right = x;
			right.pgoff += e.end - x.start;
			right.start = e.end;
			right.window = 0;
			have_right = 1;
		}
		if (x.start < e.start) { /* the part before e */
			x.end = e.start;
			x.window = 0;
			p->v[w++] = x;
		}
	}
	p->n = w;
	uint32_t at = 0;
	while (at < p->n && p->v[at].start < e.start)
		at++;
	memmove(p->v + at + 1 + have_right, p->v + at, (p->n - at) * sizeof(*p->v));
	p->v[at] = e;
	if (have_right)
		p->v[at + 1] = right;
	p->n += 1 + have_right;
	return 0;
}

int maps_mmap(struct maps *m, int32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
	      const char *path, const uint8_t *bid, size_t bidlen)
{
	if (!len || start + len < start)
		return 0;
	if (bidlen > PERFSINK_KIT_BUILD_ID_MAX)
		bid = NULL;
	struct maps_proc *p = proc(m, pid, 1);
	int64_t f = p ? file_of(m, path, bid, bidlen) : -ENOMEM;
	if (f < 0)
		return (int)f;
	p = proc(m, pid, 1); /* file_of may not move procs, but be plain about it */
	return insert(m, p, (struct map_ent){ start, start + len, pgoff, (uint32_t)f, 0, 0 });
}

int maps_fork(struct maps *m, int32_t ppid, int32_t pid)
{
	if (ppid == pid)
		return 0;   /* a thread: the same maps */
	struct maps_proc *parent = proc(m, ppid, 0);
	maps_forget(m, pid);
	if (!parent || !parent->n)
		return 0;
	uint32_t n = parent->n;
	struct map_ent *copy = malloc(n * sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, parent->v, n * sizeof(*copy));
	struct maps_proc *c = proc(m, pid, 1);
	if (!c) {
		free(copy);
		return -ENOMEM;
	}
	c->v = copy;
	c->n = c->cap = n;
	m->bytes += n * sizeof(*copy);
	return 0;
}

void maps_forget(struct maps *m, int32_t pid)
{
	struct maps_proc *p = m->cap ? proc(m, pid, 0) : NULL;
	if (!p)
		return;
	m->bytes -= p->cap * sizeof(*p->v);
	free(p->v);
	p->v = NULL;
	p->n = p->cap = 0;  /* the slot stays (open addressing keeps its chain) */
}

struct map_ent *maps_find(struct maps *m, int32_t pid, uint64_t addr)
{
	struct maps_proc *p = m->cap ? proc(m, pid, 0) : NULL;
	if (!p)
		return NULL;
	uint32_t lo = 0, hi = p->n;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (p->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->n && p->v[lo].start <= addr ? &p->v[lo] : NULL;
}

/* Read path's ELF build-id into f (hex); nothing when it has none. */
static void read_build_id(struct map_file *f)
{
	f->looked = 1;
	if (f->path[0] != '/')
		return;   /* [vdso], //anon, [kernel.kallsyms]_text ... */
	int fd = perfsink_kit_input_open(AT_FDCWD, f->path, "read the build-id of", NULL, 0);
	if (fd < 0)
		return;
	struct stat st;
	if (!fstat(fd, &st) && st.st_size > 64 && (uint64_t)st.st_size < FILE_MAX) {
		void *img = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		uint8_t id[PERFSINK_KIT_BUILD_ID_MAX];
		size_t n;
		if (img != MAP_FAILED) {
			if (!perfsink_kit_elf_build_id(img, st.st_size, id, &n))
				perfsink_kit_build_id_hex(id, n, f->build_id);
			munmap(img, st.st_size);
		}
	}
	close(fd);
}

const struct map_file *maps_file(struct maps *m, uint32_t i)
{
	struct map_file *f = &m->files[i];
	if (!f->looked)
		read_build_id(f);
	return f;
}
