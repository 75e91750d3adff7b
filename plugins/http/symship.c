/* The http sink's symbol shipper; see symship.h. */
#include "symship.h"
#include "held_roots.h"
#include "http_conf.h"
#include "jitdumps.h"
#include "part.h"
#include "proc_root.h"

#include <curl/curl.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <perfsink/kit.h>

/* A collector that failed this many requests in a row is given up on for
 * the rest of a stream's work: each would wait for its timeout again. */
#define FAILS_MAX 2

struct job {
	struct perfsink_kit_job kj;  /* first: the worker's job; kj.ctx is the shipper */
	uint8_t *recs;
	size_t len;
	char *key_base;
	int32_t *pids;
	size_t npids;
	struct dump_set dumps;     /* jitdump files, shipped at the stream's end */
	struct held_roots roots;   /* of its container processes; closed with the job */
	int interim;               /* the build-ids so far, while recording */
};

struct ship_counts {
	unsigned files, present, over_cap, changed, missing, failed, left, jit, dumps, replaced;
	unsigned unheld;           /* container processes whose root was not held */
	unsigned unsampled;        /* mapped, no sample fell in them: not shipped (sampled) */
	unsigned over_budget;      /* not shipped: symbols_budget reached */
	unsigned debuglinks;       /* of files, debug files found through .gnu_debuglink */
	uint64_t bytes, over_cap_bytes, over_budget_bytes;
};

struct symship {
	const struct perfsink_instance *inst;
	const struct http_conf *conf;
	struct perfsink_kit_worker *worker; /* the shipper's thread: jobs in order */
	_Atomic int64_t deadline;  /* 0 until close; then CLOCK_MONOTONIC ms */
	/* The counters stats() reads, from another thread (publish). */
	_Atomic uint64_t st_files, st_bytes, st_skipped, st_skipped_bytes, st_unsampled;

	/* Thread only. */
	char (*done)[2 * PERFSINK_KIT_BUILD_ID_MAX + 2]; /* kind letter + hex, handled */
	size_t ndone, capdone;
	unsigned fails;
	int interim;               /* the job being run is an interim one */
	struct perfsink_kit_buf buf;
	struct ship_counts c;
	/* The counters when the session being shipped began (session_note). */
	char *session;
	struct ship_counts at_start;
};

#define LOG(s, lvl, ...) (s)->inst->host->log((s)->inst, PERFSINK_LOG_##lvl, __VA_ARGS__)

/* Past the deadline, or a stop asked (upload's Ctrl-C, a recording's second one). */
static int past_deadline(struct symship *s)
{
	int64_t d = atomic_load(&s->deadline);

	return (d && perfsink_coll_mono_ms() >= d) || perfsink_stop_requested(s->inst);
}

/* Time a request may take: what is left before the deadline, if any. */
static int64_t request_budget(struct symship *s, int64_t dflt)
{
	int64_t d = atomic_load(&s->deadline), left;

	if (!d)
		return dflt;
	left = d - perfsink_coll_mono_ms();
	return left < 1 ? 1 : left < dflt ? left : dflt;
}

static int abort_at_deadline(void *arg, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
	(void)a;
	(void)b;
	(void)c;
	(void)d;
	return past_deadline(arg);
}

/* Whether key k ('e' executable, 'd' debuginfo) of hex is settled in this run. */
static int settled(const struct symship *s, char k, const char *hex)
{
	for (size_t i = 0; i < s->ndone; i++)
		if (s->done[i][0] == k && !strcmp(s->done[i] + 1, hex))
			return 1;
	return 0;
}

/* Sent, found there, or not to be sent: a later stream need not try again. */
static void settle(struct symship *s, char k, const char *hex)
{
	if (s->ndone == s->capdone) {
		size_t cap = s->capdone ? 2 * s->capdone : 64;
		void *v = realloc(s->done, cap * sizeof(*s->done));

		if (!v)
			return;
		s->done = v;
		s->capdone = cap;
	}
	s->done[s->ndone][0] = k;
	snprintf(s->done[s->ndone] + 1, sizeof(s->done[0]) - 1, "%s", hex);
	s->ndone++;
}

/* PUT data to key on this thread, within the deadline; 0 or -errno. */
static int put(struct symship *s, const char *key, const uint8_t *data, size_t len)
{
	struct part p = { .key = (char *)key };
	struct transfer *t;
	char msg[512];
	int tries = 0, rc = -EIO;

	p.body.data = (uint8_t *)data;
	p.body.len = len;
	t = transfer_new(&s->conf->ship, &p);
	if (!t)
		return -ENOMEM;
	while (!past_deadline(s)) {
		CURL *e = transfer_easy(t);
		enum transfer_result r;

		curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, abort_at_deadline);
		curl_easy_setopt(e, CURLOPT_XFERINFODATA, s);
		curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
		curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, (long)(s->conf->stall_timeout_ms / 1000));
		r = transfer_done(t, curl_easy_perform(e), msg, sizeof(msg));
		if (r == XFER_DONE) {
			rc = 0;
			break;
		}
		if (r == XFER_NEXT)
			continue;
		LOG(s, DEBUG, "symbols: %s", msg);
		if (r == XFER_FATAL || ++tries > 1)
			break;
	}
	transfer_free(t);
	return rc;
}

/* HEAD of key: 1 present (*size), 0 absent, <0 failed (counted). */
static int head(struct symship *s, const char *key, uint64_t *size)
{
	char msg[512];
	int rc = transfer_head(&s->conf->ship, key, request_budget(s, s->conf->connect_timeout_ms +
								  s->conf->stall_timeout_ms),
			       abort_at_deadline, s, size, msg, sizeof(msg));

	if (rc < 0)
		LOG(s, DEBUG, "symbols: %s", msg);
	return rc;
}

/* An interim job's failure is not counted: the stream's end tries again. */
static void failed(struct symship *s)
{
	s->c.failed += !s->interim;
	s->fails++;
}

/* The counters as stats() shows them. */
static void publish(struct symship *s)
{
	const struct ship_counts *c = &s->c;

	atomic_store(&s->st_files, (uint64_t)c->files + c->jit + c->dumps);
	atomic_store(&s->st_bytes, c->bytes);
	atomic_store(&s->st_skipped, (uint64_t)c->over_cap + c->over_budget);
	atomic_store(&s->st_skipped_bytes, c->over_cap_bytes + c->over_budget_bytes);
	atomic_store(&s->st_unsampled, c->unsampled);
}

/* symbols_budget would be passed by sending len bytes more. */
static int over_budget(const struct symship *s, size_t len)
{
	return s->conf->symbols_budget && s->c.bytes + len > s->conf->symbols_budget;
}

/*
 * Send what buf holds to key; counts it in *sent and the bytes.  1 when
 * sent, or settled unsent (over symbols_budget: counted as skipped).
 */
static int send_buf(struct symship *s, const char *key, unsigned *sent)
{
	if (over_budget(s, s->buf.len)) {
		s->c.over_budget++;
		s->c.over_budget_bytes += s->buf.len;
		publish(s);
		return 1;
	}
	if (put(s, key, s->buf.data, s->buf.len) == 0) {
		(*sent)++;
		s->c.bytes += s->buf.len;
		s->fails = 0;
		publish(s);
		return 1;
	}
	failed(s);
	return 0;
}

/* A read that did not give the bytes: counted by why. */
static void read_failed(struct symship *s, int rc, uint64_t size)
{
	if (rc == -EFBIG) {
		s->c.over_cap++;
		s->c.over_cap_bytes += size;
	} else if (rc == -ESTALE) {
		s->c.changed++;
	} else {
		s->c.missing++;
	}
}

/*
 * The sizes of the files perfsink_kit_sym_read may read for b, 0 when
 * absent: the file at its path here, and the build-id cache's copy, which
 * is the file the process mapped when that was a container's (the host
 * may have a bigger or smaller file at that path).
 */
static void local_sizes(const struct perfsink_kit_build_id *b, uint64_t *here, uint64_t *cached)
{
	char dir[4096], path[4096 + 2 * PERFSINK_KIT_BUILD_ID_MAX + 32];
	struct stat st;

	*here = stat(b->name, &st) == 0 ? (uint64_t)st.st_size : 0;
	*cached = 0;
	if (perfsink_kit_buildid_cache_dir(dir, sizeof(dir)) == 0 &&
	    (size_t)snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s/elf", dir, b->hex, b->hex + 2) <
		    sizeof(path) &&
	    stat(path, &st) == 0)
		*cached = (uint64_t)st.st_size;
}

/* 1 when settled (sent, there, or not to send), 0 to try again with a later stream. */
static int ship_executable(struct symship *s, const struct perfsink_kit_build_id *b)
{
	char key[128];
	uint64_t remote = 0, size = 0, here = 0, cached = 0, local;
	int have, rc;

	snprintf(key, sizeof(key), "buildid/%s/executable", b->hex);
	if (b->kind == PERFSINK_KIT_SYM_ELF) {
		local_sizes(b, &here, &cached);
		/* Over the cap without a read only when no candidate is under it. */
		if (here > s->conf->symbols_max && (!cached || cached > s->conf->symbols_max)) {
			read_failed(s, -EFBIG, cached ? cached : here);
			return 1;
		}
	}
	local = cached ? cached : here;
	have = head(s, key, &remote);
	if (have < 0) {
		failed(s);
		return 0;
	}
	/* Same build-id, smaller and ours has symbols: theirs was stripped. */
	if (have && !(b->kind == PERFSINK_KIT_SYM_ELF && local > remote)) {
		s->c.present++;
		return 1;
	}
	rc = perfsink_kit_sym_read(b, s->conf->symbols_max, &s->buf, &size);
	if (rc) {
		read_failed(s, rc, size);
		return 1;
	}
	if (have && !perfsink_kit_elf_has_symbols(s->buf.data, s->buf.len)) {
		s->c.present++;
		return 1;
	}
	s->c.replaced += have;
	return send_buf(s, key, &s->c.files);
}

/*
 * Its separate debug file, when the machine has one: in
 * /usr/lib/debug/.build-id, else where its .gnu_debuglink leads (kit.h).
 */
static int ship_debuginfo(struct symship *s, const struct perfsink_kit_build_id *b)
{
	char key[128];
	uint64_t remote, size = 0;
	int have, rc, how;

	if (!perfsink_kit_debug_find(b))
		return 1; /* the machine has none: nothing to count */
	snprintf(key, sizeof(key), "buildid/%s/debuginfo", b->hex);
	have = head(s, key, &remote);
	if (have < 0) {
		failed(s);
		return 0;
	}
	if (have) {
		s->c.present++;
		return 1;
	}
	rc = perfsink_kit_debug_read_of(b, s->conf->symbols_max, &s->buf, &size, &how);
	if (rc) {
		read_failed(s, rc, size);
		return 1;
	}
	have = (int)s->c.files;
	rc = send_buf(s, key, &s->c.files);
	s->c.debuglinks += s->c.files != (unsigned)have && how == PERFSINK_KIT_DEBUG_LINK;
	return rc;
}

/*
 * path as process pid sees it, opened read-only: through /proc/PID/root
 * when pid is alive in another mount namespace, else through the root
 * held for it since it was seen (it is gone, or its pid is another
 * process's now), else here; never through a link as the last component
 * (proc_root.h).  fd or -errno.
 */
static int open_as_seen(const struct job *j, int32_t pid, const char *path, int *in_root)
{
	const struct held_root *r = held_roots_find(&j->roots, pid);
	int other = proc_other_mntns(pid), fd = -ENOENT;

	*in_root = 1;
	if (other == 1 && (fd = proc_root_open(pid, path)) >= 0)
		return fd;
	if (r)
		return proc_root_open_at(r->root, path);
	*in_root = 0;
	return other == 1 ? fd : host_open(path);
}

/*
 * fd is the file the MMAP2 record of d mapped: its inode, and on the host
 * its device too (a container's overlay shows its own device); a record
 * without them (MMAP) proves nothing either way.
 */
static int is_mapped_file(int fd, const struct jitdump *d, int in_root)
{
	struct stat st;

	if (!d || !d->ino)
		return 1;
	return fstat(fd, &st) == 0 && st.st_ino == d->ino &&
	       (in_root || st.st_dev == makedev(d->maj, d->min));
}

/*
 * The file at path as process pid sees it into s->buf (open_as_seen);
 * mapped (a jitdump's record, NULL for a JIT map): only when it is the
 * file that record mapped, else named and counted as changed.
 * 1 read, 0 none there (or a link, or not a regular file: not a runtime's
 * file), <0 not read (counted).
 */
static int read_as_seen(struct symship *s, const struct job *j, int32_t pid, const char *path,
			const struct jitdump *mapped)
{
	char fdpath[32];
	uint64_t size = 0;
	int in_root, rc, fd = open_as_seen(j, pid, path, &in_root);

	if (fd < 0)
		return 0;
	if (!is_mapped_file(fd, mapped, in_root)) {
		/* The name leads elsewhere now (a link, another file): never sent. */
		close(fd);
		LOG(s, WARN, "symbols: jitdump %s not shipped: not the file its process mapped", path);
		read_failed(s, -ESTALE, 0);
		return -ESTALE;
	}
	proc_fd_path(fd, fdpath, sizeof(fdpath));
	rc = perfsink_kit_file_read(fdpath, s->conf->symbols_max, &s->buf, &size);
	close(fd);
	if (rc) {
		read_failed(s, rc, size);
		return rc;
	}
	return 1;
}

/*
 * The JIT map of host pid into s->buf, as the process wrote it: in its own
 * /tmp under its own pid when it is in another mount namespace (read
 * through its root), else /tmp/perf-NSPID.map here (NSpid: its pid in its
 * pid namespace, the one held with its root once it is gone; the host
 * pid for a process of this namespace, or gone unheld).
 * 1 read, 0 none there, <0 not read (counted).
 */
static int jit_map_read(struct symship *s, const struct job *j, int32_t pid)
{
	const struct held_root *r = held_roots_find(&j->roots, pid);
	char path[64];
	int nspid = proc_nspid(pid);

	if (r && (nspid <= 0 || proc_other_mntns(pid) != 1))
		nspid = r->nspid; /* gone, or the pid is another process's now */
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", nspid > 0 ? nspid : (int)pid);
	return read_as_seen(s, j, pid, path, NULL);
}

/* Under the host pid's name: the recording's samples carry host pids, and
 * perf report on the fetching machine looks for /tmp/perf-HOSTPID.map. */
static void ship_jit(struct symship *s, const struct job *j)
{
	for (size_t i = 0; i < j->npids && !past_deadline(s) && s->fails < FAILS_MAX; i++) {
		char key[1024];

		if (j->pids[i] <= 0)
			continue; /* an empty slot of the pid set */
		if (jit_map_read(s, j, j->pids[i]) != 1)
			continue;
		snprintf(key, sizeof(key), "%s/jit/perf-%d.map", j->key_base, (int)j->pids[i]);
		send_buf(s, key, &s->c.jit);
	}
}

static void ship_dumps(struct symship *s, const struct job *j)
{
	for (size_t i = 0; i < j->dumps.n && !past_deadline(s) && s->fails < FAILS_MAX; i++) {
		char name[256], key[1400];

		if (jitdump_escape(j->dumps.v[i].path, name, sizeof(name)) < 0) {
			LOG(s, WARN, "symbols: jitdump %s not shipped: its path is too long for a "
			    "collector's file name", j->dumps.v[i].path);
			continue;
		}
		/* Read now: the runtime appended to it until it exited. */
		if (read_as_seen(s, j, j->dumps.v[i].pid, j->dumps.v[i].path, &j->dumps.v[i]) != 1)
			continue;
		snprintf(key, sizeof(key), "%s/jit/%s", j->key_base, name);
		send_buf(s, key, &s->c.dumps);
	}
}

/* What this session shipped so far: the counters since its first job. */
static void session_counts(const struct symship *s, uint64_t v[4])
{
	const struct ship_counts *c = &s->c, *a = &s->at_start;

	v[0] = (uint64_t)(c->files + c->jit + c->dumps) - (a->files + a->jit + a->dumps);
	v[1] = c->bytes - a->bytes;
	v[2] = (uint64_t)(c->over_cap + c->over_budget) - (a->over_cap + a->over_budget);
	v[3] = c->over_cap_bytes + c->over_budget_bytes - a->over_cap_bytes - a->over_budget_bytes;
}

/* A job of another session than the last: its counters start from here. */
static void session_begin(struct symship *s, const struct job *j)
{
	if (s->session && !strcmp(s->session, j->key_base))
		return;
	free(s->session);
	s->session = strdup(j->key_base);
	s->at_start = s->c;
}

/*
 * buildid/sessions/{host}/{session}: what this session shipped and
 * skipped, for `perfsink ls`.  In the symbols' tree (no build-id is
 * named "sessions"): the session's folder holds its parts, the host's its
 * sessions and end markers, and readers take every other top folder for
 * a host.
 * Best effort, after each stream's end: a failure is only logged.
 */
static void session_note(struct symship *s, const struct job *j)
{
	char key[1100], body[256];
	uint64_t v[4];
	int n;

	if (j->interim || past_deadline(s) || s->fails >= FAILS_MAX)
		return;
	session_counts(s, v);
	n = snprintf(body, sizeof(body),
		     "{\"files\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"skipped\": %" PRIu64
		     ", \"skipped_bytes\": %" PRIu64 "}\n", v[0], v[1], v[2], v[3]);
	snprintf(key, sizeof(key), "buildid/sessions/%s", j->key_base);
	if (put(s, key, (const uint8_t *)body, (size_t)n) < 0)
		LOG(s, DEBUG, "symbols: %s not written", key);
}

/*
 * symbols = sampled: a file no sample fell in is not shipped, counted once
 * at a stream's end (while recording a sample may still come).  1 to skip b.
 */
static int unsampled(struct symship *s, const struct job *j, const struct perfsink_kit_build_id *b)
{
	if (s->conf->symbols != SYMBOLS_SAMPLED || b->sampled)
		return 0;
	if (!j->interim && !settled(s, 'u', b->hex)) {
		s->c.unsampled++;
		settle(s, 'u', b->hex);
	}
	return 1;
}

static void run_job(struct symship *s, const struct job *j)
{
	const enum http_symbols what = s->conf->symbols;
	const int all = what == SYMBOLS_ALL || what == SYMBOLS_SAMPLED;
	struct perfsink_kit_build_id b;
	size_t off = 0;

	s->fails = 0;
	s->interim = j->interim;
	session_begin(s, j);
	while (perfsink_kit_build_id_next(j->recs, j->len, &off, &b)) {
		if (unsampled(s, j, &b))
			continue;
		if (past_deadline(s) || s->fails >= FAILS_MAX) {
			s->c.left += !j->interim;
			continue;
		}
		if ((what == SYMBOLS_EXECUTABLE || all) && !settled(s, 'e', b.hex) &&
		    ship_executable(s, &b))
			settle(s, 'e', b.hex);
		if ((what == SYMBOLS_DEBUGINFO || all) && b.kind == PERFSINK_KIT_SYM_ELF &&
		    !settled(s, 'd', b.hex) && ship_debuginfo(s, &b))
			settle(s, 'd', b.hex);
	}
	ship_jit(s, j);
	ship_dumps(s, j);
	s->c.unheld += (unsigned)held_roots_unheld(&j->roots);
	publish(s);
	session_note(s, j);
}

static void job_free(struct perfsink_kit_job *kj)
{
	struct job *j = (struct job *)kj;

	free(j->recs);
	free(j->key_base);
	free(j->pids);
	dump_set_free(&j->dumps);
	held_roots_close(&j->roots);
	free(j);
}

/* The worker's thread: one stream's symbols (the shipper keeps no error). */
static int job_run(struct perfsink_kit_job *kj, int err)
{
	(void)err;
	run_job(kj->ctx, (const struct job *)kj);
	return 0;
}

int symship_new(const struct perfsink_instance *inst, const struct http_conf *conf,
		struct symship **out)
{
	struct symship *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return -ENOMEM;
	s->inst = inst;
	s->conf = conf;
	rc = perfsink_kit_worker_new(&(struct perfsink_kit_worker_conf){ .host = inst->host },
				     &s->worker);
	if (rc) {
		free(s);
		return rc;
	}
	*out = s;
	return 0;
}

/* The interim jobs of key_base (arg) not started yet: a newer list holds theirs. */
static int interim_of(const struct perfsink_kit_job *kj, void *key_base)
{
	const struct job *j = (const struct job *)kj;

	return j->interim && !strcmp(j->key_base, key_base);
}

static int queue(struct symship *s, const uint8_t *recs, size_t len, const char *key_base,
		 const int32_t *pids, size_t npids, const struct dump_set *dumps,
		 struct held_roots *roots, int interim)
{
	struct job *j = calloc(1, sizeof(*j));

	if (!j)
		return -ENOMEM;
	if (dumps && dump_set_copy(&j->dumps, dumps) < 0) {
		free(j);
		return -ENOMEM;
	}
	j->recs = malloc(len ? len : 1);
	j->key_base = strdup(key_base);
	j->pids = malloc(npids ? npids * sizeof(*pids) : 1);
	if (!j->recs || !j->key_base || !j->pids) {
		job_free(&j->kj);
		return -ENOMEM;
	}
	if (len) /* a stream with no build-ids passes recs NULL */
		memcpy(j->recs, recs, len);
	j->len = len;
	if (npids)
		memcpy(j->pids, pids, npids * sizeof(*pids));
	if (roots)
		held_roots_move(&j->roots, roots);
	j->npids = npids;
	j->interim = interim;
	j->kj.run = job_run;
	j->kj.done = job_free;
	j->kj.ctx = s;
	perfsink_kit_worker_drop(s->worker, interim_of, (void *)key_base);
	return perfsink_kit_worker_push(s->worker, &j->kj);
}

int symship_queue(struct symship *s, const uint8_t *recs, size_t len, const char *key_base,
		  const int32_t *pids, size_t npids, const struct dump_set *dumps,
		  struct held_roots *roots)
{
	return queue(s, recs, len, key_base, pids, npids, dumps, roots, 0);
}

int symship_queue_interim(struct symship *s, const uint8_t *recs, size_t len, const char *key_base)
{
	return queue(s, recs, len, key_base, NULL, 0, NULL, NULL, 1);
}

void symship_wait(struct symship *s, int64_t deadline_ms)
{
	perfsink_kit_worker_wait(s->worker, deadline_ms);
}

void symship_stats(struct symship *s, struct perfsink_sink_stats *out)
{
	out->symbols_files = atomic_load(&s->st_files);
	out->symbols_bytes = atomic_load(&s->st_bytes);
	out->symbols_skipped = atomic_load(&s->st_skipped);
	out->symbols_skipped_bytes = atomic_load(&s->st_skipped_bytes);
	out->symbols_unsampled = atomic_load(&s->st_unsampled);
}

unsigned symship_close(struct symship *s, int64_t deadline_ms)
{
	const struct ship_counts *c = &s->c;
	char unheld[160] = "";
	unsigned unshipped;

	atomic_store(&s->deadline, deadline_ms > 0 ? deadline_ms : 1);
	perfsink_kit_worker_free(s->worker); /* runs what is queued, to the deadline */
	if (c->unheld)
		snprintf(unheld, sizeof(unheld),
			 ", %u container processes whose root was not held (over %d): their JIT files "
			 "only if alive at the end", c->unheld, HELD_ROOTS_MAX);
	if (c->files || c->present || c->over_cap || c->changed || c->failed || c->left || c->jit || c->dumps ||
	    c->unheld || c->unsampled || c->over_budget)
		LOG(s, INFO,
		    "symbols: %u files shipped (%" PRIu64 " bytes, %u replacing a stripped upload, "
		    "%u debug files found through .gnu_debuglink), "
		    "%u already on the collector, %u no sample fell in (symbols = sampled), "
		    "%u over symbols_max (%" PRIu64 " bytes), %u over symbols_budget (%" PRIu64 " bytes), "
		    "%u JIT maps, %u jitdump files, %u changed or gone since mapped, %u failed, %u not tried (drain_timeout, or the collector failing)%s",
		    c->files, c->bytes, c->replaced, c->debuglinks, c->present, c->unsampled, c->over_cap, c->over_cap_bytes,
		    c->over_budget, c->over_budget_bytes, c->jit, c->dumps,
		    c->changed + c->missing, c->failed, c->left, unheld);
	unshipped = c->failed + c->left;
	perfsink_kit_buf_free(&s->buf);
	free(s->done);
	free(s->session);
	free(s);
	return unshipped;
}
