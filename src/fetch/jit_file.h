/*
 * What placing a JIT map (jit_maps.c) and a jitdump file (jit_dumps.c)
 * share: the caps on files and bytes, the pid in a JIT file's name, and
 * one file fetched from a collector into a directory without following a
 * link or replacing anything.
 */
#ifndef PS_FETCH_JIT_FILE_H
#define PS_FETCH_JIT_FILE_H
#include <stdint.h>

struct collector;

#define JIT_FILES_DEFAULT 256
#define JIT_BYTES_DEFAULT (1ull << 30)

/* The caps, and what they let through so far (maps and dumps together). */
struct jit_limits {
	unsigned files;     /* files placed at most (0: JIT_FILES_DEFAULT) */
	uint64_t bytes;     /* bytes placed at most (0: JIT_BYTES_DEFAULT) */
	unsigned files_used;
	uint64_t bytes_used;
};

/*
 * The pid of a JIT file's name "PREFIX PID SUFFIX" (PID 1..INT_MAX, no
 * leading 0), as runtimes name them ("perf-", ".map"; "jit-", ".dump"); -1
 * if name is not one.
 */
int jit_name_pid(const char *name, const char *prefix, const char *suffix);
/*
 * The collector's object rel as name in dirfd, created here and now or not
 * at all: downloaded to a temporary ".NAME.XXXXXX" (O_EXCL, never through a
 * symlink), mode 0644 whatever the umask, then renamed to name without
 * replacing anything.  Within lim (counted there when placed); *len gets
 * the bytes.  0, -EEXIST (something is there: untouched), -EDQUOT (over
 * lim: not placed), or -errno (c->err may say why; nothing is left
 * behind).
 */
int jit_file_fetch(struct collector *c, const char *rel, int dirfd, const char *name,
		   struct jit_limits *lim, uint64_t *len);
/* One error line for a jit_file_fetch that failed with rc (what: "jit map", "jitdump"). */
void jit_fetch_error(struct collector *c, const char *what, const char *rel, const char *path, int rc);

#endif
