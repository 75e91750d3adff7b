/*
 * perf.data writers offered to sinks through struct perfsink_host:
 * file mode header and features, and the pipe mode prologue.
 * Pure functions of the stream: callable from any thread.
 */
#ifndef PS_PERF_FILE_H
#define PS_PERF_FILE_H
#include <perfsink/sink.h>

#define PERF_FILE_MAGIC 0x32454c4946524550ULL /* "PERFILE2" */
#define PERF_FILE_HEADER_SIZE 104
/* Offset of data.size in struct perf_file_header. */
#define PERF_FILE_DATA_SIZE_OFFSET 48
/* Offset of the adds_features bitmap (256 bits) in it. */
#define PERF_FILE_FEATURES_OFFSET 72
#define PERF_FILE_FEAT_BITS 256

int perf_file_header(const struct perfsink_stream *s, const struct perfsink_file_end *end,
		     struct perfsink_bytes *out);
int perf_file_features(const struct perfsink_stream *s, const struct perfsink_file_end *end,
		       struct perfsink_bytes *out);
int perf_pipe_header(const struct perfsink_stream *s, const struct perfsink_compression *comp,
		     struct perfsink_bytes *out);
/* The adds_features bitmap of the final header for s and comp (as
 * perf_file_header(s, end) writes it with end->comp = comp). */
void perf_file_feature_bits(const struct perfsink_stream *s, const struct perfsink_compression *comp,
			    uint64_t bits[PERF_FILE_FEAT_BITS / 64]);
void perf_bytes_free(struct perfsink_bytes *b);

#endif
