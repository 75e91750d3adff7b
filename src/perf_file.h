/*
 * perf.data writers offered to sinks through struct perfsink_host:
 * file mode header and features, and the pipe mode prologue.
 * Pure functions of the stream: callable from any thread.
 */
#ifndef PS_PERF_FILE_H
#define PS_PERF_FILE_H
#include <perfsink/sink.h>

/* Offset of data.size in struct perf_file_header. */
#define PERF_FILE_DATA_SIZE_OFFSET 48

int perf_file_header(const struct perfsink_stream *s, const struct perfsink_file_end *end,
		     struct perfsink_bytes *out);
int perf_file_features(const struct perfsink_stream *s, const struct perfsink_file_end *end,
		       struct perfsink_bytes *out);
int perf_pipe_header(const struct perfsink_stream *s, const struct perfsink_compression *comp,
		     struct perfsink_bytes *out);
void perf_bytes_free(struct perfsink_bytes *b);

#endif
