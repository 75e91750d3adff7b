/* Sample hits waiting for their mapping; see dso_pending.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "probe/dso_pending.h"

struct hit {
	int32_t pid;
	uint32_t passes;         /* pass ends left before it is settled */
	uint32_t next;           /* index + 1 of the next hit of its pid bucket, 0 none */
	uint64_t ip, time;
	uint64_t exec_time;      /* the last exec of pid at or before time (0: none seen) */
	uint64_t found_time;     /* when best was mapped */
	struct dso_entry *best;  /* the newest mapping found for it, or NULL */
};

#define SLOTS (2 * DSO_PENDING_MAX) /* the index: open addressing, half full at most */
#define PID_BUCKETS 4096

struct dso_pending {
	struct hit *v;          /* DSO_PENDING_MAX, allocated with the first hit */
	uint32_t n;
	uint32_t *slot;         /* index + 1 into v, 0 empty */
	/* The hits of the pids of a bucket, chained through next: an MMAP,
	 * FORK or exec visits its own pid's, not every hit waiting. */
	uint32_t pid_head[PID_BUCKETS];
	struct dso_pending_stats st;
};

static uint32_t hash(int32_t pid, uint64_t ip)
{
	uint64_t k = (ip ^ ((uint64_t)(uint32_t)pid << 32)) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(k >> 40);
}

static uint32_t pid_bucket(int32_t pid)
{
	return ((uint32_t)pid * 2654435761u) >> 20; /* 12 bits: PID_BUCKETS */
}

struct dso_pending *dso_pending_new(void)
{
	return calloc(1, sizeof(struct dso_pending));
}

void dso_pending_free(struct dso_pending *p)
{
	if (!p)
		return;
	free(p->v);
	free(p->slot);
	free(p);
}

int dso_pending_has(const struct dso_pending *p, int32_t pid)
{
	return p->pid_head[pid_bucket(pid)] != 0;
}

/* The slot of (pid, ip): its hit's, or the empty one where it would go. */
static uint32_t *slot_of(struct dso_pending *p, int32_t pid, uint64_t ip)
{
	uint32_t i = hash(pid, ip) & (SLOTS - 1);

	for (; p->slot[i]; i = (i + 1) & (SLOTS - 1)) {
		const struct hit *h = &p->v[p->slot[i] - 1];

		if (h->pid == pid && h->ip == ip)
			break;
	}
	return &p->slot[i];
}

int dso_pending_add(struct dso_pending *p, int32_t pid, uint64_t ip, uint64_t time)
{
	uint32_t *slot, b = pid_bucket(pid);

	if (!p->v) {
		p->v = malloc(DSO_PENDING_MAX * sizeof(*p->v));
		p->slot = calloc(SLOTS, sizeof(*p->slot));
		if (!p->v || !p->slot) {
			free(p->v);
			free(p->slot);
			p->v = NULL;
			p->slot = NULL;
			p->st.dropped++;
			return -ENOSPC;
		}
	}
	slot = slot_of(p, pid, ip);
	if (*slot) {
		struct hit *h = &p->v[*slot - 1];

		/* Seen again: the newer sample's time, waiting as long as a new hit. */
		h->time = time > h->time ? time : h->time;
		h->passes = DSO_PENDING_PASSES;
		return 0;
	}
	if (p->n == DSO_PENDING_MAX) {
		p->st.dropped++;
		return -ENOSPC;
	}
	p->v[p->n] = (struct hit){ .pid = pid, .passes = DSO_PENDING_PASSES, .next = p->pid_head[b],
				   .ip = ip, .time = time };
	*slot = ++p->n;
	p->pid_head[b] = p->n;
	p->st.kept++;
	return 0;
}

void dso_pending_offer(struct dso_pending *p, int32_t pid, uint64_t t, dso_pending_find_fn *find,
		       void *arg)
{
	for (uint32_t i = p->pid_head[pid_bucket(pid)]; i; i = p->v[i - 1].next) {
		struct hit *h = &p->v[i - 1];
		struct dso_entry *d;

		/* Mapped after the sample, before an exec that preceded it, or
		 * older than what it has: not its mapping. */
		if (h->pid != pid || t > h->time || t < h->exec_time || (h->best && t < h->found_time))
			continue;
		if ((d = find(arg, h->ip))) {
			h->best = d;
			h->found_time = t;
		}
	}
}

void dso_pending_exec(struct dso_pending *p, int32_t pid, uint64_t t)
{
	for (uint32_t i = p->pid_head[pid_bucket(pid)]; i; i = p->v[i - 1].next) {
		struct hit *h = &p->v[i - 1];

		if (h->pid != pid || t > h->time || t < h->exec_time)
			continue;
		h->exec_time = t;
		if (h->best && h->found_time < t)
			h->best = NULL; /* the image before the exec */
	}
}

/* The index and the pid chains again, for the hits left in v[0..n). */
static void reindex(struct dso_pending *p)
{
	memset(p->slot, 0, SLOTS * sizeof(*p->slot));
	memset(p->pid_head, 0, sizeof(p->pid_head));
	for (uint32_t i = 0; i < p->n; i++) {
		struct hit *h = &p->v[i];
		uint32_t b = pid_bucket(h->pid);

		*slot_of(p, h->pid, h->ip) = i + 1;
		h->next = p->pid_head[b];
		p->pid_head[b] = i + 1;
	}
}

void dso_pending_pass_end(struct dso_pending *p, dso_pending_mark_fn *mark)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < p->n; i++) {
		struct hit *h = &p->v[i];

		if (--h->passes) {
			p->v[k++] = *h;
			continue;
		}
		if (h->best) {
			mark(h->best);
			p->st.resolved++;
		} else {
			p->st.unresolved++;
		}
	}
	if (k != p->n) {
		p->n = k;
		reindex(p);
	}
}

void dso_pending_settle(struct dso_pending *p, dso_pending_mark_fn *mark)
{
	for (uint32_t i = 0; i < p->n; i++)
		if (p->v[i].best)
			mark(p->v[i].best);
}

void dso_pending_stats(const struct dso_pending *p, struct dso_pending_stats *out)
{
	*out = p->st;
}
