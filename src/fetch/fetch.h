/*
 * `perfsink ls` and `perfsink fetch`: what a collector holds, and one
 * session of it back as a perf.data file.  The collector layout is the http
 * sink's (docs/http-sink.md): {host}/{session}/{seq} parts, the end marker
 * {host}/{session}.end, and buildid/.
 *
 * Messages go through base/log.h; the listing goes to out.  Both return
 * the process exit code: 0, 1 (something is missing or corrupt, the
 * collector failed, or a stop was asked for: one line says so), 2 (bad
 * input).
 */
#ifndef PS_FETCH_FETCH_H
#define PS_FETCH_FETCH_H
#include <signal.h>
#include <stdio.h>
#include <stdint.h>

struct collector;

/* One session of a collector, as `ls` shows it. */
struct session_info {
	char *host, *session;
	uint64_t parts, bytes;   /* part objects present and their bytes */
	uint64_t max_seq;        /* highest seq present (valid when parts) */
	int64_t first, last;     /* mtime of the oldest and newest part (s): arrival */
	int64_t start, end;      /* the recording's own start and end (s, the recording
				  * host's clock, from the end marker); 0: not known */
	int ended;               /* {session}.end present */
	uint64_t end_parts;      /* parts the end marker announces */
	int has_symbols;         /* {session}.symbols present */
	int64_t symbol_bytes;    /* the bytes it says were shipped; -1: not known */
};

int ls_run(struct collector *c, int json, FILE *out);

struct fetch_opts {
	const char *out;          /* the perf.data to write */
	int follow;               /* keep fetching a live session */
	int no_symbols;           /* --symbols=none: no ~/.debug, no JIT files */
	int all_symbols;          /* --symbols=all: every build-id, not only the sampled DSOs' */
	int decompress;
	unsigned max_ratio;       /* --decompress: see pipe_to_file.h (0: default) */
	unsigned max_jit_files;   /* see jit_maps.h (0: default) */
	uint64_t max_jit_bytes;
	const char *debug_dir;    /* NULL: $HOME/.debug */
	int64_t poll_ms;          /* --follow: between listings */
	volatile sig_atomic_t *stop; /* set by SIGINT/SIGTERM (the collector's lim.stop too) */
};

/* A part larger than this (the sink's part_size is 4 GiB at most) is refused. */
#define FETCH_PART_MAX ((4ull << 30) + (64ull << 20))

int fetch_run(struct collector *c, const char *host, const char *session, const struct fetch_opts *o);

/* An end marker is read whole; a larger answer is refused. */
#define END_MARKER_MAX 4096
/* "{n}" of an end marker's {"parts": n}; -1 when it says no such thing. */
int64_t end_marker_parts(const char *text, size_t len);
/* A part's name: 10 to 19 digits (no leading 0 beyond 10), as the sink writes it. */
int part_name_seq(const char *name, uint64_t *seq);

#endif
