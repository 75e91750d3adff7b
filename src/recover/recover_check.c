/* rc_events / rc_record: see recover_check.h. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "format/perf_file.h"
#include "format/record.h"
#include "recover/recover_check.h"

#define ATTR_VER0 64      /* PERF_ATTR_SIZE_VER0: what an attr.size of 0 means */
#define ATTR_MAX_61 128   /* sizeof(struct perf_event_attr) in perf 6.1 */
#define IDS_TAIL 16       /* the ids {offset, size} after each attr */
#define IDS_MAX (1u << 20)
#define EVENTS_MAX 4096
#define FLAGS_61 38      /* the attr flag bits perf 6.1 knows; the rest are reserved */
#define MAX_CPUS_61 4096 /* perf 6.1's MAX_NR_CPUS */
#define SAMPLE_KNOWN ((uint64_t)PERF_SAMPLE_MAX - 1)
#define FORMAT_KNOWN ((uint64_t)PERF_FORMAT_LOST * 2 - 1)
#define ID_TRAILER (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
		    PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

/* perf's __evsel__calc_id_pos and __evsel__calc_is_pos. */
static int id_pos_of(uint64_t t)
{
	if (t & PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(t & PERF_SAMPLE_ID))
		return -1;
	return !!(t & PERF_SAMPLE_IP) + !!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) +
	       !!(t & PERF_SAMPLE_ADDR);
}

static int is_pos_of(uint64_t t)
{
	if (t & PERF_SAMPLE_IDENTIFIER)
		return 1;
	if (!(t & PERF_SAMPLE_ID))
		return -1;
	return 1 + !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_STREAM_ID);
}

static int id_cmp(const void *a, const void *b)
{
	const struct rc_id *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

void rc_events_free(struct rc_events *e)
{
	free(e->a);
	free(e->ids);
	memset(e, 0, sizeof(*e));
}

int rc_event_of_id(const struct rc_events *e, uint64_t id)
{
	const struct rc_id key = { id, 0 };
	const struct rc_id *hit = bsearch(&key, e->ids, e->nr_ids, sizeof(key), id_cmp);
	return hit ? (int)hit->ev : -1;
}

static bool within(uint64_t size, uint64_t off, uint64_t len)
{
	return off <= size && len <= size - off;
}

bool rc_attr_bits_ok(const uint8_t *attr, size_t len)
{
	uint64_t type = len >= 32 ? get64(attr + 24) : 0, fmt = len >= 40 ? get64(attr + 32) : 0;
	uint64_t flags = len >= 48 ? get64(attr + 40) : 0;
	uint64_t branch = len >= 80 ? get64(attr + 72) : 0;
	/* perf script follows branch_sample_type (a call stack from branches) even without
	 * PERF_SAMPLE_BRANCH_STACK: it crashed on a fuzzed one */
	return !(type & ~SAMPLE_KNOWN) && !(fmt & ~FORMAT_KNOWN) && !(flags >> FLAGS_61) &&
	       !(branch & ~((uint64_t)PERF_SAMPLE_BRANCH_MAX - 1)) &&
	       (!branch || (type & PERF_SAMPLE_BRANCH_STACK));
}

/* One attr at fa (attr_size bytes, within the file) into a; its ids counted into *nr_ids. */
static int attr_read(struct rc_attr *a, uint64_t size, const uint8_t *fa, uint64_t attr_size,
		     uint64_t data_off, uint64_t *nr_ids, char *err, size_t n)
{
	struct perf_event_attr at;
	uint32_t asz = get32(fa + 4), eff = asz ? asz : ATTR_VER0;
	uint64_t ids_off, ids_size;

	/* perf reads attr.size bytes, then the ids section: that is the stride it walks. */
	if (eff < ATTR_VER0 || eff > ATTR_MAX_61 || eff % 8 || eff + IDS_TAIL != attr_size) {
		snprintf(err, n, "attrs damaged (attr.size %u in attrs of %llu bytes; perf 6.1 "
			 "reads 64..128)", asz, (unsigned long long)attr_size);
		return -EINVAL;
	}
	ids_off = get64(fa + eff);
	ids_size = get64(fa + eff + 8);
	if (ids_size % 8 || ids_size / 8 > IDS_MAX || !within(size, ids_off, ids_size)) {
		snprintf(err, n, "attrs damaged (ids at %llu+%llu)", (unsigned long long)ids_off,
			 (unsigned long long)ids_size);
		return -EINVAL;
	}
	memset(&at, 0, sizeof(at));
	memcpy(&at, fa, eff < sizeof(at) ? eff : sizeof(at));
	if (!rc_attr_bits_ok(fa, eff)) {
		snprintf(err, n, "attrs damaged (sample_type %#llx, read_format %#llx or flags: bits "
			 "perf 6.1 does not know)", (unsigned long long)at.sample_type,
			 (unsigned long long)at.read_format);
		return -EINVAL;
	}
	/* perf script shows symbols by default, and refuses events that cannot have them */
	if (at.type != PERF_TYPE_TRACEPOINT && !(at.sample_type & (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR))) {
		snprintf(err, n, "attrs damaged (an event samples neither IP nor ADDR: perf script "
			 "refuses it)");
		return -EINVAL;
	}
	*a = (struct rc_attr){
		.type = at.type, .config = at.config, .sample_type = at.sample_type,
		.read_format = at.read_format, .regs_user = at.sample_regs_user,
		.regs_intr = at.sample_regs_intr, .branch_type = at.branch_sample_type,
		.id_all = at.sample_id_all,
	};
	if (ids_off + ids_size > data_off) {
		snprintf(err, n, "attrs damaged (ids at %llu+%llu, past the data at %llu)",
			 (unsigned long long)ids_off, (unsigned long long)ids_size,
			 (unsigned long long)data_off);
		return -EINVAL;
	}
	*nr_ids += ids_size / 8;
	return 0;
}

/* perf_session__open's evlist__valid_sample_type, _sample_id_all, _read_format. */
static int attrs_agree(struct rc_events *e, char *err, size_t n)
{
	const struct rc_attr *f = &e->a[0];

	e->id_pos = id_pos_of(f->sample_type);
	e->is_pos = is_pos_of(f->sample_type);
	for (unsigned i = 0; i < e->nr; i++) {
		const struct rc_attr *a = &e->a[i];
		if (e->nr > 1 && (e->id_pos < 0 || e->is_pos < 0 ||
				  id_pos_of(a->sample_type) != e->id_pos ||
				  is_pos_of(a->sample_type) != e->is_pos)) {
			snprintf(err, n, "attrs damaged (events disagree on where the id is: perf says "
				 "\"non matching sample_type\")");
			return -EINVAL;
		}
		if (a->id_all != f->id_all) {
			snprintf(err, n, "attrs damaged (non matching sample_id_all)");
			return -EINVAL;
		}
		if (a->type == PERF_TYPE_TRACEPOINT)
			e->tracepoints = true;
	}
	if ((f->sample_type & PERF_SAMPLE_READ) && !(f->read_format & PERF_FORMAT_ID)) {
		snprintf(err, n, "attrs damaged (non matching read_format)");
		return -EINVAL;
	}
	return 0;
}

/* Every event's kernel ids, sorted for rc_event_of_id. */
static int ids_collect(struct rc_events *e, const uint8_t *file, const struct rc_layout *l,
		       size_t nr_ids)
{
	size_t k = 0;

	e->ids = malloc((nr_ids ? nr_ids : 1) * sizeof(*e->ids));
	if (!e->ids)
		return -ENOMEM;
	for (unsigned i = 0; i < e->nr; i++) {
		const uint8_t *fa = file + l->attrs_off + i * l->attr_size;
		uint64_t off = get64(fa + l->attr_size - IDS_TAIL);
		uint64_t cnt = get64(fa + l->attr_size - IDS_TAIL + 8) / 8;
		for (uint64_t j = 0; j < cnt; j++)
			e->ids[k++] = (struct rc_id){ get64(file + off + 8 * j), i };
	}
	e->nr_ids = k;
	qsort(e->ids, k, sizeof(*e->ids), id_cmp);
	return 0;
}

int rc_events_read(struct rc_events *e, const uint8_t *file, uint64_t size,
		   const struct rc_layout *l, char *err, size_t n)
{
	uint64_t nr_ids = 0;
	int r;

	memset(e, 0, sizeof(*e));
	/* recover keeps the file up to the data: the attrs and ids must come before it */
	if (l->attrs_off < PERF_FILE_HEADER_SIZE || !l->attr_size ||
	    !within(size, l->attrs_off, l->attrs_size) || l->attrs_size % l->attr_size ||
	    !l->attrs_size || l->attrs_off + l->attrs_size > l->data_off) {
		snprintf(err, n, "attrs damaged (section %llu+%llu)",
			 (unsigned long long)l->attrs_off, (unsigned long long)l->attrs_size);
		return -EINVAL;
	}
	if (l->attrs_size / l->attr_size > EVENTS_MAX) {
		snprintf(err, n, "attrs damaged (%llu events)",
			 (unsigned long long)(l->attrs_size / l->attr_size));
		return -EINVAL;
	}
	e->nr = (unsigned)(l->attrs_size / l->attr_size);
	e->a = calloc(e->nr, sizeof(*e->a));
	if (!e->a)
		return -ENOMEM;
	for (unsigned i = 0; i < e->nr; i++) {
		const uint8_t *fa = file + l->attrs_off + i * l->attr_size;
		if ((r = attr_read(&e->a[i], size, fa, l->attr_size, l->data_off, &nr_ids, err, n)) < 0)
			return r;
		if (nr_ids > IDS_MAX) {
			snprintf(err, n, "attrs damaged (more than %u ids)", IDS_MAX);
			return -EINVAL;
		}
	}
	if ((r = attrs_agree(e, err, n)) < 0)
		return r;
	return ids_collect(e, file, l, (size_t)nr_ids);
}

/* ------------------------------------------------------------------ records */

/* A cursor over a record's body, u64 by u64 as perf reads it. */
struct rd {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t rd64(struct rd *r)
{
	uint64_t v = 0;
	if (r->end - r->p < 8) {
		r->bad = true;
	} else {
		v = get64(r->p);
		r->p += 8;
	}
	return v;
}

static void rd_skip(struct rd *r, uint64_t n)
{
	if ((uint64_t)(r->end - r->p) < n)
		r->bad = true;
	else
		r->p += n;
}

/* The event a record belongs to, as evlist__event2evsel finds it; -1: none. */
static int event_of(const struct rc_events *e, const uint8_t *body, size_t blen, bool sample)
{
	size_t n = blen / 8;
	uint64_t id;

	if (e->nr == 1 || (!e->a[0].id_all && !sample))
		return 0;
	if (sample ? (size_t)e->id_pos >= n : (size_t)e->is_pos > n)
		return -1;
	id = get64(body + 8 * (sample ? (size_t)e->id_pos : n - (size_t)e->is_pos));
	return id ? rc_event_of_id(e, id) : 0; /* synthesized records have id 0 */
}

/*
 * The CPU field, read: below perf 6.1's MAX_NR_CPUS (perf script indexes
 * by it; a fuzzed 0x243f0608 crashed it).
 */
static bool cpu_ok(struct rd *r)
{
	return (rd64(r) & 0xffffffff) < MAX_CPUS_61;
}

static void sample_read(struct rd *r, uint64_t fmt)
{
	uint64_t nr = rd64(r);

	if (fmt & PERF_FORMAT_TOTAL_TIME_ENABLED)
		rd64(r);
	if (fmt & PERF_FORMAT_TOTAL_TIME_RUNNING)
		rd64(r);
	if (fmt & PERF_FORMAT_GROUP) {
		uint64_t each = 16 + (fmt & PERF_FORMAT_LOST ? 8 : 0);
		if (nr > UINT16_MAX / each)
			r->bad = true;
		else
			rd_skip(r, nr * each);
	} else {
		rd64(r); /* id: perf forces PERF_FORMAT_ID */
		if (fmt & PERF_FORMAT_LOST)
			rd64(r);
	}
}

/* A count of n entries of each bytes, then the entries. */
static void counted(struct rd *r, uint64_t n, uint64_t each)
{
	if (n > UINT16_MAX / each)
		r->bad = true;
	else
		rd_skip(r, n * each);
}

static void sample_tail(struct rd *r, const struct rc_attr *a)
{
	uint64_t t = a->sample_type, sz;

	if (t & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t nr = rd64(r);
		if (a->branch_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			rd64(r);
		counted(r, nr, 24);
	}
	if (t & PERF_SAMPLE_REGS_USER && rd64(r))
		rd_skip(r, 8u * (unsigned)__builtin_popcountll(a->regs_user));
	if (t & PERF_SAMPLE_STACK_USER && (sz = rd64(r))) {
		rd_skip(r, sz);
		if (rd64(r) > sz) /* dyn_size: "user stack dump failure" */
			r->bad = true;
	}
	if (t & PERF_SAMPLE_WEIGHT_TYPE)
		rd64(r);
	if (t & PERF_SAMPLE_DATA_SRC)
		rd64(r);
	if (t & PERF_SAMPLE_TRANSACTION)
		rd64(r);
	if (t & PERF_SAMPLE_REGS_INTR && rd64(r))
		rd_skip(r, 8u * (unsigned)__builtin_popcountll(a->regs_intr));
	for (uint64_t bit = PERF_SAMPLE_PHYS_ADDR; bit <= PERF_SAMPLE_CODE_PAGE_SIZE; bit <<= 1)
		if (t & bit && bit != PERF_SAMPLE_AUX)
			rd64(r);
	if (t & PERF_SAMPLE_AUX)
		rd_skip(r, rd64(r));
}

/* evsel__parse_sample's walk: NULL when every field fits the record. */
static const char *sample_check(const struct rc_events *e, const uint8_t *body, size_t blen)
{
	int ev = event_of(e, body, blen, true);
	struct rd r = { body, body + blen, false };
	const struct rc_attr *a;
	uint64_t t;

	if (ev < 0)
		return "a SAMPLE of an event the attrs do not have";
	a = &e->a[ev];
	t = a->sample_type;
	/* IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID: one u64 each, then CPU. */
	rd_skip(&r, 8u * (unsigned)__builtin_popcountll(t & (PERF_SAMPLE_IDENTIFIER |
		PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
		PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID)));
	if (t & PERF_SAMPLE_CPU && !r.bad && !cpu_ok(&r))
		return "a SAMPLE of a CPU perf 6.1 cannot have";
	if (t & PERF_SAMPLE_PERIOD)
		rd64(&r);
	if (t & PERF_SAMPLE_READ)
		sample_read(&r, a->read_format);
	if (t & PERF_SAMPLE_CALLCHAIN)
		counted(&r, rd64(&r), 8);
	if (t & PERF_SAMPLE_RAW && !r.bad) {
		/* a u64 read, of which the u32 size; the data follow it */
		uint32_t raw = r.end - r.p >= 8 ? get32(r.p) : 0;
		if (r.end - r.p < 8)
			r.bad = true;
		rd_skip(&r, 4);
		rd_skip(&r, raw);
	}
	sample_tail(&r, a);
	return r.bad ? "a SAMPLE whose fields run past its end" : NULL;
}

/* Kernel records: the fixed part, whether a string follows it. */
static const struct {
	uint16_t fixed;
	bool string;
} kernel_rec[] = {
	[PERF_RECORD_MMAP] = { 32, true },    [PERF_RECORD_LOST] = { 16, false },
	[PERF_RECORD_COMM] = { 8, true },     [PERF_RECORD_EXIT] = { 24, false },
	[PERF_RECORD_THROTTLE] = { 24, false }, [PERF_RECORD_UNTHROTTLE] = { 24, false },
	[PERF_RECORD_FORK] = { 24, false },   [PERF_RECORD_READ] = { 16, false },
	[PERF_RECORD_MMAP2] = { 64, true },   [PERF_RECORD_AUX] = { 24, false },
	[PERF_RECORD_ITRACE_START] = { 8, false }, [PERF_RECORD_LOST_SAMPLES] = { 8, false },
	[PERF_RECORD_SWITCH] = { 0, false },  [PERF_RECORD_SWITCH_CPU_WIDE] = { 8, false },
	[PERF_RECORD_NAMESPACES] = { 16, false }, [PERF_RECORD_KSYMBOL] = { 16, true },
	[PERF_RECORD_BPF_EVENT] = { 16, false }, [PERF_RECORD_CGROUP] = { 8, true },
	[PERF_RECORD_TEXT_POKE] = { 12, false }, [PERF_RECORD_AUX_OUTPUT_HW_ID] = { 8, false },
};

/* What follows the fixed part of NAMESPACES and TEXT_POKE. */
static uint64_t kernel_var(uint32_t type, const uint8_t *body)
{
	if (type == PERF_RECORD_NAMESPACES)
		return get64(body + 8) > UINT16_MAX / 16 ? UINT16_MAX : get64(body + 8) * 16;
	if (type == PERF_RECORD_TEXT_POKE)
		return (uint64_t)get16(body + 8) + get16(body + 10);
	return 0;
}

static const char *kernel_check(const struct rc_events *e, uint32_t type, const uint8_t *body,
				size_t blen)
{
	int ev = event_of(e, body, blen, false);
	uint64_t need, trailer;

	if (type >= sizeof(kernel_rec) / sizeof(kernel_rec[0]))
		return "a record type perf 6.1 does not know";
	if (ev < 0)
		return "a record of an event the attrs do not have";
	trailer = e->a[ev].id_all ?
		  8u * (unsigned)__builtin_popcountll(e->a[ev].sample_type & ID_TRAILER) : 0;
	need = kernel_rec[type].fixed;
	if (need + trailer > blen)
		return "a record shorter than its fields";
	need += kernel_var(type, body);
	if (need + trailer > blen)
		return "a record whose fields run past its end";
	if (kernel_rec[type].string && !memchr(body + need, '\0', blen - trailer - need))
		return "a record whose name has no end";
	if (trailer && (e->a[ev].sample_type & PERF_SAMPLE_CPU)) {
		/* read from the end: IDENTIFIER, then CPU */
		size_t at = blen - 8 - (e->a[ev].sample_type & PERF_SAMPLE_IDENTIFIER ? 8 : 0);
		struct rd r = { body + at, body + at + 8, false };
		if (!cpu_ok(&r))
			return "a record of a CPU perf 6.1 cannot have";
	}
	return NULL;
}

/* perf_record_cpu_map_data: CPUS, MASK (4- or 8-byte words) or RANGE_CPUS. */
static bool cpu_map_ok(const uint8_t *p, size_t len)
{
	uint16_t type = len >= 2 ? get16(p) : UINT16_MAX, nr = len >= 4 ? get16(p + 2) : 0;

	switch (type) {
	case 0:
		return len >= 4 && 4u + 2u * nr <= len;
	case 1: {
		uint16_t word = len >= 6 ? get16(p + 4) : 0;
		return (word == 4 && 6u + 4u * nr <= len) || (word == 8 && 10u + 8u * nr <= len);
	}
	case 2:
		return len >= 8 && get16(p + 4) <= get16(p + 6);
	default:
		return false;
	}
}

/* The user records perf 6.1 processes, with what it checks or trusts inside. */
static const char *user_check(const struct rc_events *e, uint32_t type, const uint8_t *b,
			      size_t blen)
{
	uint64_t nr = blen >= 8 ? get64(b) : 0;

	switch (type) {
	case PERFSINK_RECORD_FINISHED_ROUND:
	case PERFSINK_RECORD_FINISHED_INIT:
		return NULL;
	case PERFSINK_RECORD_ID_INDEX:
		if (blen < 8 || nr > (blen - 8) / 32)
			return "an ID_INDEX longer than its record";
		for (uint64_t i = 0; i < nr; i++)
			if (rc_event_of_id(e, get64(b + 8 + 32 * i)) < 0)
				return "an ID_INDEX naming an id the attrs do not have";
		return NULL;
	case 73: /* THREAD_MAP: nr, then {pid, comm[16]} */
		return blen >= 8 && nr <= (blen - 8) / 24 ? NULL : "a THREAD_MAP longer than its record";
	case 74: /* CPU_MAP */
		return cpu_map_ok(b, blen) ? NULL : "a CPU_MAP perf cannot read";
	case PERFSINK_RECORD_EVENT_UPDATE:
		if (blen < 16 || rc_event_of_id(e, get64(b + 8)) < 0)
			return "an EVENT_UPDATE of an event the attrs do not have";
		if ((nr == 0 || nr == 2) && !memchr(b + 16, '\0', blen - 16))
			return "an EVENT_UPDATE whose name has no end";
		if ((nr == 1 && blen < 24) || (nr == 3 && !cpu_map_ok(b + 16, blen - 16)))
			return "an EVENT_UPDATE perf cannot read";
		return NULL;
	case 79: /* TIME_CONV: time_shift, time_mult, time_zero, ... */
		return blen >= 24 ? NULL : "a TIME_CONV shorter than its fields";
	default: /* STAT* (perf stat record), AUXTRACE_INFO/_ERROR (AUX data), the pipe's */
		return "a record type recover does not keep";
	}
}

const char *rc_record(const struct rc_events *e, const uint8_t *rec, size_t size)
{
	uint32_t type = get32(rec);

	if (type == PERF_RECORD_SAMPLE)
		return sample_check(e, rec + 8, size - 8);
	if (type < PERF_RECORD_MAX)
		return kernel_check(e, type, rec + 8, size - 8);
	return user_check(e, type, rec + 8, size - 8);
}
