/*
 * The build-ids of a stream as HEADER_BUILD_ID records (perf's
 * PERF_RECORD_HEADER_BUILD_ID, as `perf inject -b` writes them into a
 * pipe), taken from the BUILD_ID feature the host's format helpers write
 * for the stream.  The http sink sends them as the stream's last part, so
 * `perfsink fetch` gets a BUILD_ID feature and knows what to look up in
 * the collector's buildid/ tree.
 *
 * Engine thread only (the format helpers read the stream's state).
 */
#ifndef HTTP_BUILDIDS_H
#define HTTP_BUILDIDS_H
#include <perfsink/sink.h>
#include <stddef.h>
#include <stdint.h>

/*
 * *out (malloc'd, caller frees) gets the records, *len their bytes; 0 with
 * *len = 0 when the stream lists no build-id or the host has no format
 * helpers.  Negative errno on failure.
 */
int buildid_records(const struct perfsink_host *host, const struct perfsink_stream *s,
		    uint8_t **out, size_t *len);

#endif
