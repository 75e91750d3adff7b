/* Sample ip -> DSO, per process; see dso_hits.h. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "probe/dso_hits.h"

struct range {
	uint64_t start, end;
	struct dso_entry *d;
	uint64_t time; /* of the MMAP (0: no time, or synthesized at the start) */
};

/* One process's ranges, sorted by start, none overlapping. */
struct proc {
	struct proc *next;
	int32_t pid;
	uint32_t epoch; /* bumped when the pid is a new process (fork) */
	uint32_t n, cap;
	struct range *v;
};

struct dying {
	int32_t pid;
	uint32_t epoch;
};

struct dying_list {
	struct dying *v;
	size_t n, cap;
};

/*
 * Ranges lookups found lately, and gaps between ranges (d NULL): the next
 * ip is likely in one.  Several, as a call chain goes through a few files
 * and the kernel's text (a gap between modules) for each sample.
 */
#define RECENT 8

struct recent {
	int32_t pid;
	bool valid;
	struct range r;
};

struct dso_hits {
	struct proc **buckets;
	unsigned nr_buckets, n;
	struct recent recent[RECENT];
	unsigned recent_next; /* the slot the next lookup fills */
	unsigned recent_last; /* the slot the last lookup found or filled */
	struct dying_list dying[2]; /* [0] this pass, [1] the pass before */
};

static unsigned bucket_of(const struct dso_hits *h, int32_t pid)
{
	return ((uint32_t)pid * 2654435761u) & (h->nr_buckets - 1);
}

struct dso_hits *dso_hits_new(void)
{
	struct dso_hits *h = calloc(1, sizeof(*h));

	if (h && !(h->buckets = calloc(h->nr_buckets = 256, sizeof(*h->buckets)))) {
		free(h);
		return NULL;
	}
	return h;
}

void dso_hits_free(struct dso_hits *h)
{
	if (!h)
		return;
	for (unsigned b = 0; b < h->nr_buckets; b++)
		for (struct proc *p = h->buckets[b], *nx; p; p = nx) {
			nx = p->next;
			free(p->v);
			free(p);
		}
	free(h->buckets);
	free(h->dying[0].v);
	free(h->dying[1].v);
	free(h);
}

/* A mapping changed: what was found may be wrong now. */
static void recent_forget(struct dso_hits *h)
{
	for (unsigned i = 0; i < RECENT; i++)
		h->recent[i].valid = false;
}

static struct proc *proc_find(const struct dso_hits *h, int32_t pid)
{
	struct proc *p = h->buckets[bucket_of(h, pid)];

	while (p && p->pid != pid)
		p = p->next;
	return p;
}

static void grow(struct dso_hits *h)
{
	unsigned nb = h->nr_buckets * 2;
	struct proc **b = calloc(nb, sizeof(*b));

	if (!b)
		return; /* longer chains, still right */
	for (unsigned i = 0; i < h->nr_buckets; i++)
		for (struct proc *p = h->buckets[i], *nx; p; p = nx) {
			unsigned k = ((uint32_t)p->pid * 2654435761u) & (nb - 1);

			nx = p->next;
			p->next = b[k];
			b[k] = p;
		}
	free(h->buckets);
	h->buckets = b;
	h->nr_buckets = nb;
}

static struct proc *proc_get(struct dso_hits *h, int32_t pid)
{
	struct proc *p = proc_find(h, pid);
	unsigned k;

	if (p)
		return p;
	if (h->n + 1 > h->nr_buckets)
		grow(h);
	if (!(p = calloc(1, sizeof(*p))))
		return NULL;
	p->pid = pid;
	k = bucket_of(h, pid);
	p->next = h->buckets[k];
	h->buckets[k] = p;
	h->n++;
	return p;
}

static void proc_remove(struct dso_hits *h, int32_t pid)
{
	struct proc **pp = &h->buckets[bucket_of(h, pid)];

	for (; *pp; pp = &(*pp)->next)
		if ((*pp)->pid == pid) {
			struct proc *p = *pp;

			*pp = p->next;
			free(p->v);
			free(p);
			h->n--;
			return;
		}
}

/* Index of the first range whose start is >= addr. */
static uint32_t lower_bound(const struct proc *p, uint64_t addr)
{
	uint32_t lo = 0, hi = p->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (p->v[mid].start < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * [start, end) of d, mapped at time, into p's sorted ranges: the ranges it
 * overlaps are dropped (the kernel replaced them), unless one is newer
 * (another ring's MMAP read first): then it is the one kept.
 */
static void proc_put(struct proc *p, uint64_t start, uint64_t end, struct dso_entry *d, uint64_t time)
{
	uint32_t i, j, k;

	i = lower_bound(p, start);
	if (i && p->v[i - 1].end > start)
		i--; /* the range before reaches into ours */
	for (j = i; j < p->n && p->v[j].start < end; j++)
		;
	for (k = i; k < j; k++)
		if (p->v[k].time > time)
			return;
	if (i == j && p->n == p->cap) {
		uint32_t cap = p->cap ? 2 * p->cap : 16;
		struct range *v = realloc(p->v, cap * sizeof(*v));

		if (!v)
			return;
		p->v = v;
		p->cap = cap;
	}
	/* [i, j) overlap the new range: one slot stays for it. */
	if (i == j)
		memmove(p->v + i + 1, p->v + i, (p->n - i) * sizeof(*p->v));
	else if (j > i + 1)
		memmove(p->v + i + 1, p->v + j, (p->n - j) * sizeof(*p->v));
	p->n = p->n + 1 - (j - i);
	p->v[i] = (struct range){ start, end, d, time };
}

void dso_hits_map(struct dso_hits *h, int32_t pid, uint64_t start, uint64_t len, struct dso_entry *d,
		  uint64_t time)
{
	struct proc *p;

	if (!len || !(p = proc_get(h, pid)))
		return;
	recent_forget(h);
	proc_put(p, start, start + len < start ? UINT64_MAX : start + len, d, time);
}

struct dso_entry *dso_hits_find(struct dso_hits *h, int32_t pid, uint64_t ip)
{
	const struct proc *p;
	struct recent *c;
	uint32_t i;

	/* The slot the last lookup used first: a storm's samples repeat it. */
	c = &h->recent[h->recent_last];
	if (c->valid && c->pid == pid && ip >= c->r.start && ip < c->r.end)
		return c->r.d;
	for (i = 0; i < RECENT; i++) {
		c = &h->recent[i];
		if (c->valid && c->pid == pid && ip >= c->r.start && ip < c->r.end) {
			h->recent_last = i;
			return c->r.d;
		}
	}
	h->recent_last = h->recent_next++ % RECENT;
	c = &h->recent[h->recent_last];
	/* A pid with no maps (the kernel's, no modules) is a miss everywhere,
	 * until a map or fork makes it one: both forget the recent slots. */
	if (!(p = proc_find(h, pid))) {
		*c = (struct recent){ pid, true, { 0, UINT64_MAX, NULL, 0 } };
		return NULL;
	}
	i = lower_bound(p, ip + 1); /* the first range starting after ip */
	*c = (struct recent){ pid, true, { i ? p->v[i - 1].end : 0, i < p->n ? p->v[i].start : UINT64_MAX, NULL, 0 } };
	if (i && ip < p->v[i - 1].end)
		c->r = p->v[i - 1];
	return c->r.d;
}

void dso_hits_fork(struct dso_hits *h, int32_t pid, int32_t ppid, uint64_t time)
{
	struct proc *parent = proc_find(h, ppid), *child;
	struct range *own;
	uint32_t n_own = 0;

	if (pid == ppid || !(child = proc_get(h, pid)))
		return;
	recent_forget(h);
	/* What the child mapped after the fork, read before it (another
	 * ring), stays; what it had before is an older process's by that pid. */
	own = child->v;
	for (uint32_t i = 0; time && i < child->n; i++)
		if (own[i].time > time)
			own[n_own++] = own[i];
	child->v = NULL;
	child->n = child->cap = 0;
	child->epoch++;
	/* The parent's maps as they were at the fork. */
	if (parent && parent->n && (child->v = malloc((parent->n + n_own) * sizeof(*child->v)))) {
		child->cap = parent->n + n_own;
		for (uint32_t i = 0; i < parent->n; i++)
			if (!time || parent->v[i].time <= time)
				child->v[child->n++] = parent->v[i];
	}
	for (uint32_t i = 0; i < n_own; i++)
		proc_put(child, own[i].start, own[i].end, own[i].d, own[i].time);
	free(own);
}

void dso_hits_drop(struct dso_hits *h, int32_t pid, int exec)
{
	struct dying_list *l = &h->dying[0];
	const struct proc *p;

	/* An exec's new maps replace the old where they overlap; a stale range
	 * elsewhere is never sampled in. */
	if (exec || !(p = proc_find(h, pid)))
		return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct dying *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = (struct dying){ pid, p->epoch };
}

void dso_hits_pass_end(struct dso_hits *h)
{
	struct dying_list old = h->dying[1];

	for (size_t i = 0; i < old.n; i++) {
		const struct proc *p = proc_find(h, old.v[i].pid);

		if (p && p->epoch == old.v[i].epoch) /* not a new process by that pid */
			proc_remove(h, old.v[i].pid);
	}
	if (old.n)
		recent_forget(h);
	h->dying[1] = h->dying[0];
	old.n = 0;
	h->dying[0] = old;
}
