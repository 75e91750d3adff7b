/*
 * Shipping the windows' profiles, one request each, on a thread of its
 * own: mode = pyroscope POSTs {url}/ingest?name=APP{host=H,labels}&from=S
 * &until=S&format=pprof&spyName=perfsink (multipart/form-data: the gzipped
 * profile as "profile", the sample types as "sample_type_config"), mode =
 * put PUTs {url}/[prefix/]{host}/{session}/{from_ms}.pb.gz (a WebDAV
 * collector, or S3 with bucket: SigV4 through libcollector).  A refused or
 * failed request is tried again after perfsink_coll_backoff's delay (or
 * Retry-After); windows wait meanwhile in a queue of queue_max bytes, the
 * oldest dropped (counted, logged) past it.  Nothing is written to disk:
 * what is still queued when drain's deadline passes is lost, counted.
 *
 * Kept small and alone on purpose: when the http sink's uploader becomes
 * an object-shipping API with a spool (issue 28), this file is what that
 * API replaces; the rest of the sink only calls pship_push/drain/stats.
 */
#ifndef PPROF_SHIP_H
#define PPROF_SHIP_H
#include <stddef.h>
#include <stdint.h>
#include <perfsink/sink.h>
#include "pprof_conf.h"

struct ship;

struct pship_stats {
	uint64_t sent, sent_bytes;     /* profiles stored, their bytes */
	uint64_t lost, lost_samples;   /* profiles dropped (queue full, refused, left at the end) */
	uint64_t retries;
	uint64_t queued, queued_bytes; /* waiting now */
	uint32_t state;                /* enum perfsink_sink_state */
	uint32_t retry_in_ms;
};

/*
 * host, session: of the recording; types: the sample_type_config JSON
 * (pyroscope); all copied.  c and inst outlive the ship.  0, -ENOMEM, or
 * a thread error.
 */
int pship_create(const struct pprof_conf *c, const struct perfsink_instance *inst, const char *host,
		const char *session, const char *types, struct ship **out);
/* Queue a window's profile (data: malloc'd, taken).  Any thread. */
void pship_push(struct ship *s, uint8_t *data, size_t len, int64_t from_ns, int64_t until_ns,
	       uint64_t samples);
/* Wait until the queue is empty, at most timeout_ms (or a second stop
 * request).  0, or -ETIMEDOUT with profiles still queued. */
int pship_drain(struct ship *s, int64_t timeout_ms);
void pship_stats(struct ship *s, struct pship_stats *out);
/* Where the profiles go, for host->output: the collector's directory
 * (put) or the ingest URL with the application's name (pyroscope). */
void pship_where(const struct ship *s, char *buf, size_t n);
/* Stop the thread (a request in flight is abandoned) and count what is
 * left as lost: after drain's deadline nothing waits any more.  Once. */
void pship_stop(struct ship *s);
/* pship_stop, the final counts in final (may be NULL), free. */
void pship_destroy(struct ship *s, struct pship_stats *final);

#endif
