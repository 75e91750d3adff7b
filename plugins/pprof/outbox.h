/*
 * Shipping the windows' profiles through the collector's object shipper
 * (<perfsink/collector_ship.h>: one request at a time, retried with the
 * jittered backoff or Retry-After, the disk spool), on a thread of its
 * own that owns the shipper.  Each window is one object, key
 * {host}/{session}/{from_ms} (the spool's name for it too):
 * mode = put PUTs it to {url}/[prefix/]{key}.pb.gz (WebDAV, or S3 with
 * bucket: SigV4); mode = pyroscope POSTs it through the shipper's
 * post_build hook to {url}/ingest?name=APP{host=H,labels}&from=S&until=S
 * &format=pprof&spyName=perfsink (multipart/form-data: the gzipped profile
 * as "profile", the sample types as "sample_type_config").
 *
 * Past queue_max in memory the windows go to spool_dir (overflow = spool),
 * or the oldest is dropped (overflow = drop_oldest, or no spool_dir):
 * every drop counted and logged with its samples.  At the end, what drain
 * could not send goes to the spool (without one: lost, counted), and the
 * next run sends the spool's backlog after its own windows.
 */
#ifndef PPROF_OUTBOX_H
#define PPROF_OUTBOX_H
#include <stddef.h>
#include <stdint.h>
#include <perfsink/sink.h>
#include "pprof_conf.h"

struct outbox;

/* What the end left: windows in the spool (this run's and earlier runs'). */
struct outbox_left {
	uint64_t windows, bytes, samples;
};

/*
 * host, session: of the recording; types: the sample_type_config JSON
 * (pyroscope); all copied.  Opens spool_dir when set.  c and inst outlive
 * the outbox.  0, or a negative errno (said in the log).
 */
int outbox_create(const struct pprof_conf *c, const struct perfsink_instance *inst,
		  const char *host, const char *session, const char *types, struct outbox **out);
/* Queue a window's profile (data: malloc'd, taken).  Any thread. */
void outbox_push(struct outbox *o, uint8_t *data, size_t len, int64_t from_ns, int64_t until_ns,
		 uint64_t samples);
/* Wait until nothing is queued or in flight (the backlog included), at
 * most timeout_ms (or a second stop request).  0, -ETIMEDOUT, or the
 * shipper's fatal error (a refusal retrying cannot help: at once). */
int outbox_drain(struct outbox *o, int64_t timeout_ms);
/* The shipper's counters and state (files, bytes_out, retries,
 * dropped_records: samples of lost windows, spooled_*, backlog_*). */
void outbox_stats(struct outbox *o, struct perfsink_sink_stats *out);
/* Windows lost (dropped) so far and their samples. */
void outbox_lost(struct outbox *o, uint64_t *windows, uint64_t *samples);
/* Where the profiles go, for host->output: the collector's directory
 * (put) or the ingest URL with the application's name (pyroscope). */
void outbox_where(const struct outbox *o, char *buf, size_t n);
/* Stop the thread (a request in flight is abandoned); what is unsent goes
 * to the spool (or is lost, counted); *left what the spool holds.  Once. */
void outbox_stop(struct outbox *o, struct outbox_left *left);
/* outbox_stop if not done, close the spool, free. */
void outbox_destroy(struct outbox *o);

#endif
