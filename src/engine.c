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
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "config_file.h"
#include "engine.h"
#include "evlist.h"
#include "log.h"
#include "opts.h"
#include "pool.h"
#include "record.h"
#include "ring.h"
#include "sinkset.h"
#include "stream.h"
#include "synth.h"
#include "tracing_data.h"
#include "workload.h"

#define ROUND_BYTES 8
#define POLL_MS 100

struct engine {
	const struct record_opts *o;
	struct ps_evlist evl;
	struct ring *rings;
	struct pool **pools;
	unsigned nr_rings;
	struct pollfd *pfds;        /* rings, then the signal pipe */
	struct sinkset ss;
	/* Two streams: rotate() finishes the old one while the next begins. */
	struct perfsink_stream streams[2];
	struct perfsink_stream_priv privs[2];
	unsigned cur;
	uint64_t seg_bytes;         /* ring bytes in the current segment */
	int64_t seg_start_ns;       /* CLOCK_MONOTONIC */
	bool rotate_requested;      /* SIGUSR2 */
	struct bytes tail_synth;    /* --overwrite: latest records of the target */
	const char **names;
	struct bytes tracing;
	struct workload wl;
	bool child_done;
	int child_status;
	uint64_t seq;
	unsigned time_off;          /* offset of TIME in a SAMPLE record */
	struct timespec t0;
	char session[40];
	char hostname[65];
	/* counters for the summary */
	uint64_t wakeups, passes, samples, lost_records, lost_in_records, lost_samples;
	uint64_t ring_bytes, buffers, rotations;
	int error;                  /* first runtime error (negative errno) */
};

#define CUR_STREAM(e) (&(e)->streams[(e)->cur])
#define CUR_PRIV(e) (&(e)->privs[(e)->cur])

static int sig_pipe[2] = { -1, -1 };
static volatile sig_atomic_t nr_interrupts;

static void on_signal(int sig)
{
	int saved = errno;
	unsigned char c = (unsigned char)sig;
	if (sig == SIGINT || sig == SIGTERM)
		nr_interrupts++;
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
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

static void signals_restore(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
	if (sig_pipe[0] >= 0) {
		close(sig_pipe[0]);
		close(sig_pipe[1]);
	}
	sig_pipe[0] = sig_pipe[1] = -1;
}

static int64_t now_ns(clockid_t clk)
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
	e->pfds = calloc(e->nr_rings + 1, sizeof(*e->pfds));
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

/* ------------------------------------------------------------ dispatch */

static int dispatch(struct engine *e, struct psbuf *b)
{
	b->pub.seq = e->seq++;
	e->buffers++;
	int r = sinkset_write(&e->ss, &b->pub);
	psbuf_put(&b->pub);
	if (r < 0 && !e->error)
		e->error = r;
	return r;
}

static int dispatch_bytes(struct engine *e, const struct bytes *recs)
{
	if (recs->err)
		return recs->err;
	if (recs->len == 0)
		return 0;
	struct psbuf *b = heapbuf_new(recs->len);
	if (!b)
		return -ENOMEM;
	memcpy(b->mem, recs->p, recs->len);
	b->pub.len = recs->len;
	b->pub.kind = PERFSINK_BUF_SYNTH;
	b->pub.cpu = -1;
	return dispatch(e, b);
}

/* Count samples and kernel-reported loss; track the sample time range. */
static void scan_records(struct engine *e, const uint8_t *p, size_t len)
{
	size_t off = 0;
	while (off + sizeof(struct perf_event_header) <= len) {
		const struct perf_event_header *h = (const void *)(p + off);
		if (h->size < sizeof(*h) || off + h->size > len)
			break;
		if (h->type == PERF_RECORD_SAMPLE && h->size >= e->time_off + 8) {
			struct perfsink_stream_priv *sp = CUR_PRIV(e);
			uint64_t t;
			memcpy(&t, p + off + e->time_off, sizeof(t));
			if (!sp->samples || t < sp->first_sample_time)
				sp->first_sample_time = t;
			if (t > sp->last_sample_time)
				sp->last_sample_time = t;
			sp->samples++;
			e->samples++;
		} else if (h->type == PERF_RECORD_LOST && h->size >= 24) {
			uint64_t lost;
			memcpy(&lost, p + off + 16, sizeof(lost));
			e->lost_records++;
			e->lost_in_records += lost;
		}
		off += h->size;
	}
}

/*
 * One pass over every ring.  Each ring is copied and released at once;
 * the buffers go out after the pass so the last one can carry the
 * FINISHED_ROUND that tells perf every ring was drained up to here.
 */
/* Copy one ring into a pooled buffer: NULL when it had nothing. */
static struct psbuf *read_ring(struct engine *e, unsigned c)
{
	struct ring *r = &e->rings[c];
	if (!r->overwrite && !ring_ready(r))
		return NULL;
	struct psbuf *b = pool_get(e->pools[c]); /* waits while sinks hold them all */
	size_t n;
	if (r->overwrite) {
		/* The kernel must not write while the newest records are copied. */
		ioctl(r->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1);
		n = ring_read_backward(r, b->mem, b->cap - ROUND_BYTES);
		ioctl(r->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0);
	} else {
		n = ring_read(r, b->mem, b->cap - ROUND_BYTES);
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
	scan_records(e, b->mem, n);
	return b;
}

static int drain_pass(struct engine *e)
{
	struct psbuf *batch[e->nr_rings];
	unsigned k = 0;
	for (unsigned c = 0; c < e->nr_rings; c++) {
		struct psbuf *b = read_ring(e, c);
		if (b)
			batch[k++] = b;
	}
	if (!k)
		return 0;
	struct psbuf *last = batch[k - 1];
	struct perf_event_header round = { .type = PS_RECORD_FINISHED_ROUND, .size = ROUND_BYTES };
	memcpy(last->mem + last->pub.len, &round, sizeof(round));
	last->pub.len += ROUND_BYTES;
	last->pub.tail_round = ROUND_BYTES;
	e->passes++;
	int ret = 0;
	for (unsigned i = 0; i < k; i++) {
		int r = dispatch(e, batch[i]);
		if (r < 0 && !ret)
			ret = r;
	}
	return ret ? ret : (int)k;
}

static int drain_all(struct engine *e)
{
	int r;
	/* Bounded: a ring that keeps filling cannot hold the exit forever. */
	for (int i = 0; i < 64; i++) {
		r = drain_pass(e);
		if (r <= 0)
			return r;
	}
	return 0;
}

/* perf 6.1 puts the kernel's per-event loss count (PERF_FORMAT_LOST) here. */
static int lost_samples_records(struct engine *e)
{
	struct ps_evlist *evl = &e->evl;
	struct bytes b;
	bytes_init(&b);
	for (unsigned ev = 0; ev < evl->nr; ev++) {
		for (unsigned c = 0; c < evl->nr_cpus; c++) {
			for (unsigned t = 0; t < evl->nr_threads; t++) {
				int fd = evl->ev[ev].fds[c * evl->nr_threads + t];
				uint64_t v[3]; /* value, id, lost */
				if (fd < 0 || read(fd, v, sizeof(v)) != (ssize_t)sizeof(v) || !v[2])
					continue;
				e->lost_samples += v[2];
				size_t at = record_begin(&b, PERF_RECORD_LOST_SAMPLES, 0);
				bytes_u64(&b, v[2]);
				struct ps_sample_id sid = { .id = v[1], .cpu = (uint32_t)evl->cpus[c] };
				record_end(&b, at, evl, &sid);
			}
		}
	}
	int r = dispatch_bytes(e, &b);
	bytes_free(&b);
	return r;
}

/* -------------------------------------------------------------- stream */

static void make_session_id(char *out, size_t n)
{
	uint8_t rnd[8] = { 0 };
	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
		uint64_t t = (uint64_t)now_ns(CLOCK_MONOTONIC) ^ (uint64_t)getpid();
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

static int stream_setup(struct engine *e, int argc, char **argv)
{
	struct ps_evlist *evl = &e->evl;
	e->names = calloc(evl->nr, sizeof(*e->names));
	if (!e->names)
		return -ENOMEM;
	for (unsigned i = 0; i < evl->nr; i++)
		e->names[i] = evl->ev[i].name;
	bytes_init(&e->tracing);
	if (evl->has_tracepoint) {
		const char *sys[evl->nr], *name[evl->nr];
		unsigned k = 0;
		for (unsigned i = 0; i < evl->nr; i++) {
			if (!evl->ev[i].tp_sys)
				continue;
			sys[k] = evl->ev[i].tp_sys;
			name[k++] = evl->ev[i].tp_name;
		}
		int r = tracing_data_build(sys, name, k, &e->tracing);
		if (r < 0)
			return r;
	}
	struct utsname u;
	if (uname(&u) == 0)
		snprintf(e->hostname, sizeof(e->hostname), "%s", u.nodename);
	make_session_id(e->session, sizeof(e->session));
	e->privs[0] = (struct perfsink_stream_priv){
		.evl = evl, .argc = argc, .argv = argv, .tracing_data = &e->tracing,
	};
	uint32_t flags = 0;
	if (e->o->switch_output != SWITCH_NONE || e->o->overwrite)
		flags |= PERFSINK_STREAM_ROTATING;
	if (e->o->overwrite)
		flags |= PERFSINK_STREAM_OVERWRITE;
	e->streams[0] = (struct perfsink_stream){
		.nr_events = evl->nr,
		.event_names = e->names,
		.nr_rings = e->nr_rings,
		.nr_buffers = e->nr_rings * e->o->aio,
		.buffer_size = e->rings[0].size + ROUND_BYTES,
		.ring_mmap_len = e->rings[0].mmap_len,
		.session = e->session,
		.host_name = e->hostname,
		.start_realtime_ns = now_ns(CLOCK_REALTIME),
		.priv = &e->privs[0],
		.max_files = e->o->switch_max_files,
		.flags = flags,
	};
	e->seg_start_ns = now_ns(CLOCK_MONOTONIC);
	/* SAMPLE: header, [IDENTIFIER], IP, TID, TIME. */
	e->time_off = 8 + ((evl->sample_type & PERF_SAMPLE_IDENTIFIER) ? 8 : 0) + 16;
	return 0;
}

/* The records of the target's tasks as they are now. */
static int synth_target(struct engine *e, struct bytes *b, bool initial)
{
	if (e->evl.system_wide)
		return synth_all_processes(b, &e->evl);
	pid_t pid = e->o->pid ? e->o->pid : e->o->tid ? e->o->tid : e->wl.pid;
	if (initial && !e->o->pid && !e->o->tid) {
		/* Not exec'd yet: its exec brings COMM and MMAPs through the ring. */
		synth_comm(b, &e->evl, pid, pid, "perfsink-exec");
		return 0;
	}
	if (e->wl.pid && e->child_done)
		return 0; /* gone: the ring or the overwrite cache has its records */
	return synth_process(b, &e->evl, pid);
}

/*
 * Records that let perf resolve symbols, at the start of every output:
 * kernel MMAP, the target's tasks, FINISHED_INIT.  With --overwrite they go
 * with each dump instead (perf's --tail-synthesize), since the ring has
 * long overwritten the originals.
 */
static int synthesize(struct engine *e, bool initial)
{
	struct bytes b;
	bytes_init(&b);
	int r = synth_kernel_mmap(&b, &e->evl);
	if (r < 0 && initial)
		pr_warn("kernel symbols will not resolve: cannot read /proc/kallsyms (%s)", strerror(-r));
	r = synth_target(e, &b, initial);
	if (r < 0 && initial)
		pr_warn("existing tasks: %s; some samples may not resolve to symbols", strerror(-r));
	if (e->o->overwrite && e->tail_synth.len)
		bytes_add(&b, e->tail_synth.p, e->tail_synth.len);
	synth_finished_init(&b);
	r = dispatch_bytes(e, &b);
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
static void refresh_tail_synth(struct engine *e)
{
	if (!e->o->overwrite || e->evl.system_wide || (e->wl.pid && e->child_done))
		return;
	pid_t pid = e->o->pid ? e->o->pid : e->o->tid ? e->o->tid : e->wl.pid;
	struct bytes b;
	bytes_init(&b);
	/* A zombie has no maps left: keep the last snapshot that had some. */
	if (synth_process(&b, &e->evl, pid) == 0 && !b.err && has_mmap2(&b)) {
		bytes_free(&e->tail_synth);
		e->tail_synth = b;
	} else {
		bytes_free(&b);
	}
}

/*
 * End the current output and begin the next: everything read so far goes
 * to the old one (a full pass first), everything after to the new one, so
 * nothing is lost or duplicated across the cut.
 */
static int rotate_segment(struct engine *e)
{
	if (!e->o->overwrite && drain_pass(e) < 0)
		return -EPIPE;
	unsigned nx = !e->cur;
	e->privs[nx] = *CUR_PRIV(e);
	e->privs[nx].samples = e->privs[nx].first_sample_time = e->privs[nx].last_sample_time = 0;
	e->streams[nx] = *CUR_STREAM(e);
	e->streams[nx].segment++;
	e->streams[nx].start_realtime_ns = now_ns(CLOCK_REALTIME);
	e->streams[nx].priv = &e->privs[nx];
	int r = sinkset_rotate(&e->ss, &e->streams[nx]);
	e->cur = nx;
	e->seg_bytes = 0;
	e->seg_start_ns = now_ns(CLOCK_MONOTONIC);
	e->rotations++;
	if (r < 0) {
		if (!e->error)
			e->error = r;
		return r;
	}
	return e->o->overwrite ? 0 : synthesize(e, false);
}

/* --overwrite: the newest data of every ring, with the records to read it. */
static int dump_rings(struct engine *e)
{
	int r = synthesize(e, false);
	if (r < 0)
		return r;
	return drain_pass(e);
}

static bool rotation_due(struct engine *e)
{
	const struct record_opts *o = e->o;
	if (e->rotate_requested) {
		e->rotate_requested = false;
		return true;
	}
	if (o->switch_output == SWITCH_SIZE)
		return e->seg_bytes >= o->switch_size;
	if (o->switch_output == SWITCH_TIME)
		return now_ns(CLOCK_MONOTONIC) - e->seg_start_ns >= (int64_t)o->switch_ms * 1000000;
	return false;
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
			if (sigs[i] == SIGINT || sigs[i] == SIGTERM)
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

static void record_loop(struct engine *e)
{
	int64_t deadline = e->o->duration_ms
		? now_ns(CLOCK_MONOTONIC) + (int64_t)e->o->duration_ms * 1000000 : 0;
	for (;;) {
		int timeout = POLL_MS;
		if (deadline) {
			int64_t left = (deadline - now_ns(CLOCK_MONOTONIC)) / 1000000;
			if (left <= 0)
				break;
			if (left < timeout)
				timeout = (int)left;
		}
		int n = poll(e->pfds, e->nr_rings + 1, timeout);
		if (n > 0) {
			for (unsigned c = 0; c < e->nr_rings; c++)
				if (e->pfds[c].revents & POLLIN)
					e->wakeups++;
		}
		bool stop = handle_signals(e);
		reap_child(e);
		if (e->o->overwrite) {
			refresh_tail_synth(e);
			if (e->rotate_requested && !stop) {
				e->rotate_requested = false;
				if (dump_rings(e) < 0 || rotate_segment(e) < 0)
					break;
			}
		} else {
			if (drain_pass(e) < 0)
				break; /* a sink with on_error = stop failed */
			if (!stop && rotation_due(e) && rotate_segment(e) < 0)
				break;
		}
		/* -p: the target and its threads are gone. */
		if (stop || e->child_done || (n > 0 && !e->wl.pid && !e->evl.system_wide && all_hung_up(e)))
			break;
	}
}

static void print_summary(struct engine *e)
{
	double secs = (double)(now_ns(CLOCK_MONOTONIC) - ((int64_t)e->t0.tv_sec * 1000000000 + e->t0.tv_nsec)) / 1e9;
	pr_info("[ perfsink record: Woken up %llu times to write data ]",
		(unsigned long long)e->wakeups);
	pr_info("[ perfsink record: Captured %.3f MB from %u rings in %.2f s (%llu samples, %llu buffers) ]",
		(double)e->ring_bytes / (1024.0 * 1024.0), e->nr_rings, secs,
		(unsigned long long)e->samples, (unsigned long long)e->buffers);
	uint64_t lost = e->lost_samples > e->lost_in_records ? e->lost_samples : e->lost_in_records;
	if (lost) {
		double pct = 100.0 * (double)lost / (double)(lost + e->samples);
		pr_warn("[ perfsink record: LOST %llu samples (%.1f%%) in %llu LOST records: the rings "
			"filled up; try a larger -m, a lower -F, or fewer events ]",
			(unsigned long long)lost, pct, (unsigned long long)e->lost_records);
	} else {
		pr_info("[ perfsink record: lost 0 samples ]");
	}
	uint64_t waits = 0;
	for (unsigned c = 0; c < e->nr_rings; c++)
		waits += e->pools[c]->waits;
	if (waits)
		pr_info("[ perfsink record: waited %llu times for a sink to return a buffer ]",
			(unsigned long long)waits);
	if (e->rotations)
		pr_info("[ perfsink record: %llu outputs (rotated %llu times) ]",
			(unsigned long long)e->rotations + 1, (unsigned long long)e->rotations);
	sinkset_report(&e->ss);
}

static void engine_free(struct engine *e)
{
	evlist_close(&e->evl);
	rings_teardown(e);
	evlist_free(&e->evl);
	bytes_free(&e->tracing);
	bytes_free(&e->tail_synth);
	free(e->names);
}

int engine_record(const struct record_opts *o, const struct config *c, int argc, char **argv)
{
	struct engine eng = { .o = o, .wl = { .go_fd = -1, .err_fd = -1 } };
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
	if ((r = signals_setup()) < 0)
		goto fail;
	if (o->argv && (r = workload_prepare(&e->wl, o->argv)) < 0) {
		snprintf(err, sizeof(err), "cannot fork the workload: %s", strerror(-r));
		goto fail;
	}
	if ((r = evlist_set_targets(&e->evl, o, e->wl.pid, err, sizeof(err))) < 0 ||
	    (r = evlist_open(&e->evl, err, sizeof(err))) < 0 ||
	    (r = rings_setup(e, err, sizeof(err))) < 0)
		goto fail;
	if ((r = stream_setup(e, argc, argv)) < 0) {
		snprintf(err, sizeof(err), "cannot describe the recording: %s", strerror(-r));
		goto fail;
	}
	if (sinkset_start(&e->ss, CUR_STREAM(e)) < 0 || (!o->overwrite && synthesize(e, true) < 0)) {
		err[0] = '\0'; /* the sink said why */
		r = -EPIPE;
		goto fail;
	}
	if (!o->argv || e->evl.system_wide)
		evlist_enable(&e->evl);
	bool exec_failed = false;
	if (o->argv && (r = workload_start(&e->wl)) < 0) {
		snprintf(err, sizeof(err), "cannot run '%s': %s", o->argv[0], strerror(-r));
		e->error = r;
		exec_failed = true;
	}
	if (!e->error)
		record_loop(e);

	evlist_disable(&e->evl);
	if (o->overwrite)
		dump_rings(e);
	else
		drain_all(e);
	lost_samples_records(e);
	sinkset_barrier(&e->ss);
	if (e->error && err[0])
		pr_err("%s", err);
	if (log_verbosity() >= 0)
		print_summary(e);
	struct perfsink_summary sum = {
		.samples = e->samples,
		.lost_events = e->lost_samples > e->lost_in_records ? e->lost_samples : e->lost_in_records,
		.ring_bytes = e->ring_bytes,
		.duration_ns = now_ns(CLOCK_MONOTONIC) - ((int64_t)e->t0.tv_sec * 1000000000 + e->t0.tv_nsec),
		.stop_reason = e->error,
	};
	bool sink_failed = e->ss.nr_stop_failed || !sinkset_alive(&e->ss);
	int cr = sinkset_close(&e->ss, &sum);
	if (e->wl.pid && !e->child_done) {
		/* Stopped by a signal, --duration or an error: end the workload as perf does. */
		kill(e->wl.pid, SIGTERM);
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
	sinkset_close(&e->ss, NULL);
	signals_restore();
	sinkset_free(&e->ss);
	engine_free(e);
	return code;
}
