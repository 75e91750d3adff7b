/*
 * Reading perf records just enough to count them and to write the LOST
 * marker that replaces a part the http sink had to drop.  Pure functions of
 * their arguments; callable from any thread.
 */
#ifndef HTTP_PERF_RECORDS_H
#define HTTP_PERF_RECORDS_H
#include <stddef.h>
#include <stdint.h>

#define PERF_REC_LOST 2
#define PERF_REC_HEADER_ATTR 64
#define PERF_REC_HEADER_TRACING_DATA 66
#define PERF_REC_AUXTRACE 71
#define PERF_REC_HEADER_FEATURE 80

/*
 * Number of whole records in data[0..len).  Stops at a header that is
 * malformed (size < 8 or past the end); *rest (may be NULL) receives the
 * bytes not covered by whole records, 0 for a well-formed block.
 */
uint64_t perf_records_count(const uint8_t *data, size_t len, size_t *rest);

/*
 * Whether data[0..len) is whole perf pipe-mode records, as a spooled part
 * must be before it is sent: with prologue, the 16-byte pipe header
 * ("PERFILE2", size 16) first; then header sizes (>= 8) that chain exactly
 * to the end, every type one perf 6.1 knows (kernel 1..21, user 64..83),
 * and the payload that HEADER_TRACING_DATA and AUXTRACE carry after their
 * header counted.  An empty non-prologue part is valid (a LOST marker that
 * could not be made).  Returns 0, or -EBADMSG with where and why in why.
 */
int perf_records_validate(const uint8_t *data, size_t len, int prologue, char *why, size_t whylen);

/* What a synthesized LOST record must look like to match the stream's attr. */
struct lost_template {
	uint64_t id;          /* first event id of the first HEADER_ATTR */
	uint64_t sample_type; /* of that attr */
	int sample_id_all;
};

/*
 * Fill t from a pipe-mode prologue (16-byte header, then HEADER_ATTR ...).
 * Returns 0, or -EINVAL when there is no HEADER_ATTR in it.
 */
int lost_template_from_pipe_header(const uint8_t *hdr, size_t len, struct lost_template *t);

/*
 * Write a PERF_RECORD_LOST {id, lost} with the sample_id trailer that t
 * implies (time 0, so perf delivers it without reordering) into out.
 * Returns its size, or 0 when cap is too small (PERF_LOST_RECORD_MAX fits).
 */
#define PERF_LOST_RECORD_MAX 72
size_t lost_record_write(const struct lost_template *t, uint64_t lost, uint8_t *out, size_t cap);

#endif
