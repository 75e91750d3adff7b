/* Growable byte buffer for building records and headers.  Not thread-safe. */
#ifndef PS_BYTES_H
#define PS_BYTES_H
#include <stddef.h>
#include <stdint.h>

struct bytes {
	uint8_t *p;
	size_t len, cap;
	int err; /* sticky -ENOMEM: check once at the end */
};

void bytes_init(struct bytes *b);
void bytes_free(struct bytes *b);
/* Ensure room for n more bytes; returns a pointer to them or NULL (err set). */
uint8_t *bytes_reserve(struct bytes *b, size_t n);
void bytes_add(struct bytes *b, const void *p, size_t n);
void bytes_u16(struct bytes *b, uint16_t v);
void bytes_u32(struct bytes *b, uint32_t v);
void bytes_u64(struct bytes *b, uint64_t v);
void bytes_zero(struct bytes *b, size_t n);
/* Zero-pad len to a multiple of align. */
void bytes_pad(struct bytes *b, size_t align);
/* perf's feature string: u32 len, then NUL-terminated text padded to 64. */
void bytes_perf_string(struct bytes *b, const char *s);
/* Overwrite n bytes at off (must be inside len). */
void bytes_put_at(struct bytes *b, size_t off, const void *p, size_t n);
/* Hand the storage to the caller (b becomes empty). */
uint8_t *bytes_steal(struct bytes *b, size_t *len);

#endif
