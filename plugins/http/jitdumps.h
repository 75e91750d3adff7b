/*
 * jitdump files of a recording: a JIT runtime that supports `perf inject
 * --jit` (jvmti, V8, ...) writes its code to DIR/jit-PID.dump and maps it
 * executable once, so the recording has an MMAP or MMAP2 record naming the
 * file; perf inject --jit reads the file at that path.  The http sink
 * ships each such file of a stream once, at its end (the runtime appends
 * to it while it runs), to {host}/{session}/jit/NAME, NAME the file's
 * absolute path escaped (jitdump_escape) so that `perfsink fetch` knows
 * where perf inject will look for it.
 *
 * THREADS.  The set belongs to one thread at a time (the engine thread's
 * write(), then the shipper's copy); the name functions are pure.
 */
#ifndef HTTP_JITDUMPS_H
#define HTTP_JITDUMPS_H
#include <stddef.h>
#include <stdint.h>

/*
 * The pid in an absolute path whose last component is "jit-PID.dump"
 * (PID 1..INT_MAX, no leading 0, as perf's jit_detect wants it), else -1.
 */
int jitdump_path_pid(const char *path);
/*
 * The collector's name of the file at path: every byte but [A-Za-z0-9.-]
 * as "_xx" (lower-case hex), so "/tmp/jit-7.dump" is "_2ftmp_2fjit-7.dump";
 * reversible, one path component, safe in a URL and an S3 key.  0, or
 * -ENAMETOOLONG when it would not fit n bytes of out or 255 bytes (a file
 * name on the collector's disk).
 */
int jitdump_escape(const char *path, char *out, size_t n);

struct jitdump {
	int32_t pid;  /* the host pid of the process that mapped it */
	char *path;   /* as the record names it: the process's own view */
	/* From MMAP2: the file mapped (ino 0: not known); what is shipped must be it. */
	uint32_t maj, min;
	uint64_t ino;
};
struct dump_set {
	struct jitdump *v;
	size_t n, cap;
};
/*
 * One record rec of that type and size (a step of the kit's record walk): the
 * jitdump file an MMAP/MMAP2 record names, added once per path, with the
 * device and inode MMAP2 gives.
 */
void dump_set_record(struct dump_set *d, const uint8_t *rec, uint32_t type, uint16_t size);
/* A copy of src into dst (empty before); 0 or -ENOMEM (dst then empty). */
int dump_set_copy(struct dump_set *dst, const struct dump_set *src);
void dump_set_free(struct dump_set *d);

#endif
