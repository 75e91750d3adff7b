/* One window's aggregate for the pprof sink; see agg.h. */
#include "agg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfsink/kit.h>

#define MISC_MMAP_DATA (1u << 13)     /* PERF_RECORD_MISC_MMAP_DATA */
#define MISC_COMM_EXEC (1u << 13)     /* PERF_RECORD_MISC_COMM_EXEC */
#define MISC_MMAP_BUILD_ID (1u << 14) /* PERF_RECORD_MISC_MMAP_BUILD_ID */
#define KERNEL_PID (-1)

static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

int agg_init(struct agg *a, uint64_t max_memory)
{
	memset(a, 0, sizeof(*a));
	maps_init(&a->maps);
	a->max_memory = max_memory;
	return 0;
}

void agg_free(struct agg *a)
{
	if (a->live)
		pp_profile_free(&a->prof);
	maps_free(&a->maps);
	for (unsigned i = 0; i < a->nattrs; i++)
		free(a->attrs[i].ids);
	free(a->attrs);
	free(a->event);
	free(a->locs);
	free(a->exited);
	memset(a, 0, sizeof(*a));
}

static int add_attr(struct agg *a, const struct perfsink_kit_rec *r)
{
	if (r->size < 8 + 8)
		return 0;
	uint32_t asz = rd32(r->p + 8 + 4);
	if (asz < 64 || 8 + (size_t)asz > r->size)
		return 0;
	struct agg_attr *v = realloc(a->attrs, (a->nattrs + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	a->attrs = v;
	struct agg_attr *x = &v[a->nattrs];
	memset(x, 0, sizeof(*x));
	memcpy(&x->attr, r->p + 8, asz < sizeof(x->attr) ? asz : sizeof(x->attr));
	x->nids = (r->size - 8 - asz) / 8;
	if (x->nids && !(x->ids = malloc(x->nids * sizeof(*x->ids))))
		return -ENOMEM;
	memcpy(x->ids, r->p + 8 + asz, x->nids * sizeof(*x->ids));
	a->nattrs++;
	return 0;
}

int agg_attrs(struct agg *a, const uint8_t *hdr, size_t len, const char *event)
{
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec r;
	for (unsigned i = 0; i < a->nattrs; i++)
		free(a->attrs[i].ids);
	a->nattrs = 0;
	perfsink_kit_rec_iter_init(&it, hdr, len);
	it.off = len < 16 ? len : 16;   /* after the pipe header */
	it.payload = 1;
	while (perfsink_kit_rec_next(&it, &r))
		if (r.type == PERFSINK_KIT_REC_HEADER_ATTR && add_attr(a, &r))
			return -ENOMEM;
	free(a->event);
	a->event = strdup(event ? event : "events");
	if (!a->event)
		return -ENOMEM;
	a->clock = !strncmp(a->event, "cpu-clock", 9) || !strncmp(a->event, "task-clock", 10);
	return a->nattrs ? 0 : -EINVAL;
}

/* The attr of sample r: the only one, else the one whose ids hold its id. */
static const struct perf_event_attr *attr_of(const struct agg *a, const struct perfsink_kit_rec *r)
{
	if (a->nattrs == 1)
		return &a->attrs[0].attr;
	if (!a->nattrs)
		return NULL;
	uint64_t id = pp_sample_id(r->p, r->size, a->attrs[0].attr.sample_type);
	for (unsigned i = 0; i < a->nattrs; i++)
		for (uint32_t j = 0; j < a->attrs[i].nids; j++)
			if (a->attrs[i].ids[j] == id)
				return &a->attrs[i].attr;
	return NULL;
}

/* The window's profile with its value types, made on its first sample. */
static int live(struct agg *a)
{
	if (a->live)
		return 0;
	if (pp_profile_init(&a->prof))
		return -ENOMEM;
	a->live = 1;
	a->window++;
	const struct perf_event_attr *at = &a->attrs[0].attr;
	int64_t period = at->freq ? (at->sample_freq ? 1000000000 / (int64_t)at->sample_freq : 0)
				  : (int64_t)at->sample_period;
	if (pp_value_type(&a->prof, "samples", "count") < 0)
		return -ENOMEM;
	if (a->clock)
		return pp_value_type(&a->prof, "cpu", "nanoseconds") < 0 ||
		       pp_period(&a->prof, "cpu", "nanoseconds", period) ? -ENOMEM : 0;
	return pp_value_type(&a->prof, a->event, "count") < 0 ||
	       pp_period(&a->prof, a->event, "count", at->freq ? 0 : period) ? -ENOMEM : 0;
}

/* The location of addr in pid's (or the kernel's) maps; 0 on no memory. */
static uint64_t location(struct agg *a, int32_t pid, uint64_t addr)
{
	struct map_ent *e = maps_find(&a->maps, pid, addr);
	uint64_t mid = 0;
	if (e) {
		if (e->window != a->window) {
			const struct map_file *f = maps_file(&a->maps, e->file);
			int64_t id = pp_mapping(&a->prof, e->start, e->end, e->pgoff, f->path,
						f->build_id);
			if (id < 0)
				return 0;
			e->window = a->window;
			e->mapping_id = (uint64_t)id;
		}
		mid = e->mapping_id;
	}
	uint64_t loc = pp_location_find(&a->prof, mid, addr);
	if (loc)
		return loc;
	int64_t id = pp_location_add(&a->prof, mid, addr, NULL, 0);
	return id < 0 ? 0 : (uint64_t)id;
}

static int locs_room(struct agg *a, uint64_t n)
{
	if (n <= a->cap_locs)
		return 0;
	if (n > 65536)
		return -E2BIG;
	uint64_t *v = realloc(a->locs, n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	a->locs = v;
	a->cap_locs = (unsigned)n;
	return 0;
}

/* The stack of s, leaf first, into a->locs: its call chain (context
 * markers say whose maps the frames are in), else its ip.  The count, or
 * a negative errno. */
static int stack(struct agg *a, const struct pp_sample *s)
{
	int kernel = s->cpumode == PERF_RECORD_MISC_KERNEL;
	unsigned n = 0;
	if (!s->nr_chain) {
		if (locs_room(a, 1))
			return -ENOMEM;
		a->locs[n] = location(a, kernel ? KERNEL_PID : (int32_t)s->pid, s->ip);
		return a->locs[n] ? 1 : -ENOMEM;
	}
	if (locs_room(a, s->nr_chain))
		return -E2BIG;
	for (uint64_t i = 0; i < s->nr_chain; i++) {
		uint64_t v = pp_sample_chain(s, i);
		if (v >= (uint64_t)PERF_CONTEXT_MAX) {
			if (v == (uint64_t)PERF_CONTEXT_KERNEL || v == (uint64_t)PERF_CONTEXT_USER)
				kernel = v == (uint64_t)PERF_CONTEXT_KERNEL;
			continue;
		}
		uint64_t l = location(a, kernel ? KERNEL_PID : (int32_t)s->pid, v);
		if (!l)
			return -ENOMEM;
		a->locs[n++] = l;
	}
	return (int)n;
}

static void on_sample(struct agg *a, const struct perfsink_kit_rec *r)
{
	const struct perf_event_attr *at = attr_of(a, r);
	struct pp_sample s;
	if (!at || pp_sample_decode(r->p, r->size, at, &s)) {
		a->bad++;
		return;
	}
	if (live(a) || pp_profile_bytes(&a->prof) + a->maps.bytes > a->max_memory) {
		a->win_dropped++;   /* the budget is spent: counted, reported at the window's end */
		return;
	}
	int n = stack(a, &s);
	int64_t v[2] = { 1, (int64_t)s.period };
	if (n < 0 || pp_sample_add(&a->prof, a->locs, (unsigned)n, NULL, 0, v)) {
		a->win_dropped++;
		return;
	}
	a->win_samples++;
}

/* A NUL-terminated name at off in r, or NULL. */
static const char *name_at(const struct perfsink_kit_rec *r, size_t off)
{
	if (off >= r->size || !memchr(r->p + off, 0, r->size - off))
		return NULL;
	return (const char *)r->p + off;
}

static void on_mmap(struct agg *a, const struct perfsink_kit_rec *r)
{
	int two = r->type == PERF_RECORD_MMAP2;
	const char *path = name_at(r, two ? 72 : 40);
	if (!path || (r->misc & MISC_MMAP_DATA))
		return;
	const uint8_t *bid = NULL;
	size_t bidlen = 0;
	if (two && (r->misc & MISC_MMAP_BUILD_ID)) {
		bidlen = r->p[40];
		bid = r->p + 44;
	}
	int32_t pid = (int32_t)rd32(r->p + 8);
	(void)maps_mmap(&a->maps, pid, rd64(r->p + 16), rd64(r->p + 24), rd64(r->p + 32), path, bid,
			bidlen);
}

static void on_exit_rec(struct agg *a, const struct perfsink_kit_rec *r)
{
	if (rd32(r->p + 8) != rd32(r->p + 16))
		return;   /* a thread */
	if (a->nexited == a->cap_exited) {
		unsigned c = a->cap_exited ? a->cap_exited * 2 : 64;
		int32_t *v = realloc(a->exited, c * sizeof(*v));
		if (!v)
			return;   /* its maps stay until it is reused: harmless */
		a->exited = v;
		a->cap_exited = c;
	}
	a->exited[a->nexited++] = (int32_t)rd32(r->p + 8);
}

void agg_buffer(struct agg *a, const uint8_t *data, size_t len)
{
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec r;
	perfsink_kit_rec_iter_init(&it, data, len);
	while (perfsink_kit_rec_next(&it, &r)) {
		switch (r.type) {
		case PERF_RECORD_SAMPLE:
			on_sample(a, &r);
			break;
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2:
			on_mmap(a, &r);
			break;
		case PERF_RECORD_FORK:
			if (r.size >= 24)
				(void)maps_fork(&a->maps, (int32_t)rd32(r.p + 12), (int32_t)rd32(r.p + 8));
			break;
		case PERF_RECORD_COMM:
			if ((r.misc & MISC_COMM_EXEC) && r.size >= 16 && rd32(r.p + 8) == rd32(r.p + 12))
				maps_forget(&a->maps, (int32_t)rd32(r.p + 8));
			break;
		case PERF_RECORD_EXIT:
			if (r.size >= 24)
				on_exit_rec(a, &r);
			break;
		}
	}
}

/* Encode the profile, gzipped, into a malloc'd buffer. */
static int encode(const struct pp_profile *p, uint8_t **out, size_t *n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	int rc = pp_write(p, f);
	if (fclose(f) && !rc)
		rc = -ENOMEM;
	if (rc) {
		free(buf);
		return rc;
	}
	*out = (uint8_t *)buf;
	*n = len;
	return 0;
}

int agg_window_end(struct agg *a, int64_t from_ns, int64_t until_ns, uint8_t **out, size_t *n)
{
	int rc = 0;
	*out = NULL;
	*n = 0;
	if (a->live && a->win_samples) {
		a->prof.time_nanos = from_ns;
		a->prof.duration_nanos = until_ns - from_ns;
		rc = encode(&a->prof, out, n);
	}
	if (a->live) {
		pp_profile_free(&a->prof);
		a->live = 0;
	}
	if (!rc)
		a->samples += a->win_samples;
	a->dropped += a->win_dropped + (rc ? a->win_samples : 0);
	a->win_samples = a->win_dropped = 0;
	for (unsigned i = 0; i < a->nexited; i++)
		maps_forget(&a->maps, a->exited[i]);
	a->nexited = 0;
	return rc;
}
