/*
 * compress = zstd: buffers of records become PERF_RECORD_COMPRESSED records
 * in the stream, each an independent zstd frame of whole records, so any
 * part (or a LOST gap between parts) can be decoded on its own.  A chunk
 * that would not fit a record's u16 size is kept uncompressed; the
 * FINISHED_ROUND closing a buffer is kept as it is.
 *
 * Single-threaded: one compressor belongs to the sink's thread.
 *
 * Used only under a host without the compression stage (sink ABI < 1.9,
 * or a test host): a 1.9 host compresses once for every sink of the level
 * (sink.h, COMPRESSED INPUT) and the uploader makes no compressor.
 */
#ifndef HTTP_COMPRESS_H
#define HTTP_COMPRESS_H
#include <stddef.h>
#include <stdint.h>

/* Input of one COMPRESSED record at most (whole records; a larger single
 * record is a chunk of its own); the framer is perfsink_kit_zframe_records. */
#define COMPRESS_CHUNK_MAX 32768
/* What the stream's mmap_len announces: >= any record's decompressed size. */
#define COMPRESS_MMAP_LEN 65536

struct compressor;

/* NULL when the kit has no zstd support or on allocation failure. */
struct compressor *compressor_new(int level);
/*
 * Compress data[0..len) (whole records; the last tail_round bytes are kept
 * as they are) into the compressor's output, valid until the next call.
 * Returns 0 or a negative errno.
 */
int compressor_run(struct compressor *c, const uint8_t *data, size_t len, size_t tail_round,
		   const uint8_t **out, size_t *out_len);
/* Bytes in and out so far, for the ratio the stream header announces. */
void compressor_totals(const struct compressor *c, uint64_t *in, uint64_t *out);
void compressor_free(struct compressor *c);

#endif
