/* What every output begins with, and when one output ends and the next begins (output.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <perfsink/kit.h>
#include "engine/output.h"
#include "base/log.h"
#include "config/opts.h"
#include "engine/drain.h"
#include "engine/evlist.h"
#include "engine/now.h"
#include "engine/sinkset.h"
#include "probe/bpf_progs.h"
#include "probe/dso_set.h"
#include "probe/machine.h"
#include "probe/synth.h"

struct segment {
	struct perfsink_stream stream;
	struct perfsink_stream_priv priv;
	struct segment *prev;
};

/* ------------------------------------------------------------ setup */

static void make_session_id(char *out, size_t n)
{
	uint8_t rnd[8] = { 0 };
	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
		uint64_t t = (uint64_t)engine_now_ns(CLOCK_MONOTONIC) ^ (uint64_t)getpid();
		memcpy(rnd, &t, sizeof(rnd));
	}
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	char stamp[20];
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(out, n, "%s-%02x%02x%02x%02x%02x%02x", stamp, rnd[0], rnd[1], rnd[2], rnd[3],
		 rnd[4], rnd[5]);
}

static uint32_t stream_flags(const struct record_opts *o)
{
	uint32_t flags = 0;
	if (o->switch_output != SWITCH_NONE || o->overwrite)
		flags |= PERFSINK_STREAM_ROTATING;
	if (o->overwrite)
		flags |= PERFSINK_STREAM_OVERWRITE;
	return flags;
}

/* -k: the clock's resolution and a reading of it next to the wall clock, as perf's record__init_clock. */
static void clock_read(struct ps_clock *c, int clockid)
{
	struct timespec res, ref;
	struct timeval tod;

	c->clockid = (int32_t)clockid;
	c->clockid_res_ns = clock_getres(clockid, &res) == 0
		? (uint64_t)res.tv_sec * 1000000000 + (uint64_t)res.tv_nsec : 0;
	gettimeofday(&tod, NULL);
	clock_gettime(clockid, &ref);
	c->tod_ns = (uint64_t)tod.tv_sec * 1000000000 + (uint64_t)tod.tv_usec * 1000;
	c->clockid_ns = (uint64_t)ref.tv_sec * 1000000000 + (uint64_t)ref.tv_nsec;
}

/* The first output's stream, and the whole run's as sinks with rotate = false see it. */
static void first_stream(struct output *out, const struct ps_evlist *evl,
			 const struct output_shape *shape, int argc, char **argv)
{
	struct segment *s = out->seg;
	s->priv = (struct perfsink_stream_priv){
		.events = &evl->events, .argc = argc, .argv = argv, .tracing_data = &out->tracing,
		.machine = &out->machine, .bpf = &out->bpf, .pool_regions = shape->pool_regions,
		.nr_pool_regions = shape->nr_pool_regions,
	};
	if (out->o->pf.clockid >= 0) {
		clock_read(&out->clock, out->o->pf.clockid);
		s->priv.clock = &out->clock;
	}
	s->stream = (struct perfsink_stream){
		.nr_events = evl->nr,
		.event_names = out->names,
		.nr_rings = shape->nr_rings,
		.nr_buffers = shape->nr_buffers,
		.buffer_size = shape->buffer_size,
		.ring_mmap_len = shape->ring_mmap_len,
		.session = out->session,
		.host_name = out->hostname,
		.start_realtime_ns = engine_now_ns(CLOCK_REALTIME),
		.priv = &s->priv,
		.max_files = out->o->switch_max_files,
		.flags = stream_flags(out->o),
	};
	out->seg_start_ns = engine_now_ns(CLOCK_MONOTONIC);
	out->whole_priv = s->priv;
	out->whole = s->stream;
	out->whole.priv = &out->whole_priv;
	out->whole.flags &= ~PERFSINK_STREAM_ROTATING;
	out->whole.max_files = 0;
}

int output_init(struct output *out, const struct record_opts *o, const struct ps_evlist *evl,
		struct sinkset *ss, const struct output_shape *shape, pid_t workload,
		int argc, char **argv)
{
	*out = (struct output){ .o = o, .events = &evl->events, .ss = ss,
				.system_wide = evl->system_wide };
	out->target = o->pid ? o->pid : o->tid ? o->tid : workload;
	out->names = calloc(evl->nr, sizeof(*out->names));
	if (!out->names)
		return -ENOMEM;
	for (unsigned i = 0; i < evl->nr; i++)
		out->names[i] = evl->ev[i].name;
	int r = evlist_tracing_data(evl, &out->tracing);
	if (r < 0)
		return r;
	if ((r = machine_read(&out->machine)) < 0)
		return r;
	struct utsname u;
	if (uname(&u) == 0)
		snprintf(out->hostname, sizeof(out->hostname), "%s", u.nodename);
	make_session_id(out->session, sizeof(out->session));
	out->seg = calloc(1, sizeof(*out->seg));
	if (!out->seg)
		return -ENOMEM;
	first_stream(out, evl, shape, argc, argv);
	return 0;
}

void output_free(struct output *out)
{
	bytes_free(&out->tracing);
	machine_free(&out->machine);
	bpf_info_free(&out->bpf);
	bytes_free(&out->tail_synth);
	bytes_free(&out->build_ids);
	free(out->names);
	out->names = NULL;
	while (out->seg) {
		struct segment *prev = out->seg->prev;
		free(out->seg);
		out->seg = prev;
	}
}

int output_start(struct output *out)
{
	return sinkset_start(out->ss, &out->seg->stream, &out->whole);
}

/* ------------------------------------------------------ synthesized */

/* The records of the target's tasks as they are now. */
static int synth_target(struct output *out, struct bytes *b, bool initial, bool target_gone)
{
	if (out->system_wide)
		return synth_all_processes(b, out->events, (unsigned)out->o->pf.proc_map_timeout_ms);
	const struct record_opts *o = out->o;
	if (initial && !o->pid && !o->tid) {
		/* Not exec'd yet: its exec brings COMM and MMAPs through the ring. */
		synth_comm(b, out->events, out->target, out->target, "perfsink-exec");
		synth_namespaces(b, out->events, out->target, out->target);
		return 0;
	}
	if (target_gone)
		return 0; /* gone: the ring or the overwrite cache has its records */
	return synth_process(b, out->events, out->target);
}

/*
 * Records that let perf resolve symbols, at the start of every output.
 * With --overwrite they go with each dump instead (perf's
 * --tail-synthesize), since the ring has long overwritten the originals.
 */
/* Every event excludes the kernel (:u, or the non-root fallback): no kernel symbols needed. */
static bool user_only(const struct ps_events *ev)
{
	for (unsigned i = 0; i < ev->nr; i++)
		if (!ev->ev[i].attr.exclude_kernel)
			return false;
	return true;
}

static bool has_mmap2(const struct bytes *b)
{
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec r;
	perfsink_kit_rec_iter_init(&it, b->p, b->len);
	while (perfsink_kit_rec_next(&it, &r))
		if (r.type == PERF_RECORD_MMAP2)
			return true;
	return false;
}

/*
 * A cut while the target exits finds no maps (/proc/PID/maps is empty once
 * its memory is released), yet its last samples are still in the rings and
 * go to the new output: that output gets the maps the target had at the
 * last cut that found some.  b[from, len) is what the cut synthesized.
 */
static void rotation_tail(struct output *out, struct bytes *b, size_t from)
{
	if (out->system_wide || out->o->overwrite || b->err)
		return;
	const struct bytes got = { .p = b->p + from, .len = b->len - from };
	if (has_mmap2(&got)) {
		bytes_free(&out->tail_synth);
		bytes_add(&out->tail_synth, got.p, got.len);
	} else if (out->tail_synth.len && !out->tail_synth.err) {
		bytes_add(b, out->tail_synth.p, out->tail_synth.len);
	}
}

void output_synthesize(struct output *out, bool initial, bool target_gone, struct bytes *b)
{
	int r = synth_kernel_mmap(b, out->events);
	if (r < 0 && initial && !user_only(out->events))
		pr_warn("kernel symbols will not resolve: cannot read /proc/kallsyms (%s)", strerror(-r));
	/* As perf: KSYMBOL and BPF_EVENT for the BPF programs already loaded. */
	r = bpf_progs_read(&out->bpf, b, out->events);
	if (r < 0 && r != -EPERM && r != -ENOSYS && initial)
		pr_warn("BPF programs: %s; samples in them will not resolve", strerror(-r));
	size_t from = b->len;
	r = synth_target(out, b, initial, target_gone);
	if (r < 0 && initial)
		pr_warn("existing tasks: %s; some samples may not resolve to symbols", strerror(-r));
	rotation_tail(out, b, from);
	if (out->o->overwrite && out->tail_synth.len)
		bytes_add(b, out->tail_synth.p, out->tail_synth.len);
	synth_finished_init(b);
}

/* --overwrite, one task: keep its latest maps, for a dump after it exited. */
void output_refresh_tail(struct output *out, bool target_gone)
{
	if (!out->o->overwrite || out->system_wide || target_gone)
		return;
	struct bytes b;
	bytes_init(&b);
	/* A zombie has no maps left: keep the last snapshot that had some. */
	if (synth_process(&b, out->events, out->target) == 0 && !b.err && has_mmap2(&b)) {
		bytes_free(&out->tail_synth);
		out->tail_synth = b;
	} else {
		bytes_free(&b);
	}
}

/* ------------------------------------------------------------- cuts */

static void time_range_add(struct perfsink_stream_priv *sp, const struct drain_seen *s)
{
	if (!sp->samples || s->first_time < sp->first_sample_time)
		sp->first_sample_time = s->first_time;
	if (s->last_time > sp->last_sample_time)
		sp->last_sample_time = s->last_time;
	sp->samples += s->samples;
}

void output_count(struct output *out, const struct drain_seen *seen)
{
	out->seg_bytes += seen->ring_bytes;
	if (!seen->samples)
		return;
	time_range_add(&out->seg->priv, seen);
	time_range_add(&out->whole_priv, seen);
}

void output_build_ids_update(struct output *out, struct dso_set *dsos)
{
	/* With the programs loaded since the start for BPF_PROG_INFO (those
	 * unloaded already came through their BPF_EVENT, see drain.c). */
	bpf_progs_read(&out->bpf, NULL, NULL);
	output_build_ids_refresh(out, dsos);
}

void output_build_ids_refresh(struct output *out, struct dso_set *dsos)
{
	if (out->o->no_buildid)
		return; /* -B: no BUILD_ID feature, as perf record -B */
	if (dso_set_build_ids(dsos, &out->build_ids) == 0) {
		out->seg->priv.build_ids = &out->build_ids;
		out->whole_priv.build_ids = &out->build_ids;
	}
}

/* Size or time reached (SIGUSR2 is the session's, handled at once). */
static bool rotation_due(const struct output *out)
{
	const struct record_opts *o = out->o;
	if (o->switch_output == SWITCH_SIZE)
		return out->seg_bytes >= o->switch_size;
	if (o->switch_output == SWITCH_TIME)
		return engine_now_ns(CLOCK_MONOTONIC) - out->seg_start_ns >= (int64_t)o->switch_ms * 1000000;
	return false;
}

bool output_check_due(struct output *out)
{
	if (rotation_due(out))
		out->cut_waiting = true;
	return out->cut_waiting;
}

void output_clear_waiting(struct output *out)
{
	out->cut_waiting = false;
}

/*
 * Everything dispatched so far is in the old output, everything after goes
 * to the new one, so nothing is lost or duplicated across the cut.
 */
int output_cut(struct output *out, struct dso_set *dsos, bool *began)
{
	out->cut_waiting = false;
	*began = false;
	struct segment *nx = calloc(1, sizeof(*nx));
	if (!nx)
		return -ENOMEM;
	output_build_ids_update(out, dsos); /* for the output being finished */
	nx->priv = out->seg->priv;
	nx->priv.samples = nx->priv.first_sample_time = nx->priv.last_sample_time = 0;
	nx->stream = out->seg->stream;
	nx->stream.segment++;
	nx->stream.start_realtime_ns = engine_now_ns(CLOCK_REALTIME);
	nx->stream.priv = &nx->priv;
	nx->prev = out->seg;
	int r = sinkset_rotate(out->ss, &nx->stream);
	out->seg = nx;
	out->seg_bytes = 0;
	out->seg_start_ns = engine_now_ns(CLOCK_MONOTONIC);
	out->rotations++;
	*began = true;
	return r;
}
