/*
 * The uploader: the http sink's own thread, which turns buffers into parts,
 * uploads them with curl's multi interface (one transfer at a time, in seq
 * order), retries with backoff, spools and drops per the overflow policy.
 *
 * THREADS.  uploader_* functions are called from the engine thread (the
 * sink ops); they queue jobs, in order, on the uploader's thread (the
 * kit's async worker), which also drives the transfers between jobs.  They
 * share the fields under ship.lock with the thread; everything else in
 * struct uploader (cutter, part queue, transfer, spool) belongs to the
 * thread.
 */
#ifndef HTTP_UPLOADER_H
#define HTTP_UPLOADER_H
#include <perfsink/sink.h>
#include <pthread.h>
#include <stdint.h>

struct uploader;
struct http_conf;
struct spool;

/*
 * Start the thread, idle until uploader_start() or uploader_upload().
 * conf and spool are owned by the caller and outlive the uploader.
 */
int uploader_new(const struct perfsink_instance *inst, const struct http_conf *conf,
		 struct spool *spool, struct uploader **out);
/*
 * Begin a stream, at start or at a rotation (after a barrier): its parts go
 * under {s->host_name}/{session}, numbered from 0; prologue (pipe header
 * bytes, copied) is part 0.
 */
int uploader_start(struct uploader *u, const struct perfsink_stream *s, const char *session,
		   const uint8_t *prologue, size_t len);
/*
 * Records that close the current stream (its HEADER_BUILD_ID list): sent
 * as its last part, after every buffer written before, then the end
 * marker.  Bytes are copied.  0 or -ENOMEM.
 */
int uploader_epilogue(struct uploader *u, const uint8_t *bytes, size_t len);
/*
 * When the recording stopped (CLOCK_REALTIME ns), for the last stream's end
 * marker; before uploader_drain.  Not told: the time its end is queued.
 */
void uploader_ended(struct uploader *u, int64_t end_ns);
/*
 * Queue one buffer (a reference is taken until it is in a part); never
 * waits: with overflow = block the thread holds the queued buffers while
 * the parts in memory reach queue_size (the engine's backpressure).
 */
int uploader_write(struct uploader *u, struct perfsink_buf *buf);
/*
 * Wait until every queued buffer is in a part, and at most 250 ms more for
 * the parts to be sent; returns the fatal error, if any.
 */
int uploader_barrier(struct uploader *u);
/* Send the spool's backlog; wait at most timeout_ms. 0, -ETIMEDOUT, or the fatal error. */
int uploader_upload(struct uploader *u, int64_t timeout_ms);
/*
 * Seal the last part, keep sending for at most drain_ms (less when the
 * host's stop_requested turns non-zero), spool the rest and stop the
 * thread; stats are final after it.  Once only: later calls return the
 * fatal error at once.  Returns the fatal error, if any.
 */
int uploader_drain(struct uploader *u, int64_t drain_ms);
/*
 * uploader_drain (no wait if it ran already), then free u.  Returns the
 * fatal error, if any.
 */
int uploader_close(struct uploader *u, int64_t drain_ms);
void uploader_stats(struct uploader *u, struct perfsink_sink_stats *out);

/*
 * Called on the uploader's thread when a part of an earlier run's stream,
 * sent from the spool, was its build-id part (HEADER_BUILD_ID records
 * only): key_base is the stream's "{host}/{session}", recs its records
 * (valid during the call).  Those symbols could not be shipped when the
 * stream ended (the collector was down); the sink queues them now.
 */
typedef void (*uploader_buildids_fn)(void *arg, const char *key_base, const uint8_t *recs,
				     size_t len);
/* Engine side, before start() or upload(); fn NULL: none. */
void uploader_on_buildids(struct uploader *u, uploader_buildids_fn fn, void *arg);

#endif
