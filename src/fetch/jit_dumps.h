/*
 * jitdump files back where `perf inject --jit` reads them.  The http sink
 * ships each jitdump file a recording mapped (DIR/jit-PID.dump, written by
 * JIT runtimes) to {host}/{session}/jit/NAME, NAME its absolute path with
 * every byte but [A-Za-z0-9.-] written "_xx" (hex).  perf inject --jit
 * reads the file at the path of its MMAP record and writes
 * jitted-PID-N.so beside it, which perf report then reads.
 *
 * Writing at any path a recording names, as root, would let whoever made
 * the recording write anywhere: a dump is placed only under /tmp or the
 * fetching user's ~/.debug/jit (where jvmti's agent writes them).  The
 * collector names the path: under /tmp a dump goes only into a directory
 * that exists already and is the fetching user's (no directory is ever
 * made in /tmp: root once made /tmp/tmux-1000 for a collector); under
 * ~/.debug/jit missing directories are made (0755).  Never through a
 * symlink; a directory on the way that is not ours, or that others may
 * write, is refused; the file is placed as jit_file_fetch places it,
 * never over an existing one (left as it is, named in a warning,
 * counted).  A dump elsewhere, or in a /tmp directory that is missing or
 * not ours, is named in one line with where it would go, and not placed.
 */
#ifndef PS_FETCH_JIT_DUMPS_H
#define PS_FETCH_JIT_DUMPS_H
#include <stddef.h>
#include <stdint.h>

struct collector;
struct jit_limits;

struct jit_dumps_result {
	unsigned dumps;     /* jitdump objects in the session's jit/ */
	unsigned placed;    /* created at their recorded path */
	unsigned present;   /* a file was there: left alone */
	unsigned outside;   /* recorded outside /tmp and ~/.debug/jit: not placed */
	unsigned refused;   /* in a /tmp directory missing or not ours: not placed */
	unsigned capped;    /* over the jit_limits: not placed */
	unsigned failed;    /* download or write errors, refused ~/.debug/jit directories */
	uint64_t bytes;     /* bytes written */
};

/*
 * Place the object name of the session's jit/ folder rel_dir
 * ("HOST/SESSION/jit/") at its recorded path when it is a jitdump file
 * (counted in res; another name is left alone); home is the fetching
 * user's home ($HOME; NULL: only /tmp).  Messages go through base/log.h.
 * jit_maps_place walks the folder.  -EINTR when the collector's stop flag
 * ended it, else 0.
 */
int jit_dump_place(struct collector *c, const char *rel_dir, const char *name, const char *home,
		   struct jit_limits *lim, struct jit_dumps_result *res);

/*
 * The absolute path a collector name stands for ("_2ftmp_2fjit-7.dump"
 * is "/tmp/jit-7.dump") into n bytes of out.  0, or -EINVAL when name is
 * not one the sink writes: a byte it escapes left as it is, a bad escape,
 * not absolute, an empty, "." or ".." component, or a last component
 * other than jit-PID.dump.
 */
int jit_dump_name_path(const char *name, char *out, size_t n);
/*
 * Where path may be placed: the length of its base, "/tmp" (4) or
 * "HOME/.debug/jit", the part below it being non-empty; 0 when it is under
 * neither (home NULL or empty: /tmp only).
 */
size_t jit_dump_base(const char *path, const char *home);

#endif
