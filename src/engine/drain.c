/* Rings to pooled buffers to sinks: the hot path of the engine (drain.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <perfsink/kit.h>
#include "engine/drain.h"
#include "config/opts.h"
#include "engine/evlist.h"
#include "engine/pool.h"
#include "engine/record_fix.h"
#include "engine/ring.h"
#include "engine/sinkset.h"
#include "format/record.h"
#include "probe/bpf_progs.h"

/* ---------------------------------------------------------- rings */

/* Map CPU c's ring on its first event and redirect the others into it; returns the fd polled. */
static int map_cpu(struct drainer *d, const struct record_opts *o, unsigned c, char *err,
		   size_t errlen)
{
	const struct ps_evlist *evl = d->evl;
	int leader = -1, r = 0;
	for (unsigned ev = 0; ev < evl->nr && r == 0; ev++) {
		for (unsigned t = 0; t < evl->nr_threads; t++) {
			int fd = evl->ev[ev].fds[c * evl->nr_threads + t];
			if (fd < 0)
				continue;
			if (leader < 0) {
				/* The kernel redirects only into a ring that is mapped already. */
				leader = fd;
				r = ring_map(&d->rings[c], leader, evl->cpus[c], o->mmap_pages, o->overwrite);
				if (r < 0)
					break;
				continue;
			}
			/* Every other event of this CPU writes into the leader's ring. */
			if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, leader) < 0) {
				snprintf(err, errlen, "cannot redirect event '%s' on CPU %d into one ring: %s",
					 evl->ev[ev].name, evl->cpus[c], strerror(errno));
				return -errno;
			}
		}
	}
	if (leader < 0)
		r = -ENODEV;
	if (r < 0)
		snprintf(err, errlen, "cannot map the ring of CPU %d (%u pages): %s%s", evl->cpus[c],
			 o->mmap_pages, strerror(-r),
			 r == -EPERM ? "; lower -m or raise /proc/sys/kernel/perf_event_mlock_kb" : "");
	return r;
}

/* Bytes of the u64 fields perf puts after STACK_USER; -1 when one varies in size. */
static int stack_tail(uint64_t st, uint32_t *tail)
{
	static const uint64_t fixed = PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT |
		PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_PHYS_ADDR |
		PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE;

	*tail = 8 * (uint32_t)__builtin_popcountll(st & fixed);
	return (st & (PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_AUX)) ? -1 : 0;
}

int drainer_init(struct drainer *d, const struct record_opts *o, const struct ps_evlist *evl,
		 struct sinkset *ss, const atomic_int *stop, char *err, size_t errlen)
{
	*d = (struct drainer){ .evl = evl, .ss = ss, .stop = stop };
	dso_set_init(&d->dsos);
	d->dsos.live = true; /* build-ids of containers' files through /proc/PID/root */
	/* Which DSOs samples fell in: what symbol shipping needs (else all count). */
	(void)dso_set_track_hits(&d->dsos);
	/* The time of an MMAP, FORK or exec, for a sample read before it. */
	d->dsos.id_time_back = evl->sample_id_all ? record_id_time_back(evl->sample_type) : 0;
	sample_layout_init(&d->layout, evl->events.ev, evl->events.nr); /* where call chains are */
	/* SAMPLE: header, [IDENTIFIER], IP, TID, TIME. */
	d->time_off = 8 + ((evl->sample_type & PERF_SAMPLE_IDENTIFIER) ? 8 : 0) + 16;
	d->stack_user = evl->stack_user; /* 0 when events sample different stacks */
	for (unsigned i = 0; i < evl->nr; i++) {
		const struct perf_event_attr *a = &evl->ev[i].attr;
		if ((a->ksymbol || a->bpf_event) && a->sample_id_all)
			d->ksym_id_size = record_id_size(a->sample_type);
	}
	if (stack_tail(evl->ev[0].attr.sample_type, &d->stack_tail) < 0)
		d->stack_user = 0; /* REGS_INTR's size varies: no cut count */
	d->nr_rings = evl->nr_cpus;
	d->rings = calloc(d->nr_rings, sizeof(*d->rings));
	d->pools = calloc(d->nr_rings, sizeof(*d->pools));
	d->batch = calloc(d->nr_rings ? d->nr_rings : 1, sizeof(*d->batch));
	if (!d->rings || !d->pools || !d->batch)
		return -ENOMEM;
	for (unsigned c = 0; c < d->nr_rings; c++) {
		int r = map_cpu(d, o, c, err, errlen);
		if (r < 0)
			return r;
		r = pool_create(o->aio, d->rings[c].size + DRAIN_ROUND_BYTES, &d->pools[c]);
		if (r < 0) {
			snprintf(err, errlen, "cannot allocate %u buffers of %llu bytes", o->aio,
				 (unsigned long long)d->rings[c].size);
			return r;
		}
	}
	return 0;
}

void drainer_free(struct drainer *d)
{
	for (unsigned c = 0; d->rings && c < d->nr_rings; c++) {
		ring_unmap(&d->rings[c]);
		pool_release(d->pools[c]);
	}
	free(d->rings);
	free(d->pools);
	free(d->batch);
	d->rings = NULL;
	d->pools = NULL;
	d->batch = NULL;
	dso_set_free(&d->dsos);
}

size_t drainer_buffer_size(const struct drainer *d)
{
	return d->rings[0].size + DRAIN_ROUND_BYTES;
}

int drainer_pool_regions(const struct drainer *d, struct perfsink_region **out, unsigned *n)
{
	unsigned total = 0;
	for (unsigned c = 0; c < d->nr_rings; c++)
		total += pool_regions(d->pools[c], NULL, 0);
	*out = calloc(total ? total : 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	*n = 0;
	for (unsigned c = 0; c < d->nr_rings; c++)
		*n += pool_regions(d->pools[c], *out + *n, total - *n);
	return 0;
}

/* -------------------------------------------------------- dispatch */

/* Hand one buffer to every sink and drop the drainer's reference. */
static int dispatch_one(struct drainer *d, struct psbuf *b)
{
	b->pub.seq = d->seq++;
	d->buffers++;
	d->stream_off += b->pub.len;
	int r = sinkset_write(d->ss, &b->pub, b->samples);
	psbuf_put(&b->pub);
	if (r < 0 && !d->error)
		d->error = r;
	return r;
}

int drainer_dispatch(struct drainer *d, struct drain_batch *b)
{
	int ret = 0;
	for (unsigned i = 0; i < b->n; i++) {
		int r = dispatch_one(d, b->buf[i]);
		if (r < 0 && !ret)
			ret = r;
	}
	b->n = 0;
	return ret;
}

/* COMM, FORK, MMAP and MMAP2 records (perfsink_buf.task_records). */
static inline bool task_record(uint32_t type)
{
	return type == PERF_RECORD_COMM || type == PERF_RECORD_FORK || type == PERF_RECORD_MMAP ||
	       type == PERF_RECORD_MMAP2;
}

int drainer_dispatch_bytes(struct drainer *d, const struct bytes *recs)
{
	if (recs->err)
		return recs->err;
	if (recs->len == 0)
		return 0;
	struct psbuf *b = heapbuf_new(recs->len);
	if (!b)
		return -ENOMEM;
	memcpy(psbuf_place(b, d->stream_off), recs->p, recs->len);
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec r;
	perfsink_kit_rec_iter_init(&it, recs->p, recs->len);
	while (perfsink_kit_rec_next(&it, &r)) {
		dso_set_record(&d->dsos, &r);
		b->pub.records++;
		b->pub.task_records += task_record(r.type);
	}
	b->pub.len = recs->len;
	b->pub.kind = PERFSINK_BUF_SYNTH;
	b->pub.cpu = -1;
	return dispatch_one(d, b);
}

void drainer_new_stream(struct drainer *d)
{
	d->seq = 0; /* buf->seq counts per stream */
	d->stream_off = 0;
}

/* -------------------------------------------------------- scanning */

static void seen_add(struct drain_seen *s, uint64_t n, uint64_t tmin, uint64_t tmax)
{
	if (!s->samples || tmin < s->first_time)
		s->first_time = tmin;
	if (tmax > s->last_time)
		s->last_time = tmax;
	s->samples += n;
}

/*
 * Whether a DWARF sample's stack copy reached the size asked: STACK_USER
 * ({size, data[size], dyn_size}) is followed by tail bytes of fixed-size
 * fields (DATA_SRC, ...; stack_tail), so dyn_size ends tail bytes before the
 * record does.  A copy that filled it most likely cut the stack short.
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
 * A user ip of sample rec in no file mapped yet: its own (frame NULL) or
 * the chain's frame at frame.  It waits for the MMAP or FORK another ring
 * may bring (dso_set_sample_wait), with the sample's time.  Out of line, all
 * read again from the record, so the walk keeps nothing alive across its
 * lookups for the rare miss.
 */
static __attribute__((noinline)) void sample_wait(struct drainer *d, const uint8_t *rec,
						    const uint8_t *frame)
{
	uint64_t ip, time;
	int32_t pid;

	memcpy(&time, rec + d->time_off, sizeof(time));
	memcpy(&pid, rec + d->time_off - 8, sizeof(pid));
	memcpy(&ip, frame ? frame : rec + d->time_off - 16, sizeof(ip));
	dso_set_sample_wait(&d->dsos, pid, ip, time);
}

/* Mark the DSOs the frames of the sample's call chain fell in (perf report
 * names them too).  Only what the record holds: a DWARF sample's stack
 * copy is not unwound here. */
static void chain_hit(struct drainer *d, const uint8_t *rec, uint16_t size, int32_t pid, unsigned mode)
{
	const struct perf_event_attr *a = sample_layout_attr(&d->layout, rec, size);
	size_t off = a ? sample_chain_off(a, rec, size) : 0;
	struct sample_chain c;
	uint64_t ip;

	if (!off)
		return;
	sample_chain_begin(&c, rec, size, off, mode);
	while (sample_chain_next(&c, &ip))
		if (__builtin_expect(dso_set_sample(&d->dsos, pid, ip, c.mode), 0))
			sample_wait(d, rec, c.p - 8);
}

/* What a walk counts, in locals: stores through the drainer's structs would alias the records. */
struct tally {
	uint64_t samples, tmin, tmax, cut;
	uint32_t records, tasks;
};

/*
 * A SAMPLE: its time into the range, a DWARF stack cut counted, the DSO
 * its ip fell in marked (every sample has IP and TID right before TIME,
 * evlist_build.c, so they sit just before time_off).
 */
static inline void on_sample(struct drainer *d, struct tally *t, const struct perfsink_kit_rec *r)
{
	uint64_t time, ip;
	int32_t pid;

	if (r->size < d->time_off + 8)
		return;
	memcpy(&time, r->p + d->time_off, sizeof(time));
	t->tmin = time < t->tmin ? time : t->tmin;
	t->tmax = time > t->tmax ? time : t->tmax;
	t->samples++;
	t->cut += stack_filled(d->stack_user, d->stack_tail, r->p, r->size);
	memcpy(&ip, r->p + d->time_off - 16, sizeof(ip));
	memcpy(&pid, r->p + d->time_off - 8, sizeof(pid));
	if (__builtin_expect(dso_set_sample(&d->dsos, pid, ip, r->misc & PERF_RECORD_MISC_CPUMODE_MASK), 0))
		sample_wait(d, r->p, NULL);
	if (d->layout.chains)
		chain_hit(d, r->p, r->size, pid, r->misc & PERF_RECORD_MISC_CPUMODE_MASK);
}

/*
 * Any other record: the files MMAPs name, the tasks, KSYMBOL/BPF_EVENT
 * sizes repaired (rec is the pooled buffer, ours to write: record_fix.h)
 * and BPF programs noted, the loss the kernel reports.
 */
static void on_side_band(struct drainer *d, struct ring *ring, struct tally *t,
			 const struct perfsink_kit_rec *r)
{
	uint64_t lost;

	switch (r->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		dso_set_record(&d->dsos, r);
		t->tasks++;
		break;
	case PERF_RECORD_KSYMBOL:
	case PERF_RECORD_BPF_EVENT:
		d->records_fixed += (unsigned)record_fix_size((uint8_t *)r->p, d->ksym_id_size);
		if (r->type == PERF_RECORD_BPF_EVENT && d->bpf)
			bpf_progs_event(d->bpf, r->p, r->size);
		break;
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
		t->tasks++;
		/* fall through */
	case PERF_RECORD_EXIT:
		dso_set_task(&d->dsos, r->p, r->type, r->misc, r->size);
		break;
	case PERF_RECORD_LOST:
		if (r->size < 24)
			break;
		memcpy(&lost, r->p + 16, sizeof(lost));
		d->lost_records++;
		d->lost_in_records += lost;
		ring->lost += lost;
		break;
	}
}

struct scan {
	struct drainer *d;
	struct ring *r;
	struct psbuf *buf;        /* records and samples counted into */
	struct drain_seen *seen;  /* the pass's samples and their times */
	size_t off;
};

/*
 * The drain's one walk: each whole record in p[s->off, len) counted (into
 * s->buf) and handed to its job; returns where it stopped (the start of a
 * record not wholly in yet).
 */
static size_t scan_records(struct scan *s, uint8_t *p, size_t len)
{
	struct drainer *d = s->d;
	struct tally t = { .tmin = UINT64_MAX };
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec r;

	perfsink_kit_rec_iter_init(&it, p, len);
	it.off = s->off;
	while (perfsink_kit_rec_next(&it, &r)) {
		t.records++;
		if (r.type == PERF_RECORD_SAMPLE)
			on_sample(d, &t, &r);
		else
			on_side_band(d, s->r, &t, &r);
	}
	d->stack_cut += t.cut;
	s->buf->pub.records += t.records;
	s->buf->pub.task_records += t.tasks;
	s->buf->samples += (uint32_t)t.samples;
	if (t.samples) {
		seen_add(s->seen, t.samples, t.tmin, t.tmax);
		d->samples += t.samples;
	}
	return it.off;
}

/* ring_piece_fn: walk the records of the piece just copied, while it is hot. */
static void scan_piece(void *arg, const uint8_t *dst, size_t done)
{
	struct scan *s = arg;
	/* dst is the pooled buffer, ours to repair (record_fix.h). */
	s->off = scan_records(s, (uint8_t *)dst, done);
}

/*
 * Copy one ring into a pooled buffer that will go out at stream offset pos:
 * NULL when it had nothing.
 */
static struct psbuf *read_ring(struct drainer *d, unsigned c, uint64_t pos, struct drain_seen *seen)
{
	struct ring *r = &d->rings[c];
	if (!r->overwrite && !ring_ready(r))
		return NULL;
	/* Waits while sinks hold them all, until a stop is requested. */
	struct psbuf *b = pool_get(d->pools[c], d->stop);
	if (!b)
		return NULL;
	size_t n;
	uint8_t *dst = psbuf_place(b, pos);
	struct scan sc = { .d = d, .r = r, .buf = b, .seen = seen };
	if (r->overwrite) {
		/* The kernel must not write while the newest records are copied. */
		ioctl(r->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1);
		n = ring_read_backward(r, dst, b->cap - DRAIN_ROUND_BYTES, scan_piece, &sc);
		ioctl(r->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0);
	} else {
		n = ring_read(r, dst, b->cap - DRAIN_ROUND_BYTES, scan_piece, &sc);
	}
	if (!n) {
		psbuf_put(&b->pub);
		return NULL;
	}
	b->pub.len = n;
	b->pub.kind = PERFSINK_BUF_RING;
	b->pub.cpu = r->cpu;
	d->ring_bytes += n;
	seen->ring_bytes += n;
	return b;
}

/* ----------------------------------------------------------- passes */

/*
 * Each ring is copied and released at once; the buffers go out after the
 * pass so the last one can carry the FINISHED_ROUND that tells perf every
 * ring was drained up to here.
 */
unsigned drainer_pass(struct drainer *d, struct drain_batch *b)
{
	*b = (struct drain_batch){ .buf = d->batch };
	uint64_t pos = d->stream_off;
	for (unsigned c = 0; c < d->nr_rings; c++) {
		struct psbuf *buf = read_ring(d, c, pos, &b->seen);
		if (buf) {
			b->buf[b->n++] = buf;
			pos += buf->pub.len;
		}
	}
	dso_set_pass_end(&d->dsos);
	if (!b->n)
		return 0;
	struct psbuf *last = b->buf[b->n - 1];
	struct perf_event_header round = { .type = PERFSINK_RECORD_FINISHED_ROUND, .size = DRAIN_ROUND_BYTES };
	memcpy((uint8_t *)last->pub.data + last->pub.len, &round, sizeof(round));
	last->pub.len += DRAIN_ROUND_BYTES;
	last->pub.tail_round = DRAIN_ROUND_BYTES;
	last->pub.records++;
	return b->n;
}

bool drainer_has_data(const struct drainer *d)
{
	for (unsigned c = 0; c < d->nr_rings; c++)
		if (!d->rings[c].overwrite && ring_ready(&d->rings[c]))
			return true;
	return false;
}

uint64_t drainer_unread_bytes(const struct drainer *d)
{
	uint64_t n = 0;
	for (unsigned c = 0; c < d->nr_rings; c++)
		if (!d->rings[c].overwrite)
			n += ring_ready(&d->rings[c]);
	return n;
}

uint64_t drainer_kernel_lost(const struct drainer *d)
{
	return d->lost_samples > d->lost_in_records ? d->lost_samples : d->lost_in_records;
}

/*
 * One LOST_SAMPLES per counter fd the kernel says lost samples
 * (PERF_FORMAT_LOST, read by evlist_fd_lost), with that fd's ID and CPU,
 * as perf 6.1 writes them at the end.
 */
int drainer_lost_samples(struct drainer *d)
{
	const struct ps_evlist *evl = d->evl;
	struct bytes b;
	bytes_init(&b);
	for (unsigned ev = 0; ev < evl->nr; ev++) {
		for (unsigned c = 0; c < evl->nr_cpus; c++) {
			for (unsigned t = 0; t < evl->nr_threads; t++) {
				uint64_t ids[EVLIST_LOST_MAX], lost[EVLIST_LOST_MAX];
				int n = evlist_fd_lost(&evl->ev[ev], c * evl->nr_threads + t, ids, lost);
				for (int k = 0; k < n; k++) {
					if (!lost[k])
						continue;
					d->lost_samples += lost[k];
					size_t at = record_begin(&b, PERF_RECORD_LOST_SAMPLES, 0);
					bytes_u64(&b, lost[k]);
					struct ps_sample_id sid = { .id = ids[k], .cpu = (uint32_t)evl->cpus[c] };
					record_end(&b, at, &evl->events, &sid);
				}
			}
		}
	}
	int r = drainer_dispatch_bytes(d, &b);
	bytes_free(&b);
	return r;
}
