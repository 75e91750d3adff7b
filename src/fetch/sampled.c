/* The DSOs samples fell in; see sampled.h. */
#include "fetch/sampled.h"
#include "fetch/rec_reader.h"
#include "format/events.h"
#include "format/record.h"
#include "format/sample_chain.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KERNEL_PID 0xffffffffu
#define KERNEL_NAME "[kernel.kallsyms]"
#define MISC_MMAP_BUILD_ID (1u << 14)
#define MISC_MMAP_DATA (1u << 13)
#define PARENT_DEPTH 16

struct map {
	uint64_t start, end;
	uint64_t time;      /* of its MMAP (0: synthesized, or records carry no time) */
	uint32_t name, bid; /* bid: a name index ("#HEX"), or UINT32_MAX */
};

struct proc {
	uint32_t pid;
	uint32_t parent;    /* KERNEL_PID: none */
	uint64_t fork_time; /* of its FORK from parent */
	struct map *m;
	uint64_t *maxend;   /* m sorted by start; maxend[i]: the largest end of m[0..i] */
	size_t n, cap;
	uint64_t *execs;    /* times of its execs (COMM with MISC_COMM_EXEC), as read */
	size_t nexec, capexec;
};

struct sampled {
	char **names;
	unsigned char *need;
	uint32_t nr_names, cap_names;
	uint32_t *nhash;    /* name index + 1, open addressing */
	uint32_t nhash_cap;
	struct proc *procs;
	uint32_t nr_procs, cap_procs;
	uint32_t *phash;    /* proc index + 1 */
	uint32_t phash_cap;
	int kernel;         /* a kernel IP was seen */
	uint64_t samples, unmapped;
	struct sample_layout layout;
	/*
	 * Records and samples carry their time (TIME in every sample and in
	 * every attr's sample_id): a sample takes the mapping of its time
	 * (sampled.h).  Without it, every mapping of its process that holds
	 * the ip.  time_back: the trailer's TIME, in bytes back from the end.
	 */
	int timed;
	unsigned time_back;
};

static uint32_t fnv(const void *p, size_t n)
{
	const unsigned char *c = p;
	uint32_t h = 2166136261u;
	while (n--)
		h = (h ^ *c++) * 16777619u;
	return h;
}

static int rehash_names(struct sampled *s)
{
	uint32_t cap = s->nhash_cap ? s->nhash_cap * 2 : 1024, *h = calloc(cap, sizeof(*h));
	if (!h)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->nr_names; i++) {
		uint32_t b = fnv(s->names[i], strlen(s->names[i])) & (cap - 1);
		while (h[b])
			b = (b + 1) & (cap - 1);
		h[b] = i + 1;
	}
	free(s->nhash);
	s->nhash = h;
	s->nhash_cap = cap;
	return 0;
}

/* The index of name (n bytes), added when new; -ENOMEM. */
static int64_t name_id(struct sampled *s, const char *name, size_t n)
{
	if (2 * (s->nr_names + 1) > s->nhash_cap && rehash_names(s))
		return -ENOMEM;
	uint32_t b = fnv(name, n) & (s->nhash_cap - 1);
	for (; s->nhash[b]; b = (b + 1) & (s->nhash_cap - 1)) {
		const char *e = s->names[s->nhash[b] - 1];
		if (!strncmp(e, name, n) && !e[n])
			return s->nhash[b] - 1;
	}
	if (s->nr_names == s->cap_names) {
		uint32_t cap = s->cap_names ? s->cap_names * 2 : 256;
		char **nm = realloc(s->names, cap * sizeof(*nm));
		if (nm)
			s->names = nm;
		unsigned char *nd = nm ? realloc(s->need, cap) : NULL;
		if (!nd)
			return -ENOMEM;
		s->need = nd;
		s->cap_names = cap;
	}
	if (!(s->names[s->nr_names] = strndup(name, n)))
		return -ENOMEM;
	s->need[s->nr_names] = 0;
	s->nhash[b] = s->nr_names + 1;
	return s->nr_names++;
}

static int rehash_procs(struct sampled *s)
{
	uint32_t cap = s->phash_cap ? s->phash_cap * 2 : 256, *h = calloc(cap, sizeof(*h));
	if (!h)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->nr_procs; i++) {
		uint32_t b = fnv(&s->procs[i].pid, 4) & (cap - 1);
		while (h[b])
			b = (b + 1) & (cap - 1);
		h[b] = i + 1;
	}
	free(s->phash);
	s->phash = h;
	s->phash_cap = cap;
	return 0;
}

/* The process pid, or NULL (add: made when missing; NULL then means no memory). */
static struct proc *proc_of(struct sampled *s, uint32_t pid, int add)
{
	if (s->phash_cap) {
		for (uint32_t b = fnv(&pid, 4) & (s->phash_cap - 1); s->phash[b]; b = (b + 1) & (s->phash_cap - 1))
			if (s->procs[s->phash[b] - 1].pid == pid)
				return &s->procs[s->phash[b] - 1];
	}
	if (!add || (2 * (s->nr_procs + 1) > s->phash_cap && rehash_procs(s)))
		return NULL;
	if (s->nr_procs == s->cap_procs) {
		uint32_t cap = s->cap_procs ? s->cap_procs * 2 : 64;
		struct proc *p = realloc(s->procs, cap * sizeof(*p));
		if (!p)
			return NULL;
		s->procs = p;
		s->cap_procs = cap;
	}
	struct proc *p = &s->procs[s->nr_procs];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->parent = KERNEL_PID;
	uint32_t b = fnv(&pid, 4) & (s->phash_cap - 1);
	while (s->phash[b])
		b = (b + 1) & (s->phash_cap - 1);
	s->phash[b] = ++s->nr_procs;
	return p;
}

static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* The time in a non-sample record's sample_id trailer (0 when not timed). */
static uint64_t record_time(const struct sampled *s, const uint8_t *r, uint16_t size)
{
	return s->timed && s->time_back + 8 <= size ? rd64(r + size - s->time_back) : 0;
}

/* A COMM record of size bytes that says pid exec'd: its time kept. */
static int exec_take(struct sampled *s, const uint8_t *r, uint16_t size)
{
	struct proc *p = proc_of(s, rd32(r + 8), 1);

	if (!p)
		return -ENOMEM;
	if (p->nexec == p->capexec) {
		size_t cap = p->capexec ? 2 * p->capexec : 2;
		uint64_t *v = realloc(p->execs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->execs = v;
		p->capexec = cap;
	}
	p->execs[p->nexec++] = record_time(s, r, size);
	return 0;
}

/* An MMAP (type 1) or MMAP2 record r of size bytes. */
static int mmap_take(struct sampled *s, const uint8_t *r, uint16_t size, int two)
{
	uint16_t misc;
	memcpy(&misc, r + 4, 2);
	size_t fo = two ? 8 + 64 : 8 + 32; /* the file name's offset */
	if (size <= fo || misc & MISC_MMAP_DATA)
		return 0;
	if (two && !(rd32(r + 8 + 56) & 0x4 /* PROT_EXEC */))
		return 0;
	uint32_t pid = rd32(r + 8);
	uint64_t start = rd64(r + 16), len = rd64(r + 24);
	int kernel = (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
	struct proc *p = proc_of(s, kernel ? KERNEL_PID : pid, 1);
	const char *name = (const char *)r + fo;
	int64_t ni = p ? name_id(s, name, strnlen(name, size - fo)) : -ENOMEM, bi = UINT32_MAX;
	if (ni >= 0 && two && misc & MISC_MMAP_BUILD_ID && r[8 + 32] >= 1 && r[8 + 32] <= 20) {
		char hex[2 + 40 + 1] = "#";
		for (unsigned i = 0; i < r[8 + 32]; i++)
			snprintf(hex + 1 + 2 * i, 3, "%02x", r[8 + 36 + i]);
		bi = name_id(s, hex, strlen(hex));
	}
	if (ni < 0 || bi < 0)
		return -ENOMEM;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct map *m = realloc(p->m, cap * sizeof(*m));
		if (!m)
			return -ENOMEM;
		p->m = m;
		p->cap = cap;
	}
	p->m[p->n++] = (struct map){ start, start + len < start ? UINT64_MAX : start + len,
				      record_time(s, r, size), (uint32_t)ni, (uint32_t)bi };
	return 0;
}

static int map_cmp(const void *a, const void *b)
{
	const struct map *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int procs_sort(struct sampled *s)
{
	for (uint32_t i = 0; i < s->nr_procs; i++) {
		struct proc *p = &s->procs[i];
		if (!p->n)
			continue;
		qsort(p->m, p->n, sizeof(*p->m), map_cmp);
		if (!(p->maxend = malloc(p->n * sizeof(*p->maxend))))
			return -ENOMEM;
		for (size_t j = 0; j < p->n; j++)
			p->maxend[j] = j && p->maxend[j - 1] > p->m[j].end ? p->maxend[j - 1] : p->m[j].end;
	}
	return 0;
}

/* Where the maps of p that may hold ip end: they are below it, walked down while maxend > ip. */
static size_t maps_after(const struct proc *p, uint64_t ip)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) { /* the first map starting after ip */
		size_t mid = (lo + hi) / 2;
		if (p->m[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether map m of a timed recording was its process's at time t (floor: its last exec then). */
static int map_then(const struct map *m, uint64_t t, uint64_t floor)
{
	return m->time <= t && m->time >= floor;
}

/*
 * Mark the maps of p holding ip that it had at time t: the newest mapped
 * at or before t, not before floor (timed), or every one (not timed).
 * Whether one did.
 */
static int proc_mark(struct sampled *s, const struct proc *p, uint64_t ip, uint64_t t, uint64_t floor)
{
	size_t lo = maps_after(p, ip);
	uint64_t best = 0;
	int found = 0;

	for (size_t j = lo; j-- > 0 && p->maxend[j] > ip;)
		if (p->m[j].end > ip && (!s->timed || map_then(&p->m[j], t, floor))) {
			best = found && best > p->m[j].time ? best : p->m[j].time;
			found = 1;
		}
	for (size_t j = lo; found && j-- > 0 && p->maxend[j] > ip;) {
		if (p->m[j].end > ip && (!s->timed || (map_then(&p->m[j], t, floor) && p->m[j].time == best))) {
			s->need[p->m[j].name] = 1;
			if (p->m[j].bid != UINT32_MAX)
				s->need[p->m[j].bid] = 1;
		}
	}
	return found;
}

/* The time of p's last exec at or before t into *at; whether it had one. */
static int exec_before(const struct proc *p, uint64_t t, uint64_t *at)
{
	int had = 0;

	*at = 0;
	for (size_t i = 0; i < p->nexec; i++)
		if (p->execs[i] <= t) {
			*at = p->execs[i] > *at ? p->execs[i] : *at;
			had = 1;
		}
	return had;
}

/*
 * One IP in cpumode mode of process pid at time t.  Not in its own maps:
 * in its parent's as they were at its FORK, unless it exec'd before t
 * (an exec replaces every map).
 */
static void ip_mark(struct sampled *s, uint32_t pid, unsigned mode, uint64_t ip, uint64_t t)
{
	const struct proc *p;
	uint64_t floor = 0;
	if (mode == PERF_RECORD_MISC_KERNEL) {
		s->kernel = 1;
		if ((p = proc_of(s, KERNEL_PID, 0)))
			proc_mark(s, p, ip, t, 0);
		return;
	}
	if (mode != PERF_RECORD_MISC_USER)
		return; /* hypervisor and guests: not this cache's */
	for (unsigned d = 0; d < PARENT_DEPTH && (p = proc_of(s, pid, 0)); d++) {
		int execd = s->timed && exec_before(p, t, &floor);

		if (proc_mark(s, p, ip, t, floor))
			return;
		if (execd || p->parent == KERNEL_PID || p->parent == pid)
			break;
		if (s->timed && p->fork_time && p->fork_time < t)
			t = p->fork_time;
		pid = p->parent;
	}
	s->unmapped++;
}

static void sample_take(struct sampled *s, const uint8_t *r, uint16_t size)
{
	const struct perf_event_attr *a = sample_layout_attr(&s->layout, r, size);
	unsigned at = a && (a->sample_type & PERF_SAMPLE_IDENTIFIER) ? 16 : 8; /* IP, then TID */
	struct sample_chain c;
	uint16_t misc;
	uint64_t ip;
	size_t off;

	if (!a || size < at + 16)
		return;
	memcpy(&misc, r + 4, 2);
	s->samples++;
	uint32_t pid = rd32(r + at + 8);
	unsigned mode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	/* TIME right after IP and TID (timed: every attr samples it). */
	uint64_t t = s->timed && size >= at + 24 ? rd64(r + at + 16) : 0;
	ip_mark(s, pid, mode, rd64(r + at), t);
	if (!(off = sample_chain_off(a, r, size)))
		return;
	sample_chain_begin(&c, r, size, off, mode);
	while (sample_chain_next(&c, &ip))
		ip_mark(s, pid, c.mode, ip, t);
}

/* One pass over the records: maps and forks (first), or samples. */
static int pass(struct sampled *s, int fd, uint64_t off, uint64_t len, int first, char *why, size_t n)
{
	struct rec_reader rr;
	int rc = rec_reader_fd(&rr, fd, off + len);
	if (rc)
		return rc;
	rr.off = off;
	while (!rc && rec_reader_left(&rr) >= 8) {
		const uint8_t *h = rec_reader_peek(&rr, 8);
		uint16_t size = h ? (uint16_t)(h[6] | h[7] << 8) : 0;
		const uint8_t *r = size >= 8 ? rec_reader_peek(&rr, size) : NULL;
		if (!r) {
			rc = rr.err ? rr.err : -EIO;
			break;
		}
		uint32_t type = rd32(r);
		if (type == PERFSINK_RECORD_COMPRESSED) {
			snprintf(why, n, "the recording's records are compressed (fetch --decompress reads them)");
			rc = -ENOTSUP;
		} else if (first && (type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2)) {
			rc = mmap_take(s, r, size, type == PERF_RECORD_MMAP2);
		} else if (first && type == PERF_RECORD_FORK && size >= 8 + 16) {
			struct proc *p = rd32(r + 8) != rd32(r + 12) ? proc_of(s, rd32(r + 8), 1) : NULL;
			if (p) {
				p->parent = rd32(r + 12);
				p->fork_time = size >= 8 + 24 ? rd64(r + 8 + 16) : 0;
			}
		} else if (first && type == PERF_RECORD_COMM && size >= 8 + 8 &&
			   (r[4] | r[5] << 8) & PERF_RECORD_MISC_COMM_EXEC) {
			rc = s->timed ? exec_take(s, r, size) : 0;
		} else if (!first && type == PERF_RECORD_SAMPLE) {
			sample_take(s, r, size);
		}
		rr.off += size + rec_payload_size(r);
	}
	rec_reader_free(&rr);
	return rc;
}

int sampled_scan(int fd, uint64_t off, uint64_t len, const struct ps_event_desc *ev, unsigned nr_ev,
		 struct sampled **out, char *why, size_t n)
{
	struct sampled *s = calloc(1, sizeof(*s));
	int rc = 0;
	*out = NULL;
	if (!s)
		return -ENOMEM;
	sample_layout_init(&s->layout, ev, nr_ev);
	uint64_t need = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	for (unsigned i = 0; i < nr_ev && !rc; i++)
		if ((ev[i].attr.sample_type & need) != need ||
		    (!s->layout.one && !(ev[i].attr.sample_type & PERF_SAMPLE_IDENTIFIER))) {
			snprintf(why, n, "the samples of event %u carry no %s", i,
				 (ev[i].attr.sample_type & need) != need ? "IP and TID" : "IDENTIFIER (attrs differ)");
			rc = -ENOTSUP;
		}
	if (!nr_ev) {
		snprintf(why, n, "the recording has no events");
		rc = -ENOTSUP;
	}
	s->timed = nr_ev > 0;
	for (unsigned i = 0; i < nr_ev; i++)
		s->timed &= ev[i].attr.sample_id_all && (ev[i].attr.sample_type & PERF_SAMPLE_TIME);
	s->time_back = nr_ev ? record_id_time_back(ev[0].attr.sample_type) : 0;
	if (!rc)
		rc = pass(s, fd, off, len, 1, why, n);
	if (!rc)
		rc = procs_sort(s);
	if (!rc)
		rc = pass(s, fd, off, len, 0, why, n);
	if (rc) {
		sampled_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

int sampled_need(void *v, const char *name, const char *hex)
{
	struct sampled *s = v;
	char key[2 + 40 + 1];
	if (!strcmp(name, KERNEL_NAME))
		return s->kernel;
	for (uint32_t b = s->nhash_cap ? fnv(name, strlen(name)) & (s->nhash_cap - 1) : 0;
	     s->nhash_cap && s->nhash[b]; b = (b + 1) & (s->nhash_cap - 1))
		if (!strcmp(s->names[s->nhash[b] - 1], name) && s->need[s->nhash[b] - 1])
			return 1;
	snprintf(key, sizeof(key), "#%s", hex);
	for (uint32_t b = s->nhash_cap ? fnv(key, strlen(key)) & (s->nhash_cap - 1) : 0;
	     s->nhash_cap && s->nhash[b]; b = (b + 1) & (s->nhash_cap - 1))
		if (!strcmp(s->names[s->nhash[b] - 1], key))
			return s->need[s->nhash[b] - 1];
	return 0;
}

void sampled_counts(const struct sampled *s, uint64_t *samples, uint64_t *unmapped)
{
	*samples = s->samples;
	*unmapped = s->unmapped;
}

void sampled_free(struct sampled *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->nr_names; i++)
		free(s->names[i]);
	for (uint32_t i = 0; i < s->nr_procs; i++) {
		free(s->procs[i].m);
		free(s->procs[i].maxend);
		free(s->procs[i].execs);
	}
	free(s->names);
	free(s->need);
	free(s->nhash);
	free(s->procs);
	free(s->phash);
	free(s);
}
