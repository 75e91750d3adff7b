/* What every output begins with, and when one output ends and the next begins. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "engine/engine_priv.h"
#include "base/log.h"
#include "config/opts.h"
#include "probe/synth.h"

/* The records of the target's tasks as they are now. */
static int synth_target(struct engine *e, struct bytes *b, bool initial)
{
	if (e->evl.system_wide)
		return synth_all_processes(b, &e->evl.events, (unsigned)e->o->pf.proc_map_timeout_ms);
	pid_t pid = e->o->pid ? e->o->pid : e->o->tid ? e->o->tid : e->wl.pid;
	if (initial && !e->o->pid && !e->o->tid) {
		/* Not exec'd yet: its exec brings COMM and MMAPs through the ring. */
		synth_comm(b, &e->evl.events, pid, pid, "perfsink-exec");
		synth_namespaces(b, &e->evl.events, pid, pid);
		return 0;
	}
	if (e->wl.pid && e->child_done)
		return 0; /* gone: the ring or the overwrite cache has its records */
	return synth_process(b, &e->evl.events, pid);
}

/*
 * Records that let perf resolve symbols, at the start of every output:
 * kernel MMAP, the target's tasks, FINISHED_INIT.  With --overwrite they go
 * with each dump instead (perf's --tail-synthesize), since the ring has
 * long overwritten the originals.
 */
int segment_synthesize(struct engine *e, bool initial)
{
	struct bytes b;
	bytes_init(&b);
	int r = synth_kernel_mmap(&b, &e->evl.events);
	if (r < 0 && initial)
		pr_warn("kernel symbols will not resolve: cannot read /proc/kallsyms (%s)", strerror(-r));
	r = synth_target(e, &b, initial);
	if (r < 0 && initial)
		pr_warn("existing tasks: %s; some samples may not resolve to symbols", strerror(-r));
	if (e->o->overwrite && e->tail_synth.len)
		bytes_add(&b, e->tail_synth.p, e->tail_synth.len);
	synth_finished_init(&b);
	r = drain_dispatch_bytes(e, &b);
	bytes_free(&b);
	return r;
}

static bool has_mmap2(const struct bytes *b)
{
	for (size_t off = 0; off + sizeof(struct perf_event_header) <= b->len;) {
		const struct perf_event_header *h = (const void *)(b->p + off);
		if (h->type == PERF_RECORD_MMAP2)
			return true;
		if (!h->size)
			break;
		off += h->size;
	}
	return false;
}

/* --overwrite, one task: keep its latest maps, for a dump after it exited. */
void segment_refresh_tail(struct engine *e)
{
	if (!e->o->overwrite || e->evl.system_wide || (e->wl.pid && e->child_done))
		return;
	pid_t pid = e->o->pid ? e->o->pid : e->o->tid ? e->o->tid : e->wl.pid;
	struct bytes b;
	bytes_init(&b);
	/* A zombie has no maps left: keep the last snapshot that had some. */
	if (synth_process(&b, &e->evl.events, pid) == 0 && !b.err && has_mmap2(&b)) {
		bytes_free(&e->tail_synth);
		e->tail_synth = b;
	} else {
		bytes_free(&b);
	}
}

/*
 * End the current output and begin the next.  Everything dispatched so far
 * is in the old one, everything after goes to the new one, so nothing is
 * lost or duplicated across the cut.
 */
int segment_next(struct engine *e)
{
	struct segment *nx = calloc(1, sizeof(*nx));
	if (!nx) {
		if (!e->error)
			e->error = -ENOMEM;
		return -ENOMEM;
	}
	segment_build_ids_update(e); /* for the output being finished */
	nx->priv = *CUR_PRIV(e);
	nx->priv.samples = nx->priv.first_sample_time = nx->priv.last_sample_time = 0;
	nx->stream = *CUR_STREAM(e);
	nx->stream.segment++;
	nx->stream.start_realtime_ns = engine_now_ns(CLOCK_REALTIME);
	nx->stream.priv = &nx->priv;
	nx->prev = e->seg;
	int r = sinkset_rotate(&e->ss, &nx->stream);
	e->seg = nx;
	e->seq = 0; /* buf->seq counts per stream */
	e->seg_bytes = 0;
	e->seg_stream = 0;
	e->seg_start_ns = engine_now_ns(CLOCK_MONOTONIC);
	e->rotations++;
	if (r < 0) {
		if (!e->error)
			e->error = r;
		return r;
	}
	return e->o->overwrite ? 0 : segment_synthesize(e, false);
}

/* Size or time reached (SIGUSR2 is handled at once). */
bool segment_rotation_due(struct engine *e)
{
	const struct record_opts *o = e->o;
	if (o->switch_output == SWITCH_SIZE)
		return e->seg_bytes >= o->switch_size;
	if (o->switch_output == SWITCH_TIME)
		return engine_now_ns(CLOCK_MONOTONIC) - e->seg_start_ns >= (int64_t)o->switch_ms * 1000000;
	return false;
}

/* Read the build-ids of the DSOs seen and point the current output at them. */
void segment_build_ids_update(struct engine *e)
{
	if (dso_set_build_ids(&e->dsos, &e->build_ids) == 0) {
		CUR_PRIV(e)->build_ids = &e->build_ids;
		e->whole_priv.build_ids = &e->build_ids;
	}
}

/*
 * A size or time cut waits for data, so no output is left empty; it is made
 * before the rings are read so the new data counts for the new output.
 */
int segment_cut_pending(struct engine *e)
{
	if (!e->rotation_pending || !drain_has_data(e))
		return 0;
	e->rotation_pending = false;
	return segment_next(e) < 0 ? -EPIPE : 0;
}
