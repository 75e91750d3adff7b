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
 * THREADS.  zs_file_open/begin/finish/close and zs_file_drain: the engine
 * thread.  zs_file_append: the sink's writer thread, one at a time.  The
 * done callback and data.size updates run on the aio_writer's thread.
 */
#ifndef ZS_FILE_H
#define ZS_FILE_H
#include <stdint.h>
#include <perfsink/sink.h>
#include "aio_writer.h"

#define ZS_FILE_MARKS 64

struct zs_file {
	char *path;
	int fd;
	int created;          /* open() created it: remove it if never begun */
	int begun;            /* zs_file_begin succeeded */
	uint64_t data_offset; /* where records start */
	uint64_t reserve;     /* bytes kept allocated after the data */
	int can_reserve;      /* fallocate works on this file system */
	struct aiow *w;
	uint64_t marks[ZS_FILE_MARKS]; /* last completed write ends (ring) */
	unsigned nr_marks;             /* total pushed */
	const struct perfsink_host *host;
	const struct perfsink_stream *stream;
};

/* Create or open path for writing, without truncating it yet. */
int zs_file_open(struct zs_file *f, const char *path);
/*
 * Truncate, write the provisional header, size the reserve, start the
 * writer with nr_cb control blocks; done_ctx is passed to every done().
 */
int zs_file_begin(struct zs_file *f, const struct perfsink_host *host,
		  const struct perfsink_stream *s, unsigned nr_cb, void *done_ctx);
/* Queue len bytes (whole records).  On 0, done() is called once. */
int zs_file_append(struct zs_file *f, const void *data, size_t len, aiow_done_fn done, void *arg);
/* Wait for every append; 0 or the writer's sticky error. */
int zs_file_drain(struct zs_file *f);
/*
 * Stop the writer and make the file final with the COMPRESSED feature comp
 * (may be NULL).  *data_size receives the bytes of records kept.  Returns 0
 * or a negative errno (the file is then as readable as could be made).
 */
int zs_file_finish(struct zs_file *f, const struct perfsink_compression *comp,
		   uint64_t *data_size, uint64_t *retries);
/* Close the descriptor; removes a file open() created that was never begun
 * successfully (it holds no readable header). */
int zs_file_close(struct zs_file *f);

#endif
