/* Rings to pooled buffers to sinks: the hot path of the engine. */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "engine/engine_priv.h"
#include "engine/pool.h"
#include "format/record.h"
#include "engine/ring.h"

int drain_dispatch(struct engine *e, struct psbuf *b)
{
	b->pub.seq = e->seq++;
	e->buffers++;
	e->seg_stream += b->pub.len;
	int r = sinkset_write(&e->ss, &b->pub, b->samples);
	psbuf_put(&b->pub);
	if (r < 0 && !e->error)
		e->error = r;
	return r;
}

int drain_dispatch_bytes(struct engine *e, const struct bytes *recs)
{
	if (recs->err)
		return recs->err;
	if (recs->len == 0)
		return 0;
	struct psbuf *b = heapbuf_new(recs->len);
	if (!b)
		return -ENOMEM;
	memcpy(psbuf_place(b, e->seg_stream), recs->p, recs->len);
	b->pub.records = (uint32_t)dso_set_scan(&e->dsos, recs->p, recs->len);
	b->pub.len = recs->len;
	b->pub.kind = PERFSINK_BUF_SYNTH;
	b->pub.cpu = -1;
	return drain_dispatch(e, b);
}

static void time_range_add(struct perfsink_stream_priv *sp, uint64_t n, uint64_t tmin,
			   uint64_t tmax)
{
	if (!sp->samples || tmin < sp->first_sample_time)
		sp->first_sample_time = tmin;
	if (tmax > sp->last_sample_time)
		sp->last_sample_time = tmax;
	sp->samples += n;
}

/*
 * Whether a DWARF sample's stack copy reached the size asked: STACK_USER
 * ({size, data[size], dyn_size}) is followed by tail bytes of fixed-size
 * fields (DATA_SRC, ...; engine_stack_tail), so dyn_size ends tail bytes
 * before the record does.  A copy that filled it most likely cut the stack short.
 * (Where the kernel shrank size to fit 64 KiB, such a sample is not counted.)
 */
static unsigned stack_filled(uint32_t asked, uint32_t tail, const uint8_t *rec, uint16_t size)
{
	uint64_t dyn;
	if (!asked || size < 16 + tail)
		return 0;
	memcpy(&dyn, rec + size - 8 - tail, sizeof(dyn));
	return dyn >= asked;
}

/*
 * Count the records (into rec), samples and kernel-reported loss and track
 * the sample time range, for the whole records in p[off, len); returns
 * where it stopped (the start of a record not wholly in yet).
 */
static size_t scan_records(struct engine *e, struct ring *r, struct psbuf *rec,
			   const uint8_t *p, size_t off, size_t len)
{
	/* Counted in locals: stores through the engine's structs would alias p. */
	uint64_t n = 0, tmin = UINT64_MAX, tmax = 0, cut = 0;
	uint32_t records = 0;
	const size_t time_end = e->time_off + 8;
	while (off + sizeof(struct perf_event_header) <= len) {
		const struct perf_event_header *h = (const void *)(p + off);
		if (h->size < sizeof(*h) || off + h->size > len)
			break;
		records++;
		if (h->type == PERF_RECORD_SAMPLE && h->size >= time_end) {
			uint64_t t;
			memcpy(&t, p + off + e->time_off, sizeof(t));
			tmin = t < tmin ? t : tmin;
			tmax = t > tmax ? t : tmax;
			n++;
			cut += stack_filled(e->stack_user, e->stack_tail, p + off, h->size);
		} else if (h->type == PERF_RECORD_MMAP || h->type == PERF_RECORD_MMAP2) {
			dso_set_scan(&e->dsos, p + off, h->size);
		} else if (h->type == PERF_RECORD_LOST && h->size >= 24) {
			uint64_t lost;
			memcpy(&lost, p + off + 16, sizeof(lost));
			e->lost_records++;
			e->lost_in_records += lost;
			r->lost += lost;
		}
		off += h->size;
	}
	e->stack_cut += cut;
	rec->pub.records += records;
	rec->samples += (uint32_t)n;
	if (n) {
		time_range_add(CUR_PRIV(e), n, tmin, tmax);
		time_range_add(&e->whole_priv, n, tmin, tmax);
		e->samples += n;
	}
	return off;
}

struct scan {
	struct engine *e;
	struct ring *r;
	struct psbuf *buf;        /* records and samples counted into */
	size_t off;
};

/* ring_piece_fn: walk the records of the piece just copied, while it is hot. */
static void scan_piece(void *arg, const uint8_t *dst, size_t done)
{
	struct scan *s = arg;
	s->off = scan_records(s->e, s->r, s->buf, dst, s->off, done);
}

/*
 * One pass over every ring.  Each ring is copied and released at once;
 * the buffers go out after the pass so the last one can carry the
 * FINISHED_ROUND that tells perf every ring was drained up to here.
 */
/*
 * Copy one ring into a pooled buffer that will go out at stream offset pos:
 * NULL when it had nothing.
 */
static struct psbuf *read_ring(struct engine *e, unsigned c, uint64_t pos)
{
	struct ring *r = &e->rings[c];
	if (!r->overwrite && !ring_ready(r))
		return NULL;
	/* Waits while sinks hold them all, until a stop is requested. */
	struct psbuf *b = pool_get(e->pools[c], &engine_stop_requested);
	if (!b)
		return NULL;
	size_t n;
	uint8_t *dst = psbuf_place(b, pos);
	struct scan sc = { .e = e, .r = r, .buf = b };
	if (r->overwrite) {
		/* The kernel must not write while the newest records are copied. */
		ioctl(r->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1);
		n = ring_read_backward(r, dst, b->cap - ROUND_BYTES, scan_piece, &sc);
		ioctl(r->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0);
	} else {
		n = ring_read(r, dst, b->cap - ROUND_BYTES, scan_piece, &sc);
	}
	if (!n) {
		psbuf_put(&b->pub);
		return NULL;
	}
	b->pub.len = n;
	b->pub.kind = PERFSINK_BUF_RING;
	b->pub.cpu = r->cpu;
	e->ring_bytes += n;
	e->seg_bytes += n;
	return b;
}

bool drain_has_data(const struct engine *e)
{
	for (unsigned c = 0; c < e->nr_rings; c++)
		if (!e->rings[c].overwrite && ring_ready(&e->rings[c]))
			return true;
	return false;
}

int drain_pass(struct engine *e)
{
	struct psbuf *batch[e->nr_rings];
	unsigned k = 0;
	uint64_t pos = e->seg_stream;
	for (unsigned c = 0; c < e->nr_rings; c++) {
		struct psbuf *b = read_ring(e, c, pos);
		if (b) {
			batch[k++] = b;
			pos += b->pub.len;
		}
	}
	if (!k)
		return 0;
	struct psbuf *last = batch[k - 1];
	struct perf_event_header round = { .type = PS_RECORD_FINISHED_ROUND, .size = ROUND_BYTES };
	memcpy((uint8_t *)last->pub.data + last->pub.len, &round, sizeof(round));
	last->pub.len += ROUND_BYTES;
	last->pub.tail_round = ROUND_BYTES;
	last->pub.records++;
	int ret = 0;
	for (unsigned i = 0; i < k; i++) {
		int r = drain_dispatch(e, batch[i]);
		if (r < 0 && !ret)
			ret = r;
	}
	return ret ? ret : (int)k;
}

/* perf 6.1 puts the kernel's per-event loss count (PERF_FORMAT_LOST) here. */
/* u64s that read() of one counter returns (no GROUP): value, times, ID, LOST. */
static unsigned read_words(uint64_t read_format)
{
	return 3 + !!(read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) +
	       !!(read_format & PERF_FORMAT_TOTAL_TIME_RUNNING);
}

int drain_lost_samples(struct engine *e)
{
	struct ps_evlist *evl = &e->evl;
	struct bytes b;
	bytes_init(&b);
	for (unsigned ev = 0; ev < evl->nr; ev++) {
		for (unsigned c = 0; c < evl->nr_cpus; c++) {
			for (unsigned t = 0; t < evl->nr_threads; t++) {
				int fd = evl->ev[ev].fds[c * evl->nr_threads + t];
				/* value, [enabled], [running] (-s, --running-time), id, lost */
				uint64_t v[5];
				unsigned n = read_words(evl->ev[ev].attr.read_format);
				if (fd < 0 || read(fd, v, n * 8) != (ssize_t)(n * 8) || !v[n - 1])
					continue;
				e->lost_samples += v[n - 1];
				size_t at = record_begin(&b, PERF_RECORD_LOST_SAMPLES, 0);
				bytes_u64(&b, v[n - 1]);
				struct ps_sample_id sid = { .id = v[n - 2], .cpu = (uint32_t)evl->cpus[c] };
				record_end(&b, at, &evl->events, &sid);
			}
		}
	}
	int r = drain_dispatch_bytes(e, &b);
	bytes_free(&b);
	return r;
}
