/*
 * JIT symbol maps back where perf report looks for them.  The http sink
 * ships each recorded process's /tmp/perf-PID.map (written by JIT
 * runtimes: "START SIZE name" lines) to {host}/{session}/jit/perf-PID.map;
 * perf 6.1 resolves samples in a process's anonymous executable mappings
 * with /tmp/perf-PID.map of that pid, and only when the file is owned by
 * the reader or root.
 *
 * /tmp is shared: a map is created there (O_EXCL, never through a
 * symlink, mode 0644, owned by the fetching user) only when no file of
 * that name exists.  One that exists belongs to a process of this machine
 * with the same pid, or to an earlier fetch: it is left as it is, named in
 * a warning and counted.
 *
 * A collector chooses how many JIT files a session has (3000 maps from one
 * were all placed in /tmp): at most lim->files files (maps and jitdump
 * files together) and lim->bytes bytes are placed; the others are counted
 * and named in one line, not fetched.  A file is downloaded to a temporary
 * name beside its place and renamed there without replacing anything, so
 * an interrupted fetch leaves no partial file under the name perf reads.
 */
#ifndef PS_FETCH_JIT_MAPS_H
#define PS_FETCH_JIT_MAPS_H
#include <stdint.h>
#include "fetch/jit_file.h"

struct collector;
struct jit_dumps_result;

struct jit_maps_result {
	unsigned maps;      /* perf-PID.map objects in the session's jit/ */
	unsigned placed;    /* created in dir */
	unsigned present;   /* a file of that name was there: left alone */
	unsigned capped;    /* over lim->files or lim->bytes: not placed */
	unsigned failed;    /* download or write errors (each named in a message) */
	uint64_t bytes;     /* bytes written */
};

/*
 * Place the maps of host/session into dir ("/tmp" for perf report), and
 * its jitdump files at their recorded paths (jit_dumps.h; home: $HOME),
 * within lim.  Messages go through base/log.h.  0, or -errno when the
 * collector could not list jit/ or a stop was asked for (-EINTR; c->err
 * says why); a session without maps is 0 with res->maps == 0.
 */
int jit_maps_place(struct collector *c, const char *host, const char *session, const char *dir,
		   const char *home, struct jit_limits *lim, struct jit_maps_result *res,
		   struct jit_dumps_result *dumps);

/* jit_name_pid of a map's name, "perf-PID.map". */
int jit_map_name_pid(const char *name);

#endif
