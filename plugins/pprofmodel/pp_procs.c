/* Processes and their maps; see <perfsink/pprof_symbols.h>. */
#include <perfsink/pprof_symbols.h>
#include "pp_lru.h"
#include "pp_search.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MISC_MMAP_BUILD_ID (1u << 14)
#define MISC_MMAP_DATA (1u << 13)
#define MISC_COMM_EXEC (1u << 13)

static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

void pp_procs_init(struct pp_procs *ps)
{
	memset(ps, 0, sizeof(*ps));
	pp_intern_init(&ps->pids);
	pp_intern_init(&ps->tids);
	pp_intern_init(&ps->dso_keys);
}

/* Free p's unwinder, if it has one. */
static void drop_unwind(struct pp_procs *ps, struct pp_proc *p)
{
	if (!p->unwind || !ps->free_unwind)
		return;
	ps->free_unwind(p->unwind);
	p->unwind = NULL;
	ps->unwinders.held--;
}

unsigned pp_procs_trim_unwinders(struct pp_procs *ps, uint32_t max)
{
	uint32_t n;
	if (ps->unwinders.held <= max || !ps->free_unwind)
		return 0;
	uint32_t *idx = pp_lru_order(ps->proc, ps->pids.n, sizeof(*ps->proc), offsetof(struct pp_proc, unwind),
				     offsetof(struct pp_proc, unwind_used), &n);
	unsigned dropped = 0;
	for (uint32_t i = 0; i < n && ps->unwinders.held > max; i++, dropped++) {
		drop_unwind(ps, &ps->proc[idx[i]]);
		ps->unwinders.evictions++;
	}
	free(idx);   /* NULL (no memory to sort): the next window's end tries again */
	return dropped;
}

void pp_procs_forget(struct pp_procs *ps)
{
	for (uint32_t i = 0; i < ps->pids.n; i++) {
		drop_unwind(ps, &ps->proc[i]);
		free(ps->proc[i].m);
	}
	pp_intern_free(&ps->pids);
	pp_intern_init(&ps->pids);
	pp_intern_free(&ps->tids);
	pp_intern_init(&ps->tids);
	ps->nexited = 0;
	ps->map_bytes = 0;
}

void pp_procs_free(struct pp_procs *ps)
{
	pp_procs_forget(ps);
	for (uint32_t i = 0; i < ps->dso_keys.n; i++) {
		if (ps->dso[i].sym && ps->free_sym)
			ps->free_sym(ps->dso[i].sym);
		free(ps->dso[i].name);
	}
	pp_intern_free(&ps->pids);
	pp_intern_free(&ps->tids);
	pp_intern_free(&ps->dso_keys);
	free(ps->tcomm);
	free(ps->proc);
	free(ps->dso);
}

static int grow(void *arr, uint32_t n, uint32_t *cap, size_t sz)
{
	void **a = arr;
	if (n < *cap)
		return 0;
	uint32_t c = *cap ? *cap * 2 : 64;
	void *q = realloc(*a, c * sz);
	if (!q)
		return -ENOMEM;
	*a = q;
	*cap = c;
	return 0;
}

struct pp_proc *pp_procs_get(struct pp_procs *ps, uint32_t pid)
{
	int added;
	int64_t i = pp_intern(&ps->pids, &pid, sizeof(pid), &added);
	if (i < 0 || (added && grow(&ps->proc, (uint32_t)i, &ps->cap_proc, sizeof(*ps->proc))))
		return NULL;
	if (added) {
		memset(&ps->proc[i], 0, sizeof(ps->proc[i]));
		ps->proc[i].pid = pid;
		/* perf's names for a task no COMM named. */
		snprintf(ps->proc[i].comm, sizeof(ps->proc[i].comm),
			 pid == PP_KERNEL_PID ? "[kernel]" : pid ? ":%u" : "swapper", pid);
	}
	return &ps->proc[i];
}

/* The DSO of name and build-id hex (maybe ""); its index or -ENOMEM. */
static int64_t dso_of(struct pp_procs *ps, const char *name, size_t n, const char *hex)
{
	char key[4096 + 48];
	int added;
	if (n > 4096)
		n = 4096;
	int k = snprintf(key, sizeof(key), "%.*s%c%s", (int)n, name, 0, hex);
	int64_t i = pp_intern(&ps->dso_keys, key, (size_t)k, &added);
	if (i < 0 || !added)
		return i;
	if (grow(&ps->dso, (uint32_t)i, &ps->cap_dso, sizeof(*ps->dso)))
		return -ENOMEM;
	struct pp_dso *d = &ps->dso[i];
	memset(d, 0, sizeof(*d));
	snprintf(d->bid, sizeof(d->bid), "%s", hex);
	return (d->name = strndup(name, n)) ? i : -ENOMEM;
}

struct pp_map *pp_proc_find(struct pp_proc *p, uint64_t addr)
{
	/* The maps do not overlap: the last one starting at or before addr. */
	size_t i = pp_upper(p->m, p->n, sizeof(*p->m), offsetof(struct pp_map, start), addr);
	return i && addr < p->m[i - 1].end ? &p->m[i - 1] : NULL;
}

int pp_proc_map(struct pp_proc *p, const struct pp_map *m)
{
	/* At most two more entries: m, and the tail of one it splits. */
	if (p->n + 2 > p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct pp_map *q = realloc(p->m, cap * sizeof(*q));
		if (!q)
			return -ENOMEM;
		p->m = q;
		p->cap = cap;
	}
	size_t w = 0, at = SIZE_MAX, n = p->n;
	struct pp_map tail = { 0 };
	int has_tail = 0;
	for (size_t i = 0; i < n; i++) {
		struct pp_map e = p->m[i];
		if (e.end <= m->start || e.start >= m->end) {
			p->m[w++] = e;
			continue;
		}
		if (e.end > m->end) { /* the part after m lives on */
			tail = e;
			tail.pgoff += m->end - e.start;
			tail.start = m->end;
			tail.mapping_id = 0;
			has_tail = 1;
		}
		if (e.start < m->start) { /* so does the part before */
			e.end = m->start;
			e.mapping_id = 0;
			p->m[w++] = e;
		}
	}
	for (at = 0; at < w && p->m[at].start < m->start; at++)
		;
	memmove(p->m + at + 1 + has_tail, p->m + at, (w - at) * sizeof(*p->m));
	p->m[at] = *m;
	if (has_tail)
		p->m[at + 1] = tail;
	p->n = w + 1 + has_tail;
	p->gen++;
	return 0;
}

static int take_mmap(struct pp_procs *ps, const uint8_t *r, uint16_t size, int two)
{
	uint16_t misc;
	memcpy(&misc, r + 4, 2);
	size_t fo = two ? 8 + 64 : 8 + 32; /* the file name's offset */
	if (size <= fo || (misc & MISC_MMAP_DATA) || (two && !(rd32(r + 8 + 56) & 0x4 /* PROT_EXEC */)))
		return 0;
	unsigned mode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	int kernel = mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL;
	const char *name = (const char *)r + fo;
	size_t nlen = strnlen(name, size - fo);
	char hex[41] = "";
	if (two && (misc & MISC_MMAP_BUILD_ID) && r[8 + 32] <= 20) {
		for (unsigned i = 0; i < r[8 + 32]; i++)
			snprintf(hex + 2 * i, 3, "%02x", r[8 + 36 + i]);
	} else if (ps->buildid) {
		char nm[4097];
		snprintf(nm, sizeof(nm), "%.*s", (int)nlen, name);
		const char *b = ps->buildid(ps->buildid_arg, nm, kernel);
		snprintf(hex, sizeof(hex), "%s", b ? b : "");
	}
	int64_t d = dso_of(ps, name, nlen, hex);
	struct pp_proc *p = d >= 0 ? pp_procs_get(ps, kernel ? PP_KERNEL_PID : rd32(r + 8)) : NULL;
	uint64_t start = rd64(r + 16), len = rd64(r + 24);
	if (!p)
		return -ENOMEM;
	struct pp_map m = { start, start + len < start ? UINT64_MAX : start + len, rd64(r + 32), (uint32_t)d, 0, 0 };
	size_t cap = p->cap;
	int rc = pp_proc_map(p, &m);
	ps->map_bytes += (p->cap - cap) * sizeof(*p->m);
	return rc;
}

static int take_fork(struct pp_procs *ps, const uint8_t *r, uint16_t size)
{
	if (size < 8 + 16 || rd32(r + 8) == rd32(r + 12))
		return 0; /* a new thread shares its process's maps */
	struct pp_proc *parent = pp_procs_get(ps, rd32(r + 12));
	uint32_t ppid_idx = parent ? (uint32_t)(parent - ps->proc) : 0;
	struct pp_proc *child = parent ? pp_procs_get(ps, rd32(r + 8)) : NULL;
	if (!child)
		return -ENOMEM;
	parent = &ps->proc[ppid_idx]; /* pp_procs_get may have moved the array */
	struct pp_map *m = parent->n ? malloc(parent->n * sizeof(*m)) : NULL;
	if (parent->n && !m)
		return -ENOMEM;
	if (m)
		memcpy(m, parent->m, parent->n * sizeof(*m));
	ps->map_bytes += (parent->n - child->cap) * sizeof(*m);
	free(child->m);
	child->m = m;
	child->n = child->cap = parent->n;
	child->gen++;
	if (child->exited) { /* its pid was taken again before the reap */
		child->exited = 0;
		ps->nexited--;
	}
	memcpy(child->comm, parent->comm, sizeof(child->comm));
	return 0;
}

static int take_comm(struct pp_procs *ps, const uint8_t *r, uint16_t size)
{
	uint16_t misc;
	memcpy(&misc, r + 4, 2);
	if (size < 8 + 8 + 1)
		return 0;
	struct pp_proc *p = pp_procs_get(ps, rd32(r + 8));
	if (!p)
		return -ENOMEM;
	if (misc & MISC_COMM_EXEC) {
		p->n = 0;
		p->gen++;
	}
	uint32_t tid = rd32(r + 12);
	if (misc & MISC_COMM_EXEC || rd32(r + 8) == tid) {
		snprintf(p->comm, sizeof(p->comm), "%.*s", (int)(size - 16u), (const char *)r + 16);
		return 0;
	}
	int added;
	int64_t i = pp_intern(&ps->tids, &tid, sizeof(tid), &added);
	if (i < 0 || grow(&ps->tcomm, (uint32_t)i, &ps->cap_tcomm, sizeof(*ps->tcomm)))
		return -ENOMEM;
	snprintf(ps->tcomm[i], sizeof(ps->tcomm[i]), "%.*s", (int)(size - 16u), (const char *)r + 16);
	return 0;
}

const char *pp_procs_comm(const struct pp_procs *ps, const struct pp_proc *p, uint32_t tid)
{
	int64_t i = tid == p->pid ? -1 : pp_intern_find(&ps->tids, &tid, sizeof(tid));
	return i < 0 || !ps->tcomm[i][0] ? p->comm : ps->tcomm[i];
}

/* A process's EXIT marks it for pp_procs_reap; a thread's forgets its name. */
static int take_exit(struct pp_procs *ps, const uint8_t *r, uint16_t size)
{
	if (size < 8 + 16)
		return 0;
	uint32_t pid = rd32(r + 8), tid = rd32(r + 16);
	if (pid != tid) {
		int64_t i = pp_intern_find(&ps->tids, &tid, sizeof(tid));
		if (i >= 0)
			ps->tcomm[i][0] = 0; /* empty: dropped by the reap */
		return 0;
	}
	int64_t i = pp_intern_find(&ps->pids, &pid, sizeof(pid));
	if (i >= 0 && !ps->proc[i].exited) {
		ps->proc[i].exited = 1;
		ps->nexited++;
	}
	return 0;
}

int pp_procs_record(struct pp_procs *ps, const uint8_t *r, uint16_t size)
{
	switch (rd32(r)) {
	case PERF_RECORD_MMAP: return take_mmap(ps, r, size, 0);
	case PERF_RECORD_MMAP2: return take_mmap(ps, r, size, 1);
	case PERF_RECORD_FORK: return take_fork(ps, r, size);
	case PERF_RECORD_COMM: return take_comm(ps, r, size);
	case PERF_RECORD_EXIT: return take_exit(ps, r, size);
	default: return 0;
	}
}

/* The threads' names still wanted, in a new table; 0 or -ENOMEM. */
static int reap_tids(struct pp_procs *ps)
{
	struct pp_intern t;
	char (*c)[32] = ps->tids.n ? malloc(ps->tids.n * sizeof(*c)) : NULL;
	uint32_t n = 0;
	pp_intern_init(&t);
	if (ps->tids.n && !c)
		return -ENOMEM;
	for (uint32_t i = 0; i < ps->tids.n; i++) {
		size_t len;
		const void *k = pp_intern_key(&ps->tids, i, &len);
		int added;
		if (!ps->tcomm[i][0])
			continue;
		if (pp_intern(&t, k, len, &added) < 0) {
			pp_intern_free(&t);
			free(c);
			return -ENOMEM;
		}
		memcpy(c[n++], ps->tcomm[i], sizeof(*c));
	}
	pp_intern_free(&ps->tids);
	free(ps->tcomm);
	ps->tids = t;
	ps->tcomm = c;
	ps->cap_tcomm = n;
	return 0;
}

int pp_procs_reap(struct pp_procs *ps)
{
	if (!ps->nexited)
		return 0;
	struct pp_intern t;
	uint32_t n = 0, live = ps->pids.n - ps->nexited;
	struct pp_proc *v = malloc((live ? live : 1) * sizeof(*v));
	pp_intern_init(&t);
	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < ps->pids.n; i++) {
		struct pp_proc *p = &ps->proc[i];
		int added;
		if (!p->exited && pp_intern(&t, &p->pid, sizeof(p->pid), &added) < 0) {
			pp_intern_free(&t);
			free(v);
			return -ENOMEM;
		}
		if (!p->exited) {
			v[n++] = *p;
			continue;
		}
		drop_unwind(ps, p);
		ps->map_bytes -= p->cap * sizeof(*p->m);
		free(p->m);
	}
	pp_intern_free(&ps->pids);
	free(ps->proc);
	ps->pids = t;
	ps->proc = v;
	ps->cap_proc = live ? live : 1;
	ps->nexited = 0;
	return reap_tids(ps);
}

size_t pp_procs_bytes(const struct pp_procs *ps)
{
	return ps->map_bytes + (size_t)ps->cap_proc * sizeof(*ps->proc) +
	       (size_t)ps->cap_tcomm * sizeof(*ps->tcomm) + (size_t)ps->cap_dso * sizeof(*ps->dso) +
	       ps->pids.arena.cap + ps->tids.arena.cap + ps->dso_keys.arena.cap +
	       ((size_t)ps->pids.nslot + ps->tids.nslot + ps->dso_keys.nslot) * sizeof(uint32_t);
}
