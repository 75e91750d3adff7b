/*
 * `perfsink fetch`: the parts of one session, in seq order, checked, into a
 * perf.data file; then the build-id cache from the collector's buildid/.
 * See fetch.h and docs/http-sink.md.
 */
#include "fetch/fetch.h"
#include "fetch/collector.h"
#include "fetch/jit_dumps.h"
#include "fetch/jit_maps.h"
#include "fetch/pipe_to_file.h"
#include "fetch/symbols.h"
#include "base/buildid_dir.h"
#include "base/log.h"

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
	struct p2f w;
	uint64_t next;            /* next seq to take */
	int64_t end_parts;        /* from the end marker; -1 before it is seen */
	unsigned problems;        /* gaps and corrupt parts reported */
	uint64_t parts, bytes;    /* taken into the file */
};

/* Seqs present in host/session/, sorted; -errno on a listing error. */
static int parts_list(struct fetch_state *s, uint64_t **seqs, size_t *n)
{
	struct coll_list l = { 0 };
	char rel[1024];
	snprintf(rel, sizeof(rel), "%s/%s/", s->host, s->session);
	int rc = collector_list(s->c, rel, &l);
	*seqs = NULL;
	*n = 0;
	if (rc == 0 && l.nr && !(*seqs = malloc(l.nr * sizeof(**seqs))))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < l.nr; i++) {
		uint64_t seq;
		if (!l.e[i].is_dir && part_name_seq(l.e[i].name, &seq) == 0)
			(*seqs)[(*n)++] = seq;
	}
	coll_list_free(&l);
	for (size_t i = 1; i < *n; i++) /* listings are small and nearly sorted */
		for (size_t k = i; k > 0 && (*seqs)[k - 1] > (*seqs)[k]; k--) {
			uint64_t t = (*seqs)[k];
			(*seqs)[k] = (*seqs)[k - 1];
			(*seqs)[k - 1] = t;
		}
	return rc;
}

/* The end marker's part count, -1 when there is none yet. */
static int end_read(struct fetch_state *s)
{
	struct bytes b;
	char rel[1024];
	bytes_init(&b);
	snprintf(rel, sizeof(rel), "%s/%s.end", s->host, s->session);
	int rc = collector_get(s->c, rel, &b);
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

/* Download, check and convert part seq.  0, 1 (reported problem), <0 fatal. */
static int part_take(struct fetch_state *s, uint64_t seq)
{
	struct bytes b;
	char rel[1024], err[600];
	snprintf(rel, sizeof(rel), "%s/%s/%010" PRIu64, s->host, s->session, seq);
	bytes_init(&b);
	int rc = collector_get(s->c, rel, &b);
	if (rc == 0)
		rc = part_check(b.p, b.len, seq == 0, err, sizeof(err));
	else
		snprintf(err, sizeof(err), "%s", s->c->err);
	if (rc == 0)
		rc = p2f_part(&s->w, b.p, b.len, seq == 0, err, sizeof(err));
	else if (rc == -EBADMSG || rc == -ENOENT) {
		s->problems++;
		pr_err("corrupt part: %s (%zu bytes): %s; its records are not in the file", rel, b.len, err);
		rc = seq == 0 ? -EBADMSG : 1;
	}
	if (rc == 0) {
		s->parts++;
		s->bytes += b.len;
	} else if (rc < 0 && rc != -EBADMSG) {
		pr_err("%s: %s", rel, rc == -EIO && s->c->err[0] ? s->c->err : strerror(-rc));
	} else if (rc == -EBADMSG && seq == 0) {
		pr_err("part 0 (the stream's header and attrs) is unusable: no file can be made");
	}
	bytes_free(&b);
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
		pr_err("%s", s->c->err);
		return rc;
	}
	while (i < n && seqs[i] < s->next)
		i++;
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

static int symbols_step(struct fetch_state *s, const struct fetch_opts *o)
{
	char dir[4096], msg[512] = "";
	struct symbols_result r;
	if (o->debug_dir)
		snprintf(dir, sizeof(dir), "%s", o->debug_dir);
	else if (buildid_cache_dir(dir, sizeof(dir)) < 0) {
		pr_err("symbols: the build-id cache directory's name is too long (perf's buildid.dir or $HOME)");
		return 1;
	}
	int rc = symbols_fill(s->c, p2f_build_ids(&s->w), dir, &r, msg, sizeof(msg));
	if (rc) {
		pr_err("symbols: %s", msg[0] ? msg : strerror(-rc));
		return 1;
	}
	if (!r.build_ids)
		pr_info("symbols: the recording lists no build-ids; nothing to fetch into %s", dir);
	else
		pr_info("symbols: %u build-ids: %u fetched into %s (%u with debuginfo, %" PRIu64
			" bytes), %u already there, %u not on the collector", r.build_ids, r.found, dir,
			r.debuginfo, r.bytes, r.cached, r.build_ids - r.found - r.cached);
	return 0;
}

/* Where perf report reads a process's JIT map (tools/perf/util/map.c). */
#define JIT_MAP_DIR "/tmp"

/* jitdump files go to their recorded paths, for perf inject --jit. */
static int jit_dumps_say(const struct jit_dumps_result *r)
{
	if (!r->dumps)
		return 0;
	pr_info("jitdump files: %u of %u placed at their recorded paths (%" PRIu64 " bytes), %u already "
		"there (left as they are), %u outside /tmp and ~/.debug/jit (not placed), %u failed",
		r->placed, r->dumps, r->bytes, r->present, r->outside, r->failed);
	return r->failed ? 1 : 0;
}

static int jit_step(struct fetch_state *s)
{
	struct jit_maps_result r;
	struct jit_dumps_result d;
	int rc = jit_maps_place(s->c, s->host, s->session, JIT_MAP_DIR, getenv("HOME"), &r, &d);
	if (rc) {
		pr_err("jit maps: %s", rc == -EIO && s->c->err[0] ? s->c->err : strerror(-rc));
		return 1;
	}
	int code = jit_dumps_say(&d);
	if (!r.maps) {
		pr_debug("jit maps: none in %s/%s", s->host, s->session);
		return code;
	}
	pr_info("jit maps: %u of %u placed in " JIT_MAP_DIR " (%" PRIu64 " bytes), %u already there "
		"(left as they are), %u failed", r.placed, r.maps, r.bytes, r.present, r.failed);
	return code | (r.failed ? 1 : 0);
}

/*
 * The output, as perf record makes it: an existing file is kept as
 * FILE.old; never through a symlink (O_NOFOLLOW, O_EXCL).  fd or -1 after
 * one error line.
 */
static int output_create(const char *path)
{
	struct stat st;
	char old[4096];
	if (lstat(path, &st) == 0) {
		if (!S_ISREG(st.st_mode)) {
			pr_err("%s exists and is not a regular file: refused", path);
			return -1;
		}
		snprintf(old, sizeof(old), "%s.old", path);
		if (rename(path, old) < 0) {
			pr_err("cannot move %s to %s: %s", path, old, strerror(errno));
			return -1;
		}
	}
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		pr_err("cannot create %s: %s", path, strerror(errno));
	return fd;
}

int fetch_run(struct collector *c, const char *host, const char *session, const struct fetch_opts *o)
{
	struct fetch_state s = { .c = c, .host = host, .session = session, .end_parts = -1 };
	int fd = output_create(o->out);
	if (fd < 0)
		return 2;
	int rc = p2f_init(&s.w, fd, o->decompress);
	if (rc == -ENOTSUP)
		pr_err("--decompress: this build has no zstd support");
	int ended = 0;
	while (rc == 0) {
		int took;
		rc = pass(&s, &took);
		if (rc == 0 && s.parts && (rc = p2f_checkpoint(&s.w)) < 0)
			pr_err("cannot write %s: %s", o->out, strerror(-rc));
		ended = s.end_parts >= 0 && s.next >= (uint64_t)s.end_parts;
		if (rc || !o->follow || ended || (o->stop && *o->stop))
			break;
		if (took)
			pr_debug("follow: %" PRIu64 " parts so far", s.parts);
		nap(o->poll_ms, o->stop);
	}
	if (rc == 0 && !s.parts) {
		pr_err("%s/%s: no parts on the collector", host, session);
		rc = -ENOENT;
	}
	int code = rc < 0 ? 1 : 0;
	if (rc == 0) {
		pr_info("wrote %s: %" PRIu64 " parts (%" PRIu64 " bytes) of %s/%s, %" PRIu64 " records%s",
			o->out, s.parts, s.bytes, host, session, s.w.records,
			o->decompress ? ", decompressed" : "");
		if (!ended)
			pr_warn("%s/%s has no end marker: it is still being recorded, its recorder crashed "
				"or was killed, or its tail waits in the recording host's spool (`perfsink "
				"upload` there sends it); the file holds the parts present now", host, session);
		if (!o->no_symbols) {
			code |= symbols_step(&s, o);
			code |= jit_step(&s);
		}
	}
	if (s.problems) {
		pr_err("%u gap(s) or corrupt part(s) in %s/%s (listed above)", s.problems, host, session);
		code = 1;
	}
	p2f_free(&s.w);
	if (close(fd) < 0 && !code) {
		pr_err("cannot write %s: %s", o->out, strerror(errno));
		code = 1;
	}
	if (rc < 0 && !s.parts)
		unlink(o->out);
	return code;
}
