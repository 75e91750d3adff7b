/* recover: see recover.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <perfsink/kit.h>
#include "probe/dso_set.h"
#include "probe/machine.h"
#include "engine/evlist.h"
#include "format/perf_file.h"
#include "format/record.h"
#include "recover/recover.h"
#include "recover/recover_check.h"
#include "recover/recover_feat.h"
#include "recover/recover_scan.h"
#include "recover/recover_write.h"
#include "format/stream.h"
#include "probe/tracing_data.h"

#define FILE_ATTR_TAIL 16   /* the ids {offset, size} after each attr */

/* What the header of the file says; map covers the whole file. */
struct pfile {
	int fd;
	struct stat st;
	const uint8_t *map;
	uint64_t size;
	uint64_t attr_size, attrs_off, attrs_size, data_off, data_size;
	uint64_t bits[PERF_FILE_FEAT_BITS / 64];
	struct rc_events ev; /* the attrs as perf reads them */
};

static uint64_t u64_at(const struct pfile *f, uint64_t off)
{
	uint64_t v;
	memcpy(&v, f->map + off, sizeof(v));
	return v;
}

static bool within(const struct pfile *f, uint64_t off, uint64_t len)
{
	return off <= f->size && len <= f->size - off;
}

static int header_read(struct pfile *f, char *err, size_t n)
{
	if (f->size < 16 || u64_at(f, 0) != PERF_FILE_MAGIC) {
		snprintf(err, n, "not a perf.data file (no PERFILE2 magic)");
		return -EINVAL;
	}
	uint64_t hsize = u64_at(f, 8);
	if (hsize == 16) {
		snprintf(err, n, "a pipe-mode stream: it has no header to repair (perf reads it as it is)");
		return -EINVAL;
	}
	if (hsize != PERF_FILE_HEADER_SIZE || f->size < PERF_FILE_HEADER_SIZE) {
		snprintf(err, n, "header damaged (size %llu, file %llu bytes)",
			 (unsigned long long)hsize, (unsigned long long)f->size);
		return -EINVAL;
	}
	f->attr_size = u64_at(f, 16);
	f->attrs_off = u64_at(f, 24);
	f->attrs_size = u64_at(f, 32);
	f->data_off = u64_at(f, 40);
	f->data_size = u64_at(f, PERF_FILE_DATA_SIZE_OFFSET);
	memcpy(f->bits, f->map + PERF_FILE_FEATURES_OFFSET, sizeof(f->bits));
	if (f->data_off < PERF_FILE_HEADER_SIZE || f->data_off > f->size) {
		snprintf(err, n, "header damaged (data offset %llu)", (unsigned long long)f->data_off);
		return -EINVAL;
	}
	/* The attrs as perf 6.1 reads them: repaired or not, the file keeps them. */
	const struct rc_layout l = { f->attr_size, f->attrs_off, f->attrs_size, f->data_off };
	return rc_events_read(&f->ev, f->map, f->size, &l, err, n);
}

/* The name perfsink record gives the event: its -e spelling. */
static int event_name(struct ps_event *ev, char *err, size_t n)
{
	const struct perf_event_attr *a = &ev->attr;
	char buf[256];
	if (a->type == PERF_TYPE_TRACEPOINT) {
		int r = tracefs_event_by_id(a->config, &ev->tp_sys, &ev->tp_name);
		if (r < 0) {
			snprintf(err, n, "tracepoint id %llu is not in this machine's tracefs, and perf "
				 "needs its format: recover on the machine that recorded it",
				 (unsigned long long)a->config);
			return r;
		}
		snprintf(buf, sizeof(buf), "%s:%s", ev->tp_sys, ev->tp_name);
	} else {
		const char *base = evlist_event_name(a->type, a->config);
		const char *mod = a->exclude_kernel && !a->exclude_user ? ":u"
				  : a->exclude_user && !a->exclude_kernel ? ":k" : "";
		if (base)
			snprintf(buf, sizeof(buf), "%s%s", base, mod);
		else
			snprintf(buf, sizeof(buf), "type%u/config=%#llx/%s", a->type,
				 (unsigned long long)a->config, mod);
	}
	ev->name = strdup(buf);
	return ev->name ? 0 : -ENOMEM;
}

static int event_load(const struct pfile *f, struct ps_event *ev, const uint8_t *fa, char *err,
		      size_t n)
{
	size_t asz = f->attr_size - FILE_ATTR_TAIL;
	memcpy(&ev->attr, fa, asz < sizeof(ev->attr) ? asz : sizeof(ev->attr));
	uint64_t ids_off, ids_size; /* checked by rc_events_read */
	memcpy(&ids_off, fa + asz, 8);
	memcpy(&ids_size, fa + asz + 8, 8);
	ev->nr_ids = (unsigned)(ids_size / 8);
	ev->ids = malloc(ids_size ? ids_size : 8);
	if (!ev->ids)
		return -ENOMEM;
	memcpy(ev->ids, f->map + ids_off, ids_size);
	return event_name(ev, err, n);
}

/*
 * perfsink's tracking event (evlist_track.c): a dummy after the given
 * events carrying their side-band bits, enabled at once system-wide.
 */
static bool is_tracking(const struct ps_evlist *evl, unsigned i)
{
	const struct perf_event_attr *a = &evl->ev[i].attr;
	return i > 0 && i == evl->nr - 1 && a->type == PERF_TYPE_SOFTWARE &&
	       a->config == PERF_COUNT_SW_DUMMY && (a->mmap || a->comm);
}

/*
 * Groups, for GROUP_DESC: perfsink disables every event but group members,
 * which follow their leader, so a member belongs to the nearest disabled
 * event before it; the tracking event, enabled when recording system-wide,
 * is in no group.  A group's NAME{} is not in the attrs: {anon_group}.
 */
static void groups_infer(struct ps_evlist *evl)
{
	unsigned lead = 0;

	for (unsigned i = 0; i < evl->nr; i++) {
		if (evl->ev[i].tracking)
			break;
		if (evl->ev[i].attr.disabled || i == 0) {
			lead = i;
			continue;
		}
		evl->ev[i].leader_off = i - lead;
		evl->ev[lead].nr_members = evl->ev[lead].nr_members ? evl->ev[lead].nr_members + 1 : 2;
	}
}

static int events_load(const struct pfile *f, struct ps_evlist *evl, char *err, size_t n)
{
	unsigned nr = (unsigned)(f->attrs_size / f->attr_size);
	memset(evl, 0, sizeof(*evl));
	evl->ev = calloc(nr, sizeof(*evl->ev));
	if (!evl->ev)
		return -ENOMEM;
	for (unsigned i = 0; i < nr; i++) {
		evl->nr = i + 1;
		int r = event_load(f, &evl->ev[i], f->map + f->attrs_off + i * f->attr_size, err, n);
		if (r < 0)
			return r;
		if (evl->ev[i].tp_sys)
			evl->has_tracepoint = true;
	}
	if (nr && is_tracking(evl, nr - 1)) {
		struct ps_event *t = &evl->ev[nr - 1];
		char *name = strdup("dummy:HG"); /* the name evlist_track.c gives it */
		if (!name)
			return -ENOMEM;
		free(t->name);
		t->name = name;
		t->tracking = true;
	}
	groups_infer(evl);
	evl->sample_type = evl->ev[0].attr.sample_type;
	evl->sample_id_all = evl->ev[0].attr.sample_id_all;
	return 0;
}

/* Offset of TIME in a SAMPLE, when every attr puts it at the same place; else 0. */
static unsigned sample_time_off(const struct ps_evlist *evl)
{
	const uint64_t lead = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	uint64_t st = evl->ev[0].attr.sample_type;
	for (unsigned i = 1; i < evl->nr; i++)
		if ((evl->ev[i].attr.sample_type & lead) != (st & lead))
			return 0;
	if (!(st & PERF_SAMPLE_TIME))
		return 0;
	return 8 + 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) +
			!!(st & PERF_SAMPLE_TID));
}

static unsigned bits_count(const uint64_t *bits)
{
	unsigned n = 0;
	for (unsigned i = 0; i < PERF_FILE_FEAT_BITS / 64; i++)
		n += (unsigned)__builtin_popcountll(bits[i]);
	return n;
}

/*
 * Finished by its writer, and all of it as perf 6.1 reads it: features
 * announced, each one perf processes well formed (recover_feat.h),
 * data.size on the last record, every record one perf reads
 * (recover_check.h; COMPRESSED ones decompressed).  Anything less is
 * repaired as a cut file is.
 */
static bool is_complete(const struct pfile *f, char *why, size_t n)
{
	uint64_t idx = f->data_off + f->data_size;
	if (!bits_count(f->bits) || !f->data_size || !within(f, f->data_off, f->data_size)) {
		snprintf(why, n, "%s", !f->data_size ? "data.size is 0" : "no features, or data.size "
			 "past the end of the file");
		return false;
	}
	struct rscan_opts o = { .file = f->map, .start = f->data_off, .limit = idx,
				.check_compressed = true, .ev = &f->ev };
	struct rscan_result r;
	if (rscan_walk(&o, &r) != 0 || r.end != idx) {
		snprintf(why, n, "the records end before data.size: at %s", r.stop);
		return false;
	}
	const struct rc_feat_in in = { f->map, f->size, idx, f->bits, &f->ev, r.max_decomp };
	return rc_features(&in, why, n) == 0;
}

static uint32_t ratio_of(uint64_t in, uint64_t out)
{
	return out ? (uint32_t)((in + out / 2) / out) : 0;
}

/* What the rebuild derives, owned together. */
struct derived {
	struct ps_evlist evl;
	struct dso_set dsos;
	struct bytes tracing, build_ids;
	struct ps_machine machine;
	struct perfsink_bytes feat;
};

static void derived_free(struct derived *d)
{
	evlist_free(&d->evl);
	dso_set_free(&d->dsos);
	bytes_free(&d->tracing);
	bytes_free(&d->build_ids);
	machine_free(&d->machine);
	perf_bytes_free(&d->feat);
}

static int tracing_build(struct derived *d, char *err, size_t n)
{
	int r = evlist_tracing_data(&d->evl, &d->tracing);
	if (r < 0)
		snprintf(err, n, "cannot build TRACING_DATA from tracefs: %s", strerror(-r));
	return r;
}

/* Features for the records of r, as the engine would have written them at the end. */
static int features_build(struct derived *d, const struct pfile *f, const struct rscan_result *r,
			  uint64_t data_size, const char *path, uint64_t bits[PERF_FILE_FEAT_BITS / 64])
{
	char *argv[] = { (char *)"recover", (char *)path, NULL };
	struct perfsink_stream_priv priv = {
		.events = &d->evl.events, .argc = 2, .argv = argv, .tracing_data = &d->tracing,
		.build_ids = &d->build_ids, .machine = &d->machine, .samples = r->samples,
		.first_sample_time = r->first_time, .last_sample_time = r->last_time,
	};
	struct perfsink_stream s = { .nr_events = d->evl.nr, .priv = &priv };
	struct perfsink_compression comp = {
		1, 1, ratio_of(r->decomp_bytes, r->comp_bytes), (uint32_t)r->max_decomp,
	};
	const struct perfsink_compression *c = r->compressed ? &comp : NULL;
	struct perfsink_file_end end = { f->data_off, data_size, c };
	int err = dso_set_build_ids(&d->dsos, &d->build_ids);
	if (!err)
		err = machine_read(&d->machine);
	/* Free memory now says nothing of the recording, and would make two
	 * recoveries of one file differ. */
	if (!err)
		machine_forget_free_memory(&d->machine);
	if (!err)
		err = perf_file_features(&s, &end, &d->feat);
	if (!err) {
		memset(bits, 0, PERF_FILE_FEAT_BITS / 8);
		perf_file_feature_bits(&s, c, bits);
	}
	return err;
}

/*
 * The bytes after the records kept: the features, after one FINISHED_ROUND
 * when no record was kept (perf refuses data.size 0 but reads an empty
 * recording: a flight-recorder output killed before its dump).
 */
static int tail_build(struct derived *d, const struct pfile *f, const struct rscan_result *r,
		      const char *path, uint64_t *data_size, uint64_t bits[PERF_FILE_FEAT_BITS / 64])
{
	const struct perf_event_header round = { PERFSINK_RECORD_FINISHED_ROUND, 0, sizeof(round) };
	*data_size = r->end - f->data_off;
	bool empty = *data_size == 0;
	if (empty)
		*data_size = sizeof(round);
	int err = features_build(d, f, r, *data_size, path, bits);
	if (err || !empty)
		return err;
	struct bytes t;
	bytes_init(&t);
	bytes_add(&t, &round, sizeof(round));
	bytes_add(&t, d->feat.data, d->feat.len);
	if (t.err)
		return t.err;
	perf_bytes_free(&d->feat);
	d->feat.data = bytes_steal(&t, &d->feat.len);
	return 0;
}

static int rebuild(struct pfile *f, const char *path, const char *out,
		   struct recover_report *rep, char *err, size_t n)
{
	struct derived d = { 0 };
	dso_set_init(&d.dsos);
	int r = events_load(f, &d.evl, err, n);
	if (!r && (r = evlist_describe(&d.evl)) < 0)
		snprintf(err, n, "out of memory");
	if (!r)
		r = tracing_build(&d, err, n);
	struct rscan_opts o = { f->map, f->data_off, f->size, true, 0, &d.dsos, &f->ev };
	struct rscan_result sr;
	if (!r) {
		o.time_off = sample_time_off(&d.evl);
		r = rscan_walk(&o, &sr);
		if (r == -ENOTSUP)
			snprintf(err, n, "it holds COMPRESSED records and perfsink was built without libzstd");
	}
	uint64_t bits[PERF_FILE_FEAT_BITS / 64], size = 0;
	if (!r && (r = tail_build(&d, f, &sr, path, &size, bits)) < 0)
		snprintf(err, n, "cannot build the features: %s", strerror(-r));
	if (!r) {
		struct rw_patch p[] = {
			{ PERF_FILE_DATA_SIZE_OFFSET, &size, sizeof(size) },
			{ PERF_FILE_FEATURES_OFFSET, bits, sizeof(bits) },
		};
		r = recover_write(f->fd, &f->st, sr.end, p, 2, d.feat.data, d.feat.len,
				  out ? out : path, err, n);
		*rep = (struct recover_report){
			.data_size_before = f->data_size, .data_size = size, .records = sr.records,
			.bytes_cut = f->size - sr.end, .features = bits_count(bits),
			.compressed = sr.compressed, .max_decomp = sr.max_decomp,
			.samples = sr.samples, .stop = sr.stop,
		};
	}
	derived_free(&d);
	return r;
}

static int file_open(struct pfile *f, const char *path, char *err, size_t n)
{
	/* A FIFO planted where the file was expected must not hang recover. */
	f->fd = perfsink_kit_input_open(AT_FDCWD, path, "read it", err, n);
	if (f->fd < 0)
		return f->fd;
	if (fstat(f->fd, &f->st) < 0) {
		int e = errno;
		snprintf(err, n, "%s", strerror(e));
		return -e;
	}
	f->size = (uint64_t)f->st.st_size;
	if (f->size < 16) {
		snprintf(err, n, "not a perf.data file (%llu bytes)", (unsigned long long)f->size);
		return -EINVAL;
	}
	void *m = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, f->fd, 0);
	if (m == MAP_FAILED) {
		int e = errno;
		snprintf(err, n, "cannot map it: %s", strerror(e));
		return -e;
	}
	f->map = m;
	return 0;
}

int recover_file(const char *path, const char *out, struct recover_report *rep, char *err,
		 size_t errlen)
{
	struct pfile f = { .fd = -1 };
	char why[sizeof(rep->not_complete)] = "";
	memset(rep, 0, sizeof(*rep));
	int r = file_open(&f, path, err, errlen);
	if (!r)
		r = header_read(&f, err, errlen);
	if (!r && is_complete(&f, why, sizeof(why))) {
		rep->complete = 1;
		rep->data_size_before = rep->data_size = f.data_size;
		if (out)
			r = recover_write(f.fd, &f.st, f.size, NULL, 0, NULL, 0, out, err, errlen);
	} else if (!r) {
		r = rebuild(&f, path, out, rep, err, errlen);
		memcpy(rep->not_complete, why, sizeof(why));
	}
	rc_events_free(&f.ev);
	if (f.map)
		munmap((void *)f.map, f.size);
	if (f.fd >= 0)
		close(f.fd);
	return r;
}
