/*
 * `perfsink fetch`: the parts of one session, in seq order, checked, into a
 * perf.data file; then the build-id cache from the collector's buildid/.
 * See fetch.h and docs/http-sink.md.
 */
#include "fetch/fetch.h"
#include "fetch/collector.h"
#include "fetch/fetch_output.h"
#include "fetch/jit_dumps.h"
#include "fetch/jit_maps.h"
#include "fetch/pipe_to_file.h"
#include "fetch/sampled.h"
#include "fetch/symbols.h"
#include "base/log.h"
#include <perfsink/kit.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct fetch_state {
	struct collector *c;
	const char *host, *session;
	struct perfsink_kit_output out;
	int scratch;              /* a downloaded part, nameless */
	struct p2f w;
	uint64_t next;            /* next seq to take */
	int64_t end_parts;        /* from the end marker; -1 before it is seen */
	unsigned problems;        /* gaps and corrupt parts reported */
	uint64_t parts, bytes;    /* taken into the file */
};

static int seq_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/*
 * Seqs from s->next on present in host/session/, sorted; -errno on a
 * listing error.  Sorted once with qsort, and a --follow pass sorts only
 * what is new: 100 001 parts listed in reverse took 30 s of CPU (an
 * insertion sort) before the first GET, again on every pass.
 */
static int parts_list(struct fetch_state *s, uint64_t **seqs, size_t *n)
{
	struct perfsink_coll_list l = { 0 };
	char rel[1024];
	snprintf(rel, sizeof(rel), "%s/%s/", s->host, s->session);
	int rc = collector_list(s->c, rel, &l);
	*seqs = NULL;
	*n = 0;
	if (rc == 0 && l.nr && !(*seqs = malloc(l.nr * sizeof(**seqs))))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < l.nr; i++) {
		uint64_t seq;
		if (!l.e[i].is_dir && part_name_seq(l.e[i].name, &seq) == 0 && seq >= s->next)
			(*seqs)[(*n)++] = seq;
	}
	perfsink_coll_list_free(&l);
	if (*n > 1)
		qsort(*seqs, *n, sizeof(**seqs), seq_cmp);
	return rc;
}

/* The end marker's part count, -1 when there is none yet. */
static int end_read(struct fetch_state *s)
{
	struct bytes b;
	char rel[1024];
	bytes_init(&b);
	snprintf(rel, sizeof(rel), "%s/%s.end", s->host, s->session);
	int rc = collector_get(s->c, rel, &b, END_MARKER_MAX);
	if (rc == 0) {
		s->end_parts = end_marker_parts((const char *)b.p, b.len);
		if (s->end_parts < 0)
			pr_warn("%s: not an end marker ({\"parts\": N}); ignored", rel);
	}
	bytes_free(&b);
	return rc == -ENOENT ? 0 : rc;
}

static void gap_report(struct fetch_state *s, uint64_t from, uint64_t to, const char *after)
{
	s->problems++;
	if (from + 1 == to)
		pr_err("gap: part %010" PRIu64 " of %s/%s is missing (%s); the file lacks its records",
		       from, s->host, s->session, after);
	else
		pr_err("gap: parts %010" PRIu64 "..%010" PRIu64 " of %s/%s are missing (%s); the file "
		       "lacks their records", from, to - 1, s->host, s->session, after);
}

/* Why part seq is not in the file: one line; 1, or a fatal -EBADMSG for part 0. */
static int part_corrupt(struct fetch_state *s, const char *rel, uint64_t seq, uint64_t len, const char *err)
{
	s->problems++;
	pr_err("corrupt part: %s (%" PRIu64 " bytes): %s; its records are not in the file", rel, len, err);
	if (seq)
		return 1;
	pr_err("part 0 (the stream's header and attrs) is unusable: no file can be made");
	return -EBADMSG;
}

/*
 * Download part seq to the scratch file (memory stays bounded whatever
 * its size), check it, and convert it.  0, 1 (reported problem), <0
 * fatal (reported, but for -EINTR).
 */
static int part_take(struct fetch_state *s, uint64_t seq)
{
	char rel[1024], err[600];
	uint64_t len = 0;
	snprintf(rel, sizeof(rel), "%s/%s/%010" PRIu64, s->host, s->session, seq);
	int rc = collector_get_fd(s->c, rel, s->scratch, FETCH_PART_MAX, &len);
	if (rc == -ENOENT || rc == -EFBIG)
		return part_corrupt(s, rel, seq, len, s->c->err);
	if (rc == 0)
		rc = part_check_fd(s->scratch, len, seq == 0, err, sizeof(err));
	if (rc == 0)
		rc = p2f_part_fd(&s->w, s->scratch, len, seq == 0, err, sizeof(err));
	if (rc == -EBADMSG)
		return part_corrupt(s, rel, seq, len, err);
	if (rc == 0) {
		s->parts++;
		s->bytes += len;
	} else if (rc != -EINTR) {
		pr_err("%s: %s", rel, rc == -EIO || rc == -ETIMEDOUT ? s->c->err : strerror(-rc));
	}
	return rc;
}

/*
 * One pass: take every part from s->next on that is there now.  A seq
 * that is missing while a later one is present is a gap (the sink sends
 * in seq order, one at a time); so is one below the end marker's count.
 */
static int pass(struct fetch_state *s, int *took)
{
	uint64_t *seqs = NULL;
	size_t n = 0, i = 0;
	*took = 0;
	int rc = end_read(s);
	if (rc == 0)
		rc = parts_list(s, &seqs, &n);
	if (rc < 0) {
		if (rc != -EINTR)
			pr_err("%s", rc == -ENOMEM ? strerror(ENOMEM) : s->c->err);
		return rc;
	}
	for (; rc >= 0 && i < n; i++) {
		if (seqs[i] > s->next) {
			if (s->next == 0) {
				pr_err("part 0000000000 of %s/%s (the stream's header) is missing: no file "
				       "can be made", s->host, s->session);
				rc = -ENOENT;
				break;
			}
			char why[64];
			snprintf(why, sizeof(why), "part %010" PRIu64 " is present", seqs[i]);
			gap_report(s, s->next, seqs[i], why);
		}
		rc = part_take(s, seqs[i]);
		s->next = seqs[i] + 1;
		(*took)++;
	}
	if (rc >= 0 && s->end_parts >= 0 && s->next < (uint64_t)s->end_parts) {
		int64_t t = s->end_parts;
		/* The marker is written after the last part: what is absent now is lost. */
		if (s->next == 0) {
			pr_err("part 0000000000 of %s/%s (the stream's header) is missing: no file can be "
			       "made", s->host, s->session);
			rc = -ENOENT;
		} else {
			char why[80];
			snprintf(why, sizeof(why), "the end marker says %" PRId64 " parts", t);
			gap_report(s, s->next, (uint64_t)t, why);
			s->next = (uint64_t)t;
		}
	}
	free(seqs);
	return rc < 0 ? rc : 0;
}

/* Sleep ms, waking early when *stop is set. */
static void nap(int64_t ms, volatile sig_atomic_t *stop)
{
	for (; ms > 0 && !(stop && *stop); ms -= 50) {
		struct timespec ts = { 0, (ms < 50 ? ms : 50) * 1000000L };
		nanosleep(&ts, NULL);
	}
}

/* One line for the symbols step; the exit code's share (1 when something was refused). */
static int symbols_say(const struct symbols_result *r, const char *dir, const char *msg)
{
	if (r->refused)
		pr_err("symbols: %s; %u build-ids not placed in %s", msg, r->refused, dir);
	if (!r->build_ids) {
		pr_info("symbols: the recording lists no build-ids; nothing to fetch into %s", dir);
		return 0;
	}
	pr_info("symbols: %u files, %.1f MB fetched (%" PRIu64 " bytes) into %s (%u build-ids, %u with "
		"debuginfo), %u already there, %u not needed, %u not on the collector, %u refused",
		r->files, r->bytes / 1e6, r->bytes, dir, r->build_ids, r->debuginfo, r->cached,
		r->not_needed, r->build_ids - r->found - r->cached - r->not_needed - r->refused, r->refused);
	return r->refused ? 1 : 0;
}

/*
 * --symbols=lazy on a recording without marks (symbols_marked): the DSOs
 * the file's samples and their call chains fell in, read back from the
 * file; NULL (after a warning: every build-id is fetched) when they
 * cannot be told.
 */
static struct sampled *sampled_of(struct fetch_state *s)
{
	char why[300] = "";
	struct sampled *sm = NULL;
	int fd = perfsink_kit_output_reopen(&s->out, O_RDONLY | O_CLOEXEC);
	int rc = fd < 0 ? fd : sampled_scan(fd, s->w.data_offset, s->w.data_size, s->w.ev, s->w.nr_ev, &sm,
					   why, sizeof(why));
	if (fd >= 0)
		close(fd);
	if (rc) {
		pr_warn("symbols: cannot tell which DSOs the samples fell in (%s): fetching every build-id",
			why[0] ? why : strerror(-rc));
		return NULL;
	}
	uint64_t n, un;
	sampled_counts(sm, &n, &un);
	pr_debug("symbols: %" PRIu64 " samples read, %" PRIu64 " IPs in no map", n, un);
	return sm;
}

static int symbols_step(struct fetch_state *s, const struct fetch_opts *o)
{
	char dir[4096], msg[1100] = "";
	struct symbols_result r;
	if (o->debug_dir)
		snprintf(dir, sizeof(dir), "%s", o->debug_dir);
	else if (perfsink_kit_buildid_cache_dir(dir, sizeof(dir)) < 0) {
		pr_err("symbols: the build-id cache directory's name is too long (perf's buildid.dir or $HOME)");
		return 1;
	}
	/* The recording's own marks when it has them: no need to read it back. */
	int marked = !o->all_symbols && symbols_marked(p2f_build_ids(&s->w));
	struct sampled *sm = o->all_symbols || marked ? NULL : sampled_of(s);
	struct symbols_filter want = { sampled_need, sm, marked };
	if (marked)
		pr_debug("symbols: the files the recording marks as sampled");
	int rc = symbols_fill(s->c, p2f_build_ids(&s->w), dir, sm || marked ? &want : NULL, &r, msg,
			      sizeof(msg));
	sampled_free(sm);
	if (rc == -EINTR)
		return 1; /* said once, by the caller */
	if (rc && !r.refused) {
		pr_err("symbols: %s", msg[0] ? msg : strerror(-rc));
		return 1;
	}
	return symbols_say(&r, dir, msg) | (rc ? 1 : 0);
}

/* Where perf report reads a process's JIT map (tools/perf/util/map.c). */
#define JIT_MAP_DIR "/tmp"

/* jitdump files go to their recorded paths, for perf inject --jit. */
static int jit_dumps_say(const struct jit_dumps_result *r)
{
	if (!r->dumps)
		return 0;
	pr_info("jitdump files: %u of %u placed at their recorded paths (%" PRIu64 " bytes), %u already "
		"there (left as they are), %u outside /tmp and ~/.debug/jit (not placed), %u in a /tmp "
		"directory that is missing or not ours (not placed), %u over --max-jit-files or "
		"--max-jit-bytes (not placed), %u failed", r->placed, r->dumps, r->bytes, r->present,
		r->outside, r->refused, r->capped, r->failed);
	return r->failed ? 1 : 0;
}

static int jit_step(struct fetch_state *s, const struct fetch_opts *o)
{
	struct jit_maps_result r;
	struct jit_dumps_result d;
	struct jit_limits lim = { .files = o->max_jit_files, .bytes = o->max_jit_bytes };
	int rc = jit_maps_place(s->c, s->host, s->session, JIT_MAP_DIR, getenv("HOME"), &lim, &r, &d);
	if (rc == -EINTR)
		return rc;
	if (rc) {
		pr_err("jit maps: %s", rc == -ENOMEM ? strerror(ENOMEM) : s->c->err);
		return 1;
	}
	int code = jit_dumps_say(&d);
	if (r.capped || d.capped)
		pr_warn("jit: %u maps and %u jitdump files not placed: a session may place %u files and "
			"%" PRIu64 " bytes (--max-jit-files, --max-jit-bytes)", r.capped, d.capped, lim.files,
			lim.bytes);
	if (!r.maps) {
		pr_debug("jit maps: none in %s/%s", s->host, s->session);
		return code;
	}
	pr_info("jit maps: %u of %u placed in " JIT_MAP_DIR " (%" PRIu64 " bytes), %u already there "
		"(left as they are), %u over --max-jit-files or --max-jit-bytes (not placed), %u failed",
		r.placed, r.maps, r.bytes, r.present, r.capped, r.failed);
	return code | (r.failed ? 1 : 0);
}

/* The file whole at its checkpoint, under its name.  0 or -errno (said). */
static int output_place(struct fetch_state *s)
{
	char why[600];
	if (s->out.placed)
		return 0;
	int rc = perfsink_kit_output_place(&s->out, why, sizeof(why));
	if (rc)
		pr_err("%s", why);
	return rc;
}

/* Parts as they come; with --follow until the end marker.  0 or <0. */
static int parts_loop(struct fetch_state *s, const struct fetch_opts *o, int *ended)
{
	int rc = 0;
	while (rc == 0) {
		int took;
		rc = pass(s, &took);
		if (rc == 0 && s->parts && (rc = p2f_checkpoint(&s->w)) < 0)
			pr_err("cannot write %s: %s", o->out, strerror(-rc));
		/* Followed, the file is readable at every step: under its name from the first. */
		if (rc == 0 && s->parts && o->follow)
			rc = output_place(s);
		*ended = s->end_parts >= 0 && s->next >= (uint64_t)s->end_parts;
		if (rc || !o->follow || *ended || (o->stop && *o->stop))
			break;
		if (took)
			pr_debug("follow: %" PRIu64 " parts so far", s->parts);
		nap(o->poll_ms, o->stop);
	}
	return o->stop && *o->stop ? -EINTR : rc;
}

/* One line for a stop asked by a signal; the exit code. */
static int interrupted(struct fetch_state *s, const struct fetch_opts *o)
{
	if (o->follow && s->out.placed) {
		pr_warn("interrupted: %s holds the %" PRIu64 " parts of %s/%s taken so far, readable",
			o->out, s->parts, s->host, s->session);
		return 0;
	}
	if (s->out.placed)
		pr_err("interrupted: %s is whole (%" PRIu64 " parts); its symbols and JIT files may not be",
		       o->out, s->parts);
	else
		pr_err("interrupted: %s not written", o->out);
	return 1;
}

/* What follows the parts: the output placed, symbols and JIT files. */
static int finish(struct fetch_state *s, const struct fetch_opts *o, int ended)
{
	int code = 0;
	pr_info("wrote %s: %" PRIu64 " parts (%" PRIu64 " bytes) of %s/%s, %" PRIu64 " records%s", o->out,
		s->parts, s->bytes, s->host, s->session, s->w.records, o->decompress ? ", decompressed" : "");
	if (!ended)
		pr_warn("%s/%s has no end marker: it is still being recorded, its recorder crashed "
			"or was killed, or its tail waits in the recording host's spool (`perfsink "
			"upload` there sends it); the file holds the parts present now", s->host, s->session);
	if (!o->no_symbols) {
		code |= symbols_step(s, o);
		if (!collector_stopped(s->c)) {
			int rc = jit_step(s, o);
			code |= rc < 0 ? 1 : rc;
		}
	}
	return code;
}

int fetch_run(struct collector *c, const char *host, const char *session, const struct fetch_opts *o)
{
	struct fetch_state s = { .c = c, .host = host, .session = session, .end_parts = -1, .scratch = -1 };
	char why[600];
	perfsink_kit_output_init(&s.out);
	int ended = 0, code, rc = perfsink_kit_output_create(&s.out, o->out, why, sizeof(why));
	if (rc) {
		pr_err("%s", why);
		return 2;
	}
	rc = p2f_init(&s.w, s.out.fd, o->decompress, o->max_ratio);
	if (rc == -ENOTSUP)
		pr_err("--decompress: this build has no zstd support");
	if (rc == 0 && (s.scratch = fetch_output_scratch(s.out.dirfd)) < 0) {
		rc = s.scratch;
		pr_err("cannot create a scratch file beside %s: %s", o->out, strerror(-rc));
	}
	if (rc == 0)
		rc = parts_loop(&s, o, &ended);
	if (rc == 0 && !s.parts) {
		pr_err("%s/%s: no parts on the collector", host, session);
		rc = -ENOENT;
	}
	if (rc == 0 || (rc != -EINTR && s.parts))
		rc = output_place(&s) ? -EIO : rc;
	if (rc == -EINTR) {
		code = interrupted(&s, o);
	} else {
		code = rc < 0 ? 1 : finish(&s, o, ended);
		if (collector_stopped(c))
			code |= interrupted(&s, o);
	}
	if (s.problems) {
		pr_err("%u gap(s) or corrupt part(s) in %s/%s (listed above)", s.problems, host, session);
		code = 1;
	}
	p2f_free(&s.w);
	if (s.scratch >= 0)
		close(s.scratch);
	/* An output never placed (interrupted, nothing to write) is removed. */
	rc = s.out.placed ? perfsink_kit_output_close(&s.out) : perfsink_kit_output_discard(&s.out);
	if (rc < 0 && !code) {
		pr_err("cannot write %s: %s", o->out, strerror(-rc));
		code = 1;
	}
	return code;
}
