#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "loader/bind.h"
#include "engine/engine.h"
#include "engine/evlist.h"
#include "base/log.h"
#include "config/opts.h"
#include "engine/pool.h"
#include "engine/realtime.h"
#include "format/record.h"
#include "engine/ring.h"
#include "engine/self_filter.h"
#include "engine/sinkset.h"
#include "format/stream.h"
#include "probe/machine.h"
#include "probe/synth.h"
#include "probe/tracing_data.h"
#include "engine/workload.h"

#include "engine/engine_priv.h"

/*
 * The only mutable globals of the engine: the signal state a handler can
 * reach (one recording per process; signals_setup/signals_restore bracket it).
 */
static int sig_pipe[2] = { -1, -1 };         /* handler -> loop wakeup */
volatile int engine_stop_requested;          /* engine_priv.h */
static volatile sig_atomic_t nr_interrupts;  /* stop signals seen */
static bool hup_handled; /* SIGHUP was not ignored (nohup) when we started */

static bool is_stop_signal(int sig)
{
	return sig == SIGINT || sig == SIGTERM || sig == SIGHUP;
}

/*
 * The first SIGINT/SIGTERM/SIGHUP ends the recording gracefully (the loop
 * sees it through the pipe); SIGHUP so that a closed terminal or session
 * leaves finished files, as a service manager's SIGTERM does.  A second one also stops waiting for sinks to return
 * buffers, so a stuck sink cannot hold the exit; the files are still
 * finished.
 */
static void on_signal(int sig)
{
	int saved = errno;
	unsigned char c = (unsigned char)sig;
	if (is_stop_signal(sig) && ++nr_interrupts >= 2)
		engine_stop_requested = 1;
	if (write(sig_pipe[1], &c, 1) < 0) {
		/* pipe full: a wakeup is pending anyway */
	}
	errno = saved;
}

static int signals_setup(void)
{
	if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	struct sigaction old;
	/* Under nohup SIGHUP stays ignored: the user asked to outlive the terminal. */
	hup_handled = sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler != SIG_IGN;
	if (hup_handled)
		sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

static void signals_restore(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (hup_handled)
		signal(SIGHUP, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
	if (sig_pipe[0] >= 0) {
		close(sig_pipe[0]);
		close(sig_pipe[1]);
	}
	sig_pipe[0] = sig_pipe[1] = -1;
}

int64_t engine_now_ns(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* --------------------------------------------------------------- rings */

static int rings_setup(struct engine *e, char *err, size_t errlen)
{
	struct ps_evlist *evl = &e->evl;
	e->nr_rings = evl->nr_cpus;
	e->rings = calloc(e->nr_rings, sizeof(*e->rings));
	e->pools = calloc(e->nr_rings, sizeof(*e->pools));
	e->pfds = calloc(e->nr_rings + 2, sizeof(*e->pfds));
	if (!e->rings || !e->pools || !e->pfds)
		return -ENOMEM;
	for (unsigned c = 0; c < evl->nr_cpus; c++) {
		int leader = -1, r = 0;
		for (unsigned ev = 0; ev < evl->nr && r == 0; ev++) {
			for (unsigned t = 0; t < evl->nr_threads; t++) {
				int fd = evl->ev[ev].fds[c * evl->nr_threads + t];
				if (fd < 0)
					continue;
				if (leader < 0) {
					/* The kernel redirects only into a ring that is mapped already. */
					leader = fd;
					r = ring_map(&e->rings[c], leader, evl->cpus[c],
						     e->o->mmap_pages, e->o->overwrite);
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
		if (r < 0) {
			snprintf(err, errlen, "cannot map the ring of CPU %d (%u pages): %s%s", evl->cpus[c],
				 e->o->mmap_pages, strerror(-r),
				 r == -EPERM ? "; lower -m or raise /proc/sys/kernel/perf_event_mlock_kb" : "");
			return r;
		}
		r = pool_create(e->o->aio, e->rings[c].size + ROUND_BYTES, &e->pools[c]);
		if (r < 0) {
			snprintf(err, errlen, "cannot allocate %u buffers of %llu bytes", e->o->aio,
				 (unsigned long long)e->rings[c].size);
			return r;
		}
		/* Overwrite rings are read on demand; poll them only for POLLHUP. */
		e->pfds[c] = (struct pollfd){ .fd = leader, .events = e->o->overwrite ? 0 : POLLIN };
	}
	e->pfds[e->nr_rings] = (struct pollfd){ .fd = sig_pipe[0], .events = POLLIN };
	e->pfds[e->nr_rings + 1] = (struct pollfd){ .fd = e->ctl.ctl_fd, .events = POLLIN };
	return 0;
}

static void rings_teardown(struct engine *e)
{
	for (unsigned c = 0; e->rings && c < e->nr_rings; c++) {
		ring_unmap(&e->rings[c]);
		pool_release(e->pools[c]);
	}
	free(e->rings);
	free(e->pools);
	free(e->pfds);
	e->rings = NULL;
	e->pools = NULL;
	e->pfds = NULL;
}

/* -------------------------------------------------------------- stream */

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

/* -k: the clock's resolution and a reading of it next to the wall clock, as perf's record__init_clock. */
static void clock_read(struct ps_clock *c, int clockid)
{
	struct timespec res, ref;
	struct timeval tod;

	c->clockid = (uint32_t)clockid;
	c->res_ns = clock_getres(clockid, &res) == 0
		? (uint64_t)res.tv_sec * 1000000000 + (uint64_t)res.tv_nsec : 0;
	gettimeofday(&tod, NULL);
	clock_gettime(clockid, &ref);
	c->tod_ns = (uint64_t)tod.tv_sec * 1000000000 + (uint64_t)tod.tv_usec * 1000;
	c->clockid_ns = (uint64_t)ref.tv_sec * 1000000000 + (uint64_t)ref.tv_nsec;
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

static int stream_setup(struct engine *e, int argc, char **argv)
{
	struct ps_evlist *evl = &e->evl;
	e->names = calloc(evl->nr, sizeof(*e->names));
	if (!e->names)
		return -ENOMEM;
	for (unsigned i = 0; i < evl->nr; i++)
		e->names[i] = evl->ev[i].name;
	bytes_init(&e->tracing);
	int r = evlist_tracing_data(evl, &e->tracing);
	if (r < 0)
		return r;
	if ((r = machine_read(&e->machine)) < 0)
		return r;
	struct utsname u;
	if (uname(&u) == 0)
		snprintf(e->hostname, sizeof(e->hostname), "%s", u.nodename);
	make_session_id(e->session, sizeof(e->session));
	e->seg = calloc(1, sizeof(*e->seg));
	if (!e->seg)
		return -ENOMEM;
	e->seg->priv = (struct perfsink_stream_priv){
		.events = &evl->events, .argc = argc, .argv = argv, .tracing_data = &e->tracing,
		.machine = &e->machine,
	};
	if (e->o->pf.clockid >= 0) {
		clock_read(&e->clock, e->o->pf.clockid);
		e->seg->priv.clock = &e->clock;
	}
	uint32_t flags = 0;
	if (e->o->switch_output != SWITCH_NONE || e->o->overwrite)
		flags |= PERFSINK_STREAM_ROTATING;
	if (e->o->overwrite)
		flags |= PERFSINK_STREAM_OVERWRITE;
	e->seg->stream = (struct perfsink_stream){
		.nr_events = evl->nr,
		.event_names = e->names,
		.nr_rings = e->nr_rings,
		.nr_buffers = e->nr_rings * e->o->aio,
		.buffer_size = e->rings[0].size + ROUND_BYTES,
		.ring_mmap_len = e->rings[0].mmap_len,
		.session = e->session,
		.host_name = e->hostname,
		.start_realtime_ns = engine_now_ns(CLOCK_REALTIME),
		.priv = &e->seg->priv,
		.max_files = e->o->switch_max_files,
		.flags = flags,
	};
	e->seg_start_ns = engine_now_ns(CLOCK_MONOTONIC);
	e->whole_priv = e->seg->priv;
	e->whole = e->seg->stream;
	e->whole.priv = &e->whole_priv;
	e->whole.flags &= ~PERFSINK_STREAM_ROTATING;
	e->whole.max_files = 0;
	/* SAMPLE: header, [IDENTIFIER], IP, TID, TIME. */
	e->time_off = 8 + ((evl->sample_type & PERF_SAMPLE_IDENTIFIER) ? 8 : 0) + 16;
	e->stack_user = e->o->callgraph == CG_DWARF ? e->o->dwarf_stack : 0;
	if (stack_tail(evl->ev[0].attr.sample_type, &e->stack_tail) < 0)
		e->stack_user = 0; /* REGS_INTR's size varies: no cut count */
	return 0;
}

/* ----------------------------------------------------------- main loop */

static void reap_child(struct engine *e)
{
	if (!e->wl.pid || e->child_done)
		return;
	int st;
	if (waitpid(e->wl.pid, &st, WNOHANG) == e->wl.pid) {
		e->child_done = true;
		e->child_status = st;
	}
}

/* Returns true when recording should stop. */
static bool handle_signals(struct engine *e)
{
	unsigned char sigs[64];
	ssize_t n;
	bool stop = false;
	while ((n = read(sig_pipe[0], sigs, sizeof(sigs))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (sigs[i] == SIGHUP && !stop)
				pr_info("SIGHUP: ending the recording as on SIGTERM");
			if (is_stop_signal(sigs[i]))
				stop = true;
			else if (sigs[i] == SIGCHLD)
				reap_child(e);
			else if (sigs[i] == SIGUSR2 && (e->o->switch_output != SWITCH_NONE || e->o->overwrite))
				e->rotate_requested = true;
		}
	}
	return stop || e->child_done;
}

static bool all_hung_up(const struct engine *e)
{
	for (unsigned c = 0; c < e->nr_rings; c++)
		if (!(e->pfds[c].revents & POLLHUP))
			return false;
	return e->nr_rings > 0;
}

/* SIGUSR2: cut now, after a full pass. */
static int rotate_now(struct engine *e)
{
	if (!e->o->overwrite && drain_pass(e) < 0)
		return -EPIPE;
	return segment_next(e);
}

/* --overwrite: the newest data of every ring, with the records to read it. */
static int dump_rings(struct engine *e)
{
	int r = segment_synthesize(e, false);
	if (r < 0)
		return r;
	return drain_pass(e);
}

/* Passes until the rings are empty, each after a pending cut. */
static int drain_all(struct engine *e)
{
	int r;
	/* Bounded: a ring that keeps filling cannot hold the exit forever. */
	for (int i = 0; i < 64; i++) {
		if ((r = segment_cut_pending(e)) < 0)
			return r;
		r = drain_pass(e);
		if (r <= 0)
			return r;
	}
	return 0;
}

/* --max-size: the data written reached the limit; said once, as perf does. */
static bool max_size_reached(const struct engine *e)
{
	if (!e->o->pf.max_size || e->ring_bytes < e->o->pf.max_size)
		return false;
	log_summary(LOG_INFO, "[ perfsink record: size limit reached (%llu KB), stopping session ]",
		(unsigned long long)(e->ring_bytes >> 10));
	return true;
}

static void record_loop(struct engine *e)
{
	int64_t deadline = e->o->duration_ms
		? engine_now_ns(CLOCK_MONOTONIC) + (int64_t)e->o->duration_ms * 1000000 : 0;
	for (;;) {
		int timeout = POLL_MS;
		if (deadline) {
			int64_t left = (deadline - engine_now_ns(CLOCK_MONOTONIC)) / 1000000;
			if (left <= 0)
				break;
			if (left < timeout)
				timeout = (int)left;
		}
		timeout = engine_control_timeout(e, timeout);
		int n = poll(e->pfds, e->nr_rings + 2, timeout);
		if (n > 0) {
			for (unsigned c = 0; c < e->nr_rings; c++)
				if (e->pfds[c].revents & POLLIN)
					e->wakeups++;
		}
		bool stop = handle_signals(e);
		stop |= engine_control_step(e);
		reap_child(e);
		if (e->o->overwrite) {
			segment_refresh_tail(e);
			if (e->rotate_requested && !stop) {
				e->rotate_requested = false;
				if (dump_rings(e) < 0 || rotate_now(e) < 0)
					break;
			}
		} else {
			if (segment_cut_pending(e) < 0 || drain_pass(e) < 0)
				break; /* a sink with on_error = stop failed */
			if (!stop && e->rotate_requested) {
				e->rotate_requested = false;
				e->rotation_pending = false;
				if (rotate_now(e) < 0)
					break;
			} else if (!stop && segment_rotation_due(e)) {
				e->rotation_pending = true;
			}
		}
		if (max_size_reached(e))
			break;
		/* -p: the target and its threads are gone. */
		if (stop || e->child_done || (n > 0 && !e->wl.pid && !e->evl.system_wide && all_hung_up(e)))
			break;
	}
}

static uint64_t kernel_lost(const struct engine *e)
{
	return e->lost_samples > e->lost_in_records ? e->lost_samples : e->lost_in_records;
}

/* What the run did, for the caller's summary; sinks still open. */
static void report_give(struct engine *e, record_report_fn *report)
{
	struct record_ring_loss rings[e->nr_rings ? e->nr_rings : 1];
	struct record_sink_report sinks[e->ss.n ? e->ss.n : 1];
	struct record_report r = {
		.secs = (double)(engine_now_ns(CLOCK_MONOTONIC) -
				 ((int64_t)e->t0.tv_sec * 1000000000 + e->t0.tv_nsec)) / 1e9,
		.wakeups = e->wakeups, .ring_bytes = e->ring_bytes, .samples = e->samples,
		.buffers = e->buffers, .kernel_lost = kernel_lost(e),
		.stack_user = e->stack_user, .stack_cut = e->stack_cut,
		.lost_records = e->lost_records, .nr_rings = e->nr_rings, .rings = rings,
		.unread_bytes = e->unread_bytes, .rotations = e->rotations,
		.sinks = sinks, .nr_sinks = e->ss.n,
	};

	for (unsigned c = 0; c < e->nr_rings; c++) {
		rings[c] = (struct record_ring_loss){ e->rings[c].cpu, e->rings[c].lost };
		r.overruns += e->rings[c].overruns;
		r.pool_waits += e->pools[c]->waits;
	}
	sinkset_reports(&e->ss, sinks);
	report(&r);
}

static void engine_free(struct engine *e)
{
	control_close(&e->ctl);
	evlist_close(&e->evl);
	rings_teardown(e);
	evlist_free(&e->evl);
	bytes_free(&e->tracing);
	machine_free(&e->machine);
	bytes_free(&e->tail_synth);
	bytes_free(&e->build_ids);
	dso_set_free(&e->dsos);
	free(e->names);
	while (e->seg) {
		struct segment *prev = e->seg->prev;
		free(e->seg);
		e->seg = prev;
	}
}

int engine_record(const struct record_opts *o, const struct bound_sinks *c, int argc, char **argv,
		  record_report_fn *report)
{
	struct engine eng = { .o = o, .wl = { .go_fd = -1, .err_fd = -1 },
			      .ctl = { .ctl_fd = -1, .ack_fd = -1 } };
	struct engine *e = &eng;
	char err[512] = "";
	int code = EXIT_BAD_INPUT;

	clock_gettime(CLOCK_MONOTONIC, &e->t0);
	int r = evlist_parse(&e->evl, o, err, sizeof(err));
	if (r < 0) {
		pr_err("%s", err[0] ? err : strerror(-r));
		evlist_free(&e->evl);
		return EXIT_BAD_INPUT;
	}
	if (sinkset_open(&e->ss, c) < 0) {
		sinkset_free(&e->ss);
		evlist_free(&e->evl);
		return EXIT_BAD_INPUT;
	}
	const char *norot;
	if ((o->switch_output != SWITCH_NONE || o->overwrite) && !sinkset_can_rotate(&e->ss, &norot)) {
		snprintf(err, sizeof(err), "sink '%s' cannot rotate its output, which %s needs",
			 norot, o->overwrite ? "--overwrite" : "--switch-output");
		r = -EINVAL;
		goto fail;
	}
	if ((r = signals_setup()) < 0 || (r = engine_control_open(e, err, sizeof(err))) < 0)
		goto fail;
	if (o->argv && (r = workload_prepare(&e->wl, o->argv)) < 0) {
		snprintf(err, sizeof(err), "cannot fork the workload: %s", strerror(-r));
		goto fail;
	}
	if ((r = evlist_set_targets(&e->evl, o, e->wl.pid, err, sizeof(err))) < 0 ||
	    (r = evlist_open(&e->evl, err, sizeof(err))) < 0 ||
	    (r = evlist_describe(&e->evl)) < 0 ||
	    (r = rings_setup(e, err, sizeof(err))) < 0)
		goto fail;
	if (o->realtime && (r = realtime_apply((int)o->realtime)) < 0)
		pr_warn("cannot use SCHED_FIFO priority %u (%s); recording with normal scheduling",
			o->realtime, strerror(-r));
	if (o->exclude_self && e->evl.system_wide && (r = self_filter_attach(&e->evl, getpid())) < 0)
		pr_warn("cannot keep perfsink's own records out (%s); they are recorded too", strerror(-r));
	if ((r = stream_setup(e, argc, argv)) < 0) {
		snprintf(err, sizeof(err), "cannot describe the recording: %s", strerror(-r));
		goto fail;
	}
	if (sinkset_start(&e->ss, CUR_STREAM(e), &e->whole) < 0 || (!o->overwrite && segment_synthesize(e, true) < 0)) {
		err[0] = '\0'; /* the sink said why */
		r = -EPIPE;
		goto fail;
	}
	bool exec_failed = false;
	if (!o->argv || e->evl.system_wide)
		engine_control_start(e);
	if (o->argv && (r = workload_start(&e->wl)) < 0) {
		snprintf(err, sizeof(err), "cannot run '%s': %s", o->argv[0], strerror(-r));
		e->error = r;
		exec_failed = true;
	} else if (o->argv && !e->evl.system_wide) {
		engine_control_start(e); /* -D counts from the exec */
	}
	if (!e->error)
		record_loop(e);

	evlist_disable(&e->evl);
	if (e->wl.pid && !e->child_done)
		kill(e->wl.pid, SIGTERM); /* stopped by a signal, --duration or an error */
	if (o->overwrite)
		dump_rings(e);
	else
		drain_all(e);
	for (unsigned i = 0; !o->overwrite && i < e->nr_rings; i++)
		e->unread_bytes += ring_ready(&e->rings[i]);
	drain_lost_samples(e);
	sinkset_barrier(&e->ss);
	sinkset_settle(&e->ss);
	segment_build_ids_update(e);
	if (e->error && err[0])
		pr_err("%s", err);
	if (report)
		report_give(e, report);
	struct perfsink_summary sum = {
		.samples = e->samples,
		.lost_events = kernel_lost(e),
		.ring_bytes = e->ring_bytes,
		.duration_ns = engine_now_ns(CLOCK_MONOTONIC) - ((int64_t)e->t0.tv_sec * 1000000000 + e->t0.tv_nsec),
		.stop_reason = e->error,
	};
	bool sink_failed = e->ss.nr_stop_failed || !sinkset_alive(&e->ss);
	int cr = sinkset_close(&e->ss, &sum);
	if (e->wl.pid && !e->child_done) {
		int st;
		if (waitpid(e->wl.pid, &st, 0) == e->wl.pid) {
			e->child_done = true;
			e->child_status = st;
		}
	}
	signals_restore();
	sinkset_free(&e->ss);
	engine_free(e);
	if (exec_failed)
		return 127; /* as a shell says "command not found" */
	if (e->error || cr < 0 || sink_failed)
		return EXIT_RECORD_FAILED;
	return e->wl.pid ? workload_exit_code(e->child_status) : 0;

fail:
	if (err[0])
		pr_err("%s", err);
	workload_abort(&e->wl);
	/* Not NULL: that means "after upload()" to a sink. */
	struct perfsink_summary aborted = { .stop_reason = r < 0 ? r : -EINVAL };
	sinkset_close(&e->ss, &aborted);
	signals_restore();
	sinkset_free(&e->ss);
	engine_free(e);
	return code;
}
