/*
 * The session: one recording from engine_record's call to its return (see
 * engine.h).  It owns the events, the sinkset, the workload and the poll
 * set, sets up the drainer (drain.h) and the output (output.h), and runs the
 * loop that calls them in order on this thread: drain, dispatch, then the
 * output step.  Neither part calls the other; what one learns that the
 * other needs (a pass's samples, a new stream, the files mapped) goes
 * through here.  At the end it adds up their counters for the summary.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "engine/engine.h"
#include "base/log.h"
#include "engine/cache_step.h"
#include "config/opts.h"
#include "engine/control.h"
#include "engine/drain.h"
#include "engine/drain_ticker.h"
#include "engine/evlist.h"
#include "engine/now.h"
#include "engine/output.h"
#include "engine/pool.h"
#include "engine/realtime.h"
#include "engine/ring.h"
#include "engine/self_filter.h"
#include "engine/signals.h"
#include "engine/sinkset.h"
#include "engine/workload.h"
#include "probe/dso_pending.h"

#define POLL_MS 100

struct session {
	const struct record_opts *o;
	struct ps_evlist evl;
	struct sinkset ss;
	struct drainer dr;
	struct output out;
	struct perfsink_region *pool_regions; /* the drainer's pools, for sinks (pool_regions) */
	unsigned nr_pool_regions;
	struct workload wl;
	bool child_done;
	int child_status;
	struct pollfd *pfds;        /* rings, the signal pipe, the --control channel */
	struct control ctl;         /* --control, -D's enable time */
	bool rotate_requested;      /* SIGUSR2 */
	int64_t start_ns, stop_ns;  /* CLOCK_MONOTONIC of the start and the stop of recording; 0: not yet */
	const struct record_observer *obs; /* NULL: nobody listens */
	int64_t next_progress_ns;   /* CLOCK_MONOTONIC of the next progress report */
	int64_t next_build_ids_ns;  /* of the next BUILD_ID refresh while recording */
	uint64_t wakeups;           /* polls that found a ring ready: a counter for the summary */
	uint64_t unread_bytes;      /* left in the rings at the stop: every buffer was held */
	int error;                  /* first runtime error (negative errno), from any part */
	struct bid_worker *bidc;    /* fills perf's build-id cache; NULL with -N, -B */
	struct drain_ticker *ticker; /* while a sink drains: the status line goes on */
};

/* Keep the first runtime error, whichever part saw it. */
static void note_error(struct session *s, int err)
{
	if (err < 0 && !s->error)
		s->error = err;
}

static bool target_gone(const struct session *s)
{
	return s->wl.pid && s->child_done;
}

/* ---------------------------------------------------------- stages */

/* Drain, then dispatch: the pass's samples count for the output they go to. */
static int drain_step(struct session *s)
{
	struct drain_batch b;
	unsigned k = drainer_pass(&s->dr, &b);
	if (!k)
		return 0;
	output_count(&s->out, &b.seen);
	int r = drainer_dispatch(&s->dr, &b);
	note_error(s, s->dr.error);
	return r < 0 ? r : (int)k;
}

/* The records an output begins with, dispatched into it. */
static int synthesize(struct session *s, bool initial)
{
	struct bytes b;
	bytes_init(&b);
	output_synthesize(&s->out, initial, target_gone(s), &b);
	int r = drainer_dispatch_bytes(&s->dr, &b);
	note_error(s, s->dr.error);
	bytes_free(&b);
	return r;
}

/* End the current output and begin the next, with its records. */
static int cut(struct session *s)
{
	bool began;
	int r = output_cut(&s->out, &s->dr.dsos, &began);
	if (began)
		drainer_new_stream(&s->dr);
	if (r < 0) {
		note_error(s, r);
		return r;
	}
	return s->o->overwrite ? 0 : synthesize(s, false);
}

/*
 * A size or time cut waits for data, so no output is left empty; it is made
 * before the rings are read so the new data counts for the new output (the
 * drainer places buffers for their stream offsets).  0 or -EPIPE.
 */
static int cut_if_waiting(struct session *s)
{
	if (!s->out.cut_waiting || !drainer_has_data(&s->dr))
		return 0;
	return cut(s) < 0 ? -EPIPE : 0;
}

/* SIGUSR2: cut now, after a full pass. */
static int cut_now(struct session *s)
{
	if (!s->o->overwrite && drain_step(s) < 0)
		return -EPIPE;
	return cut(s);
}

/* --overwrite: the newest data of every ring, with the records to read it. */
static int dump_rings(struct session *s)
{
	int r = synthesize(s, false);
	if (r < 0)
		return r;
	return drain_step(s);
}

/* Passes until the rings are empty, each after a waiting cut. */
static int drain_all(struct session *s)
{
	int r;
	/* Bounded: a ring that keeps filling cannot hold the exit forever. */
	for (int i = 0; i < 64; i++) {
		if ((r = cut_if_waiting(s)) < 0)
			return r;
		r = drain_step(s);
		if (r <= 0)
			return r;
	}
	return 0;
}

/* ------------------------------------------------------------ loop */

static void reap_child(struct session *s)
{
	if (!s->wl.pid || s->child_done)
		return;
	int st;
	if (waitpid(s->wl.pid, &st, WNOHANG) == s->wl.pid) {
		s->child_done = true;
		s->child_status = st;
	}
}

/*
 * SIGUSR2 (systemctl reload) rotates or dumps; it never re-reads the config,
 * and says so, as an operator who edited it may expect that.
 */
static void usr2(struct session *s)
{
	if (s->o->switch_output == SWITCH_NONE && !s->o->overwrite) {
		pr_info("SIGUSR2 ignored: no switch-output or overwrite to act on "
			"(a reload never re-reads the config: restart to apply a change)");
		return;
	}
	s->rotate_requested = true;
	pr_info("SIGUSR2: %s now (the config is not re-read: restart to apply a change)",
		s->o->overwrite ? "dumping the rings" : "a new output");
}

/* Returns true when recording should stop. */
static bool handle_signals(struct session *s)
{
	unsigned char sigs[64];
	size_t n;
	bool stop = false;
	while ((n = signals_take(sigs, sizeof(sigs))) > 0) {
		for (size_t i = 0; i < n; i++) {
			if (sigs[i] == SIGHUP && !stop)
				pr_info("SIGHUP: ending the recording as on SIGTERM");
			if (signals_is_stop(sigs[i]))
				stop = true;
			else if (sigs[i] == SIGCHLD)
				reap_child(s);
			else if (sigs[i] == SIGUSR2)
				usr2(s);
		}
	}
	return stop || s->child_done;
}

static bool all_hung_up(const struct session *s)
{
	unsigned n = s->dr.nr_rings;
	for (unsigned c = 0; c < n; c++)
		if (!(s->pfds[c].revents & POLLHUP))
			return false;
	return n > 0;
}

/* Overwrite rings are read on demand, at a SIGUSR2 or at the end. */
static bool overwrite_step(struct session *s, bool stop)
{
	output_refresh_tail(&s->out, target_gone(s));
	if (s->rotate_requested && !stop) {
		s->rotate_requested = false;
		if (dump_rings(s) < 0 || cut_now(s) < 0)
			return false;
	}
	return true;
}

/* Drain, dispatch, then the output step: a cut asked for now, or one that waits for data. */
static bool pass_step(struct session *s, bool stop)
{
	if (cut_if_waiting(s) < 0 || drain_step(s) < 0)
		return false; /* a sink with on_error = stop failed */
	if (!stop && s->rotate_requested) {
		s->rotate_requested = false;
		output_clear_waiting(&s->out);
		if (cut_now(s) < 0)
			return false;
	} else if (!stop) {
		output_check_due(&s->out);
	}
	return true;
}

/* --max-size: the data written reached the limit; said as perf says it. */
static bool max_size_reached(const struct session *s)
{
	uint64_t max = s->o->pf.max_size;

	if (!max || s->dr.ring_bytes < max)
		return false;
	log_summary(LOG_INFO, "[ perfsink record: size limit reached (%llu KB), stopping session ]",
		    (unsigned long long)(s->dr.ring_bytes >> 10));
	return true;
}

static int poll_timeout(int64_t deadline)
{
	if (!deadline)
		return POLL_MS;
	int64_t left = (deadline - engine_now_ns(CLOCK_MONOTONIC)) / 1000000;
	if (left <= 0)
		return -1;
	return left < POLL_MS ? (int)left : POLL_MS;
}

static void report_times(const struct session *s, struct record_report *r);

/* The run so far into r, with every sink's stats in sinks (s->ss.n of them). */
static void progress_fill(struct session *s, struct record_report *r, struct record_sink_report *sinks)
{
	const struct drainer *d = &s->dr;

	*r = (struct record_report){
		.bytes = s->ss.bytes, .buffers = s->ss.buffers,
		.ring_bytes = d->ring_bytes, .samples = d->samples,
		.kernel_lost = drainer_kernel_lost(d), .lost_records = d->lost_records,
		/* rings: NULL; the per-ring loss is for the end */
		.nr_rings = d->nr_rings, .rotations = s->out.rotations,
		.sinks = sinks, .nr_sinks = s->ss.n,
		/* The names are for the summary at the end. */
		.files_refused = dso_set_refused(&d->dsos, NULL, 0),
	};
	report_times(s, r);
	sinkset_progress(&s->ss, sinks);
}

/* The run so far, for the observer's status line and stats file. */
static void progress_give(struct session *s)
{
	const struct record_observer *obs = s->obs;
	int64_t now = engine_now_ns(CLOCK_MONOTONIC);
	unsigned every = obs && obs->progress_ms ? obs->progress_ms : 1000;

	if (!obs || !obs->progress || now < s->next_progress_ns)
		return;
	s->next_progress_ns = now + (int64_t)every * 1000000;
	struct record_sink_report sinks[s->ss.n ? s->ss.n : 1];
	struct record_report r;

	progress_fill(s, &r, sinks);
	obs->progress(&r, obs->arg);
}

/* Around instance i's drain(): the status line ticks on from another thread meanwhile. */
static void drain_around(void *arg, unsigned i, bool begin)
{
	struct session *s = arg;

	if (!begin) {
		drain_ticker_stop(s->ticker);
		s->ticker = NULL;
		return;
	}
	if (!s->obs || !s->obs->progress)
		return;
	struct record_sink_report sinks[s->ss.n ? s->ss.n : 1];
	struct record_report r;

	progress_fill(s, &r, sinks);
	s->ticker = drain_ticker_start(s->obs, &r, s->stop_ns, &s->ss.v[i], i);
}

/*
 * The stream's BUILD_ID, refreshed while recording (sink.h: at most
 * BUILD_IDS_EVERY_MS old), so a streaming sink can ship the files of a
 * long recording as it goes rather than at its end.
 */
static void build_ids_step(struct session *s)
{
	int64_t now = engine_now_ns(CLOCK_MONOTONIC);

	if (now < s->next_build_ids_ns)
		return;
	s->next_build_ids_ns = now + (int64_t)PERFSINK_BUILD_IDS_EVERY_MS * 1000000;
	output_build_ids_refresh(&s->out, &s->dr.dsos);
}

static void record_loop(struct session *s)
{
	int64_t deadline;

	s->start_ns = engine_now_ns(CLOCK_MONOTONIC);
	deadline = s->o->duration_ms ? s->start_ns + (int64_t)s->o->duration_ms * 1000000 : 0;
	unsigned nr_rings = s->dr.nr_rings;
	/* The first report after a whole period: a rate needs one. */
	s->next_progress_ns = engine_now_ns(CLOCK_MONOTONIC) + 1000000000;
	s->next_build_ids_ns = engine_now_ns(CLOCK_MONOTONIC) + (int64_t)PERFSINK_BUILD_IDS_EVERY_MS * 1000000;
	for (;;) {
		progress_give(s);
		build_ids_step(s);
		/* Compressed output done since the last pass reaches its sinks
		 * even when no ring has more (their crash-loss bound). */
		sinkset_z_poll(&s->ss);
		int timeout = control_timeout(&s->ctl, poll_timeout(deadline));
		if (timeout < 0)
			break;
		int n = poll(s->pfds, nr_rings + 2, timeout);
		if (n > 0) {
			for (unsigned c = 0; c < nr_rings; c++)
				if (s->pfds[c].revents & POLLIN)
					s->wakeups++;
		}
		bool stop = handle_signals(s);
		stop |= control_step(&s->ctl, &s->evl, s->o, &s->rotate_requested);
		reap_child(s);
		if (!(s->o->overwrite ? overwrite_step(s, stop) : pass_step(s, stop)))
			break;
		if (max_size_reached(s))
			break;
		/* -p: the target and its threads are gone. */
		if (stop || s->child_done || (n > 0 && !s->wl.pid && !s->evl.system_wide && all_hung_up(s)))
			break;
	}
}

/* ----------------------------------------------------------- setup */

/*
 * Poll every ring's leader fd (overwrite rings only for POLLHUP), then the
 * signal pipe, then the --control channel (-1 without one: poll skips it).
 */
static int pollset_setup(struct session *s)
{
	unsigned n = s->dr.nr_rings;
	s->pfds = calloc(n + 2, sizeof(*s->pfds));
	if (!s->pfds)
		return -ENOMEM;
	for (unsigned c = 0; c < n; c++)
		s->pfds[c] = (struct pollfd){ .fd = s->dr.rings[c].fd,
					      .events = s->o->overwrite ? 0 : POLLIN };
	s->pfds[n] = (struct pollfd){ .fd = signals_fd(), .events = POLLIN };
	s->pfds[n + 1] = (struct pollfd){ .fd = s->ctl.ctl_fd, .events = POLLIN };
	return 0;
}

static int output_setup(struct session *s, int argc, char **argv)
{
	struct output_shape shape = {
		.nr_rings = s->dr.nr_rings,
		.nr_buffers = s->dr.nr_rings * s->o->aio,
		.buffer_size = drainer_buffer_size(&s->dr),
		.ring_mmap_len = s->dr.rings[0].mmap_len,
	};
	int r = drainer_pool_regions(&s->dr, &s->pool_regions, &s->nr_pool_regions);
	if (r < 0)
		return r;
	shape.pool_regions = s->pool_regions;
	shape.nr_pool_regions = s->nr_pool_regions;
	r = output_init(&s->out, s->o, &s->evl, &s->ss, &shape, s->wl.pid, argc, argv);
	/* Programs loaded while recording: the drainer sees their BPF_EVENT. */
	s->dr.bpf = &s->out.bpf;
	return r;
}

/* ------------------------------------------------------------- end */

/* Recording time: from the start to the stop, or to now while recording. */
static int64_t recording_ns(const struct session *s)
{
	if (!s->start_ns)
		return 0;
	return (s->stop_ns ? s->stop_ns : engine_now_ns(CLOCK_MONOTONIC)) - s->start_ns;
}

/* The recording time, and once stopped the time since (the sinks finishing). */
static void report_times(const struct session *s, struct record_report *r)
{
	r->secs = (double)recording_ns(s) / 1e9;
	r->stopped = s->stop_ns != 0;
	r->drain_secs = s->stop_ns ? (double)(engine_now_ns(CLOCK_MONOTONIC) - s->stop_ns) / 1e9 : 0;
}

/* What the run did, for the caller's summary; after the sinks closed (their stats read before). */
static void report_give(struct session *s, const struct record_observer *obs)
{
	const struct drainer *d = &s->dr;
	struct record_ring_loss rings[d->nr_rings ? d->nr_rings : 1];
	struct record_sink_report sinks[s->ss.n ? s->ss.n : 1];
	char refused[1024];
	struct record_report r = {
		.bytes = s->ss.bytes, .buffers = s->ss.buffers,
		.wakeups = s->wakeups, .ring_bytes = d->ring_bytes, .samples = d->samples,
		.kernel_lost = drainer_kernel_lost(d),
		.stack_user = d->stack_user, .stack_cut = d->stack_cut,
		.lost_records = d->lost_records, .nr_rings = d->nr_rings, .rings = rings,
		.unread_bytes = s->unread_bytes,
		.rotations = s->out.rotations,
		.sinks = sinks, .nr_sinks = s->ss.n,
		.files_refused = dso_set_refused(&d->dsos, refused, sizeof(refused)),
		.files_refused_names = refused,
	};

	for (unsigned c = 0; c < d->nr_rings; c++) {
		rings[c] = (struct record_ring_loss){ d->rings[c].cpu, d->rings[c].lost };
		r.overruns += d->rings[c].overruns;
		r.pool_waits += d->pools[c]->waits;
	}
	report_times(s, &r);
	sinkset_reports(&s->ss, sinks);
	obs->report(&r, obs->arg);
}

static void session_free(struct session *s)
{
	control_close(&s->ctl);
	evlist_close(&s->evl);
	drainer_free(&s->dr);
	free(s->pfds);
	s->pfds = NULL;
	evlist_free(&s->evl);
	output_free(&s->out);
	free(s->pool_regions);
	s->pool_regions = NULL;
}

/* Check what the options need of the sinks and the machine, then open and map everything. */
static int setup(struct session *s, int argc, char **argv, char *err, size_t errlen)
{
	const struct record_opts *o = s->o;
	const char *norot;
	int r;
	if ((o->switch_output != SWITCH_NONE || o->overwrite) && !sinkset_can_rotate(&s->ss, &norot)) {
		snprintf(err, errlen, "sink '%s' cannot rotate its output, which %s needs",
			 norot, o->overwrite ? "--overwrite" : "--switch-output");
		return -EINVAL;
	}
	if ((r = signals_setup()) < 0)
		return r;
	if (o->pf.control && (r = control_open(&s->ctl, o->pf.control, err, errlen)) < 0)
		return r;
	if (o->argv && (r = workload_prepare(&s->wl, o->argv)) < 0) {
		snprintf(err, errlen, "cannot fork the workload: %s", strerror(-r));
		return r;
	}
	if ((r = evlist_set_targets(&s->evl, o, s->wl.pid, err, errlen)) < 0 ||
	    (r = evlist_open(&s->evl, err, errlen)) < 0 ||
	    (r = evlist_describe(&s->evl)) < 0 ||
	    (r = drainer_init(&s->dr, o, &s->evl, &s->ss, &signals_stop_requested, err, errlen)) < 0 ||
	    (r = pollset_setup(s)) < 0)
		return r;
	if (o->realtime && (r = realtime_apply((int)o->realtime)) < 0)
		pr_warn("cannot use SCHED_FIFO priority %u (%s); recording with normal scheduling",
			o->realtime, strerror(-r));
	if (o->exclude_self && s->evl.system_wide && (r = self_filter_attach(&s->evl, getpid())) < 0)
		pr_warn("cannot keep perfsink's own records out (%s); they are recorded too", strerror(-r));
	if ((r = output_setup(s, argc, argv)) < 0) {
		snprintf(err, errlen, "cannot describe the recording: %s", strerror(-r));
		return r;
	}
	s->bidc = cache_step_begin(o, &s->dr.dsos);
	if (output_start(&s->out) < 0 || (!o->overwrite && synthesize(s, true) < 0)) {
		err[0] = '\0'; /* the sink said why */
		return -EPIPE;
	}
	return 0;
}

/* Stopped: the last data out, the sinks drained, their stats final. */
/* -v: sample addresses read before their mapping (probe/dso_pending.h). */
static void waits_report(const struct dso_set *dsos)
{
	struct dso_pending_stats w;

	dso_set_pending_stats(dsos, &w);
	if (w.kept || w.dropped)
		pr_debug("%llu sampled addresses were read before any mapping of theirs: %llu found in "
			 "one that came later, %llu in none (anonymous, JIT, a lost MMAP), %llu not kept "
			 "(over %u waiting)", (unsigned long long)w.kept, (unsigned long long)w.resolved,
			 (unsigned long long)w.unresolved, (unsigned long long)w.dropped, DSO_PENDING_MAX);
}

static void finish(struct session *s, const char *err)
{
	evlist_disable(&s->evl);
	if (s->wl.pid && !s->child_done)
		kill(s->wl.pid, SIGTERM); /* stopped by a signal, --duration or an error */
	if (s->o->overwrite)
		dump_rings(s);
	else
		drain_all(s);
	if (!s->o->overwrite)
		s->unread_bytes = drainer_unread_bytes(&s->dr);
	drainer_lost_samples(&s->dr);
	if (s->dr.records_fixed)
		pr_debug("%llu KSYMBOL/BPF_EVENT records the kernel sized too large (another recorder "
			 "on the same CPUs) were repaired", (unsigned long long)s->dr.records_fixed);
	waits_report(&s->dr.dsos);
	note_error(s, s->dr.error);
	sinkset_barrier(&s->ss);
	sinkset_settle(&s->ss);
	if (s->obs && s->obs->progress) {
		s->next_progress_ns = 0;
		progress_give(s); /* the status line as recording ends */
	}
	/* The files mapped are in the build-id cache before the sinks read
	 * them there (a container's files are nowhere else), within
	 * CACHE_WAIT_MS: a copy under way is not waited for longer. */
	cache_step_settle(s->bidc, engine_now_ns(CLOCK_MONOTONIC) + CACHE_WAIT_MS * 1000000LL);
	/* BUILD_ID first: a streaming sink sends it with its last parts in drain(). */
	output_build_ids_update(&s->out, &s->dr.dsos);
	sinkset_drain(&s->ss, drain_around, s);
	if (s->error && err[0])
		pr_err("%s", err);
}

static void wait_child(struct session *s)
{
	int st;
	if (s->wl.pid && !s->child_done && waitpid(s->wl.pid, &st, 0) == s->wl.pid) {
		s->child_done = true;
		s->child_status = st;
	}
}

int engine_record(const struct record_opts *o, const struct bound_sinks *c, int argc, char **argv,
		  const struct record_observer *obs)
{
	struct session ses = { .o = o, .obs = obs, .wl = { .go_fd = -1, .err_fd = -1 },
			       .ctl = { .ctl_fd = -1, .ack_fd = -1 } };
	struct session *s = &ses;
	char err[512] = "";

	int r = evlist_parse(&s->evl, o, err, sizeof(err));
	if (r < 0) {
		pr_err("%s", err[0] ? err : strerror(-r));
		evlist_free(&s->evl);
		return EXIT_BAD_INPUT;
	}
	if (sinkset_open(&s->ss, c) < 0) {
		sinkset_free(&s->ss);
		evlist_free(&s->evl);
		return EXIT_BAD_INPUT;
	}
	if ((r = setup(s, argc, argv, err, sizeof(err))) < 0) {
		if (err[0])
			pr_err("%s", err);
		workload_abort(&s->wl);
		/* Not NULL: that means "after upload()" to a sink. */
		struct perfsink_summary aborted = { .stop_reason = r };
		sinkset_close(&s->ss, &aborted);
		cache_step_end(s->bidc, &s->dr.dsos, 0);
		/* The reader of -o - left before the first records. */
		int code = sinkset_reader_gone(&s->ss) ? EXIT_READER_GONE : EXIT_BAD_INPUT;
		signals_restore();
		sinkset_free(&s->ss);
		session_free(s);
		return code;
	}
	if (!o->argv || s->evl.system_wide)
		control_start(&s->ctl, &s->evl, o);
	bool exec_failed = false;
	if (o->argv && (r = workload_start(&s->wl)) < 0) {
		snprintf(err, sizeof(err), "cannot run '%s': %s", o->argv[0], strerror(-r));
		note_error(s, r);
		exec_failed = true;
	} else if (o->argv && !s->evl.system_wide) {
		control_start(&s->ctl, &s->evl, o); /* -D counts from the exec */
	}
	if (!s->error)
		record_loop(s);
	if (!s->start_ns)
		s->start_ns = engine_now_ns(CLOCK_MONOTONIC); /* the command could not run */
	s->stop_ns = engine_now_ns(CLOCK_MONOTONIC);
	finish(s, err);

	struct perfsink_summary sum = {
		.samples = s->dr.samples,
		.lost_events = drainer_kernel_lost(&s->dr),
		.ring_bytes = s->dr.ring_bytes,
		.duration_ns = recording_ns(s),
		.stop_reason = s->error,
	};
	bool sink_failed = s->ss.nr_stop_failed || !sinkset_alive(&s->ss);
	bool reader_gone = sinkset_reader_gone(&s->ss);
	int cr = sinkset_close(&s->ss, &sum);
	if (obs && obs->report)
		report_give(s, obs);
	wait_child(s);
	cache_step_end(s->bidc, &s->dr.dsos, s->stop_ns + CACHE_WAIT_MS * 1000000LL);
	signals_restore();
	sinkset_free(&s->ss);
	session_free(s);
	if (exec_failed)
		return 127; /* as a shell says "command not found" */
	if (reader_gone)
		return EXIT_READER_GONE;
	if (s->error || cr < 0 || sink_failed)
		return EXIT_RECORD_FAILED;
	return s->wl.pid ? workload_exit_code(s->child_status) : 0;
}
