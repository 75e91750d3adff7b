/*
 * Ordered appends to one file through the instance's io_uring: the same
 * contract as the kit's POSIX AIO writer (perfsink_kit_aiow, kit.h), so
 * uring_file keeps aio_file's data.size and error logic; both are backends
 * of the kit's write queue (kit.h, perfsink_kit_wq), which orders, waits,
 * fails and counts for them.  The caller only queues a write and wakes
 * the ring's I/O thread (uring_io.h), which makes one SQE per write at an
 * explicit offset (write_fixed when its bytes lie in a registered pooled
 * buffer), enters it, reaps it and resubmits the rest of a short write or
 * an -EAGAIN.  While writes in flight hold spill_at pooled buffers (a disk
 * behind the events), the I/O thread copies a write from a pooled buffer
 * into a chunk of the spill (uring_spill.h), runs its done() and makes it
 * from there: the pooled buffer goes back to the engine before the disk
 * has its bytes, and the copy is never the caller's.  When the spill is full, writes hold their pooled buffers
 * again.  The writer measures the disk's rate (bytes completed per second
 * with writes in flight) and sizes the spill from it (uring_spill_fit_rate).
 *
 * THREADS.  uring_writer_write/_plug/_unplug/_drain/_destroy from one
 * thread (the sink's caller); done() and on_commit() run on the I/O
 * thread and must not call back into the writer.
 * OWNERSHIP.  The bytes of a write stay valid until its done() ran.  The
 * writer neither closes fd nor owns io (one writer at a time per io: it
 * is io's client from create to destroy).
 * ERRORS.  The first failed write makes the writer failed (sticky); writes
 * in flight complete with done(arg, err).
 */
#ifndef PS_URING_WRITER_H
#define PS_URING_WRITER_H
#include <stdint.h>
#include <perfsink/kit.h>
#include "uring_io.h"
#include "uring_spill.h"

struct uring_writer;

struct uring_writer_config {
	struct uring_io *io;
	int fd;
	unsigned slots;         /* writes in flight at most; < io->depth */
	struct uring_spill *spill; /* optional; outlives the writer */
	unsigned spill_at;      /* pooled buffers in flight from which writes spill (0: 1) */
	uint64_t offset;        /* where the first write goes */
	perfsink_kit_aiow_commit_fn on_commit; /* optional */
	void *commit_arg;
	void *done_ctx;
};

struct uring_writer_stats {
	uint64_t writes;   /* SQEs submitted, resubmissions included */
	uint64_t fixed;    /* of those, write_fixed from a registered buffer */
	uint64_t spilled;  /* writes made from a spill chunk */
	uint64_t bytes;    /* bytes completed */
	uint64_t retries;  /* short writes and -EAGAIN resubmitted */
	uint64_t waits;    /* writes that waited for a free slot */
};

int uring_writer_create(const struct uring_writer_config *cfg, struct uring_writer **out);
/* Queue len bytes at the append offset; waits for a free slot.  On 0 done() runs once. */
int uring_writer_write(struct uring_writer *w, const void *data, size_t len,
		       perfsink_kit_aiow_done_fn done, void *arg);
/*
 * Around one sink write (the caller's thread): between plug and unplug,
 * writes are queued without waking the I/O thread (with O_DIRECT a pending
 * block, then the middle that continues it: one wake-up, one io_uring_enter
 * for both).  unplug, drain and destroy hand on what is queued; unplug
 * returns 0 or the ring's fatal -errno (a dead ring).
 */
void uring_writer_plug(struct uring_writer *w);
int uring_writer_unplug(struct uring_writer *w);
/* Wait until nothing is in flight; the sticky error or 0. */
int uring_writer_drain(struct uring_writer *w);
uint64_t uring_writer_offset(struct uring_writer *w);
/* End of the contiguous prefix written without error. */
uint64_t uring_writer_committed(struct uring_writer *w);
void uring_writer_stats(struct uring_writer *w, struct uring_writer_stats *out);
/*
 * Where destroy says, at -v, how many writes there were and how many came
 * from fixed buffers (inst's log; NULL: silent).
 */
void uring_writer_set_log(struct uring_writer *w, const struct perfsink_instance *inst);
/* *ref = w now, and NULL when destroy frees it (where the sink keeps its current writer). */
void uring_writer_set_ref(struct uring_writer *w, struct uring_writer **ref);
/* Drains, stops the completion thread, frees. */
void uring_writer_destroy(struct uring_writer *w);

#endif
