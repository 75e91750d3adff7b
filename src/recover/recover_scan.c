/* rscan: see recover_scan.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <perfsink/kit.h>
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif
#include "base/bytes.h"
#include "probe/dso_set.h"
#include "format/record.h"
#include "recover/recover_check.h"
#include "recover/recover_scan.h"

#define PAGE 4096u

struct walk {
	const struct rscan_opts *o;
	struct dso_set *dsos;     /* second pass only */
	struct rscan_result *r;
	struct bytes inner;       /* decompressed bytes not yet whole records */
#ifdef HAVE_ZSTD
	ZSTD_DCtx *dctx;
#endif
};

/* Types perf puts in a file-mode data section whose size is header.size
 * (not AUXTRACE, whose payload follows the record, nor the pipe-only ones). */
static bool type_known(uint32_t t)
{
	return (t >= PERF_RECORD_MMAP && t <= PERF_RECORD_AUX_OUTPUT_HW_ID) ||
	       (t >= PERFSINK_RECORD_FINISHED_ROUND && t <= PERFSINK_RECORD_TIME_CONV &&
		t != PERFSINK_RECORD_AUXTRACE) ||
	       t == PERFSINK_RECORD_COMPRESSED || t == PERFSINK_RECORD_FINISHED_INIT;
}

static void visit(struct walk *w, const struct perfsink_kit_rec *r)
{
	unsigned toff = w->o->time_off;
	if (r->type == PERF_RECORD_SAMPLE && toff && r->size >= toff + 8) {
		uint64_t t;
		memcpy(&t, r->p + toff, sizeof(t));
		if (!w->r->samples || t < w->r->first_time)
			w->r->first_time = t;
		if (t > w->r->last_time)
			w->r->last_time = t;
		w->r->samples++;
	} else if (r->type == PERF_RECORD_SAMPLE) {
		w->r->samples++;
	} else if (w->dsos) {
		dso_set_record(w->dsos, r);
	}
}

/* Why perf would stop at the record r (a COMPRESSED one's insides: any size), or NULL. */
static const char *record_bad(const struct walk *w, const struct perfsink_kit_rec *r, bool inner)
{
	if (!type_known(r->type) || (!inner && r->type != PERFSINK_RECORD_COMPRESSED && r->size % 8) ||
	    (inner && r->type == PERFSINK_RECORD_COMPRESSED))
		return "bytes that are not a record";
	return w->o->ev && r->type != PERFSINK_RECORD_COMPRESSED ? rc_record(w->o->ev, r->p, r->size) : NULL;
}

/* Visit the whole records at the front of w->inner; keep the partial one.  False: a bad one. */
static bool visit_inner(struct walk *w)
{
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec r;
	const char *why = NULL;
	perfsink_kit_rec_iter_init(&it, w->inner.p, w->inner.len);
	for (size_t at = 0; perfsink_kit_rec_next(&it, &r); at = it.off) {
		if ((why = record_bad(w, &r, true)) != NULL) {
			it.off = at;
			break;
		}
		visit(w, &r);
	}
	if (!why && it.stop == PERFSINK_KIT_REC_UNDERSIZE && w->o->ev)
		why = "a COMPRESSED record holding a record smaller than its header";
	if (why)
		w->r->stop = why;
	memmove(w->inner.p, w->inner.p + it.off, w->inner.len - it.off);
	w->inner.len -= it.off;
	return !why;
}

#ifdef HAVE_ZSTD
/* Decompress one payload onto w->inner; its size, 0 when it is not zstd. */
static int64_t decompress(struct walk *w, const uint8_t *src, size_t n)
{
	ZSTD_inBuffer in = { src, n, 0 };
	size_t before = w->inner.len;
	for (;;) {
		enum { STEP = 64 * 1024 };
		uint8_t *dst = bytes_reserve(&w->inner, STEP);
		if (!dst)
			return -ENOMEM;
		ZSTD_outBuffer out = { dst, STEP, 0 };
		size_t z = ZSTD_decompressStream(w->dctx, &out, &in);
		if (ZSTD_isError(z))
			return 0;
		w->inner.len += out.pos;
		if (w->inner.len - before > RSCAN_DECOMP_MAX)
			return 0;
		if (in.pos == in.size && out.pos < out.size)
			return (int64_t)(w->inner.len - before);
	}
}
#endif

/* A COMPRESSED record: 1 kept, 0 not (why in r->stop), or -errno. */
static int take_compressed(struct walk *w, const struct perfsink_kit_rec *r)
{
	if (!w->o->check_compressed)
		return 1;
#ifdef HAVE_ZSTD
	int64_t n = decompress(w, r->p + 8, r->size - 8u);
	if (n <= 0) {
		w->r->stop = "a COMPRESSED record that does not decompress";
		return n < 0 ? (int)n : 0;
	}
	w->r->compressed++;
	w->r->comp_bytes += r->size;
	w->r->decomp_bytes += (uint64_t)n;
	if ((uint64_t)n > w->r->max_decomp)
		w->r->max_decomp = (uint64_t)n;
	return visit_inner(w) ? 1 : 0;
#else
	return -ENOTSUP;
#endif
}

/* Whether the record [at, end) was cut by a killed write: zero from a page boundary on. */
static bool torn(const uint8_t *file, uint64_t at, uint64_t end)
{
	uint64_t p = end & ~(uint64_t)(PAGE - 1);
	if (p <= at || p == end)
		return false;
	for (uint64_t i = p; i < end; i++)
		if (file[i])
			return false;
	return true;
}

/* Why the walk of w stopped at it->off. */
static const char *stop_why(const struct walk *w, const struct perfsink_kit_rec_iter *it)
{
	struct perf_event_header h;
	switch (it->stop) {
	case PERFSINK_KIT_REC_SHORT:
		return "a record header cut short";
	case PERFSINK_KIT_REC_UNDERSIZE:
		memcpy(&h, w->o->file + it->off, sizeof(h));
		return h.size || h.type ? "a record smaller than its header" : "zeros";
	case PERFSINK_KIT_REC_PAST_END:
		return "a record cut short";
	default:
		return "the end of the file";
	}
}

/* One walk of [start, limit); *last: start of the last record kept. */
static int walk_to(struct walk *w, uint64_t limit, uint64_t *last)
{
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec r;
	const char *why = NULL;
	*last = w->r->end = w->o->start;
	w->r->stop = "the end of the file";
	if (w->o->start >= limit)
		return 0;
	perfsink_kit_rec_iter_init(&it, w->o->file, limit);
	it.off = w->o->start;
	for (size_t at = it.off; perfsink_kit_rec_next(&it, &r); at = it.off) {
		why = record_bad(w, &r, false);
		int k = why ? 0 : r.type == PERFSINK_RECORD_COMPRESSED ? take_compressed(w, &r) : 1;
		if (k < 0)
			return k;
		if (!k) {
			it.off = at; /* why, or take_compressed's in w->r->stop */
			break;
		}
		if (r.type != PERFSINK_RECORD_COMPRESSED)
			visit(w, &r);
		*last = at;
		w->r->records++;
	}
	if (why)
		w->r->stop = why;
	else if (it.stop != PERFSINK_KIT_REC_END)
		w->r->stop = stop_why(w, &it);
	w->r->end = it.off;
	return 0;
}

static int walk_init(struct walk *w, const struct rscan_opts *o, struct rscan_result *r,
		     struct dso_set *dsos)
{
	memset(w, 0, sizeof(*w));
	memset(r, 0, sizeof(*r));
	w->o = o;
	w->r = r;
	w->dsos = dsos;
	bytes_init(&w->inner);
#ifdef HAVE_ZSTD
	w->dctx = ZSTD_createDCtx();
	if (!w->dctx)
		return -ENOMEM;
#endif
	return 0;
}

static void walk_fini(struct walk *w)
{
	bytes_free(&w->inner);
#ifdef HAVE_ZSTD
	ZSTD_freeDCtx(w->dctx);
#endif
}

static int walk_pass(const struct rscan_opts *o, struct rscan_result *r, uint64_t limit,
		     struct dso_set *dsos, uint64_t *last)
{
	struct walk w;
	int err = walk_init(&w, o, r, dsos);
	if (!err)
		err = walk_to(&w, limit, last);
	walk_fini(&w);
	return err;
}

/*
 * Two passes: the first finds the end (and drops a torn last record),
 * the second walks exactly what is kept, so the counts, the sample times
 * and the DSOs describe the records that stay.
 */
int rscan_walk(const struct rscan_opts *o, struct rscan_result *r)
{
	uint64_t last;
	int err = walk_pass(o, r, o->limit, NULL, &last);
	if (err)
		return err;
	const char *stop = r->stop;
	uint64_t end = r->end;
	if (!strcmp(stop, "zeros") && r->records && torn(o->file, last, end)) {
		end = last;
		stop = "a record torn by the kill, then zeros";
	}
	err = walk_pass(o, r, end, o->dsos, &last);
	r->stop = stop;
	return err;
}
