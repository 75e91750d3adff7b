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
 */
#ifndef PS_FETCH_JIT_MAPS_H
#define PS_FETCH_JIT_MAPS_H
#include <stdint.h>

struct bytes;
struct collector;
struct jit_dumps_result;

struct jit_maps_result {
	unsigned maps;      /* perf-PID.map objects in the session's jit/ */
	unsigned placed;    /* created in dir */
	unsigned present;   /* a file of that name was there: left alone */
	unsigned failed;    /* download or write errors (each named in a message) */
	uint64_t bytes;     /* bytes written */
};

/*
 * Place the maps of host/session into dir ("/tmp" for perf report), and
 * its jitdump files at their recorded paths (jit_dumps.h; home: $HOME).
 * Messages go through base/log.h.  0, or -errno when the collector could
 * not list jit/ (c->err says why); a session without maps is 0 with
 * res->maps == 0.
 */
int jit_maps_place(struct collector *c, const char *host, const char *session, const char *dir,
		   const char *home, struct jit_maps_result *res, struct jit_dumps_result *dumps);

/*
 * The pid of a JIT file's name "PREFIX PID SUFFIX" (PID 1..INT_MAX, no
 * leading 0), as runtimes name them ("perf-", ".map"; "jit-", ".dump"); -1
 * if name is not one.
 */
int jit_name_pid(const char *name, const char *prefix, const char *suffix);
/* jit_name_pid of a map's name, "perf-PID.map". */
int jit_map_name_pid(const char *name);

/*
 * b as name (relative to dirfd, or AT_FDCWD), created here and now or not
 * at all: O_EXCL, never through a symlink, mode 0644 whatever the umask.
 * 0, -EEXIST (something is there: untouched), or -errno (nothing is left
 * behind).
 */
int jit_file_create(int dirfd, const char *name, const struct bytes *b);

#endif
