/*
 * Test helper: read a perf.data data section the way perf 6.1 does with
 * COMPRESSED records, and report what perf would process, plus the facts
 * the zstd sink promises about its framing.
 */
#ifndef ZSTD_DECODE_H
#define ZSTD_DECODE_H
#include <stddef.h>
#include <stdint.h>

struct zdec {
	uint8_t *data;        /* records in the order perf processes them */
	size_t len;
	size_t cap;           /* allocated; grown by doubling (ASan's realloc always copies;
	                         test_zstd_sink links no sink code, so not the kit's buffer) */
	unsigned compressed;  /* COMPRESSED records */
	unsigned raw;         /* other records in the section */
	unsigned frames;      /* COMPRESSED payloads that begin a zstd frame */
	size_t max_record;    /* largest COMPRESSED header.size */
	size_t min_decomp, max_decomp; /* bytes one COMPRESSED record yields */
	int frame_open;       /* the last frame was not ended */
};

/*
 * One decompression stream over all records; each COMPRESSED record is
 * decompressed into a buffer of mmap_len bytes and must yield 1..mmap_len
 * bytes (perf: "Couldn't decompress data" / "Destination buffer is too
 * small").  Returns 0, or -1 with the reason in err.
 */
int zdec_section(const uint8_t *p, size_t len, size_t mmap_len, struct zdec *out,
		 char *err, size_t errlen);
void zdec_free(struct zdec *d);

/* 1 when [p, p+len) is whole records, back to back. */
int zdec_whole_records(const uint8_t *p, size_t len);

/* Fill len bytes (a multiple of 8, >= 16) with perf-like records. */
void zdec_fake_records(uint8_t *p, size_t len, unsigned seed, int compressible);

#endif
