/*
 * zs_file: one perf.data output of the zstd sink.
 *
 * Layout: host->file_header(stream, NULL) at 0, data appended through the
 * shared aio_writer (whole records per write, so every completed prefix is
 * a record boundary and data.size follows it with a pwrite), then at the
 * end host->file_features() at data_offset + data.size and the final header
 * at 0.
 *
 * Full disk.  Before each append, the space for the append plus a reserve
 * (twice the feature section's size at start, at least 64 KiB) is
 * allocated with fallocate(FALLOC_FL_KEEP_SIZE).  When that fails the
 * append is refused with -ENOSPC, so the reserve right after the last
 * complete write is still there for the features: the file stays readable.
 * File systems without fallocate simply go without a reserve; then, and
 * after any other write error, the finish cuts the file back to the
 * completed prefix before writing the features, and if they still do not
 * fit (EFBIG from a file size limit, which fallocate ignores), back to
 * earlier batch ends, one at a time, until they do.
 *
 * Creation: perfsink_kit_output (perfsink/kit.h).  The file is a temporary one
 * beside the path until zs_file_begin has written the header and the
 * reserve, then renamed into place (an existing output becomes .old); a
 * file that never began, or that the sink discards, is removed and the
 * .old put back, so a failed start leaves an existing output as it was.
 *
 * Loss.  Every append is recorded with the ring bytes and records it
 * holds; zs_file_finish reports what lies past the end it keeps (failed
 * writes, writes after them, batches cut back for the features).
 *
 * THREADS.  zs_file_create/begin/finish/discard/close and zs_file_drain: the engine
 * thread.  zs_file_append: the sink's writer thread, one at a time.  The
 * done callback and data.size updates run on the aio_writer's thread.
 */
#ifndef ZS_FILE_H
#define ZS_FILE_H
#include <pthread.h>
#include <stdint.h>
#include <perfsink/sink.h>
#include <perfsink/kit.h>

#define ZS_FILE_MARKS 256

/* Where an append ends and what the file holds up to there. */
struct zs_mark {
	uint64_t end;      /* file offset */
	uint64_t in_bytes; /* ring bytes of the records up to end */
	uint64_t records;
};

struct zs_file {
	char *path;
	int fd;               /* out.fd, -1 when closed */
	struct perfsink_kit_output out;
	int begun;            /* zs_file_begin succeeded */
	int renamed;          /* a rotated segment's name was taken: path is NAME.N */
	uint64_t data_offset; /* where records start */
	uint64_t reserve;     /* bytes kept allocated after the data */
	int can_reserve;      /* fallocate works on this file system */
	struct perfsink_kit_aiow *w;
	/* marks_mu: the writer thread appends, stats read; nests inside nothing. */
	pthread_mutex_t marks_mu;
	struct zs_mark marks[ZS_FILE_MARKS]; /* last appends (ring) */
	unsigned nr_marks;             /* total pushed */
	uint64_t in_bytes, records;    /* appended so far */
	const struct perfsink_host *host;
	const struct perfsink_stream *stream;
};

/* A closed zs_file (once, before any other call; zs_file_close keeps it so). */
void zs_file_init(struct zs_file *f);
/*
 * Create the temporary file of output path (perfsink_kit_output_create, or
 * for a rotated segment, s ROTATING, perfsink_kit_output_create_new; why:
 * one line).
 */
int zs_file_create(struct zs_file *f, const char *path, const struct perfsink_stream *s,
		   char *why, size_t n);
/*
 * Write the provisional header, size the reserve, put the file in place,
 * start the writer with nr_cb control blocks; done_ctx is passed to every
 * done().  why is filled when the failure is not a plain write error.
 */
int zs_file_begin(struct zs_file *f, const struct perfsink_host *host,
		  const struct perfsink_stream *s, unsigned nr_cb, void *done_ctx,
		  char *why, size_t n);
/*
 * Queue len bytes (whole records made of in_bytes ring bytes holding
 * records records).  On 0, done() is called once.
 */
int zs_file_append(struct zs_file *f, const void *data, size_t len, uint64_t in_bytes,
		   uint64_t records, perfsink_kit_aiow_done_fn done, void *arg);
/* Wait for every append; 0 or the writer's sticky error. */
int zs_file_drain(struct zs_file *f);
/* What zs_file_finish kept and lost. */
struct zs_file_result {
	uint64_t data_size;     /* bytes of records kept */
	uint64_t kept_in;       /* ring bytes of the records kept */
	uint64_t lost_in;       /* ring bytes appended but not kept */
	uint64_t lost_records;
	uint64_t retries;
};
/*
 * Stop the writer and make the file final with the COMPRESSED feature comp
 * (may be NULL).  Returns 0 or a negative errno; then data.size still ends
 * on a record on disk, but the features are missing (perf cannot read it).
 */
int zs_file_finish(struct zs_file *f, const struct perfsink_compression *comp,
		   struct zs_file_result *res);
/*
 * Any thread: ring bytes and records appended that can no longer reach the
 * file, because its writer failed (0 while it has not).
 */
void zs_file_lost(struct zs_file *f, uint64_t *in_bytes, uint64_t *records);
/* Stop the writer, remove the file, put the output it replaced back. */
int zs_file_discard(struct zs_file *f);
/* Close the descriptors; a file that never began is discarded. */
int zs_file_close(struct zs_file *f);

#endif
