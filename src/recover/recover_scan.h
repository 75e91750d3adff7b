/*
 * The record walk of `perfsink recover`: how far the data section of a
 * perf.data file holds whole, plausible records, and what they hold.
 *
 * A record is kept while its header.size is at least 8 and fits in the
 * file, its type is one perf puts in a file-mode data section, its size is
 * a multiple of 8 (all but COMPRESSED, which perf does not pad), and, for
 * PERF_RECORD_COMPRESSED, its payload decompresses (one zstd stream across
 * the file, as perf reads it) to between 1 byte and RSCAN_DECOMP_MAX; with
 * the events (opts.ev), each record, and each record a COMPRESSED one
 * holds, must also be one perf reads (rc_record).  A
 * record that a killed write left torn (its tail, from a page boundary on,
 * still zero, with only zeros after it) is dropped too.
 *
 * Pure reading of an mmap'd file: no state outside the structs; thread-safe.
 */
#ifndef PS_RECOVER_SCAN_H
#define PS_RECOVER_SCAN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dso_set;
struct rc_events;

/* perf would need an mmap_len this large: nothing sane decompresses to more. */
#define RSCAN_DECOMP_MAX (64u << 20)

struct rscan_opts {
	const uint8_t *file;   /* the whole file, mapped */
	uint64_t start, limit; /* walk [start, limit) */
	bool check_compressed; /* decompress COMPRESSED records (else: size checks only) */
	unsigned time_off;     /* offset of TIME in a SAMPLE record; 0: none */
	struct dso_set *dsos;  /* NULL, or gets the files of MMAP/MMAP2 records, compressed too */
	const struct rc_events *ev; /* NULL, or: keep only records perf reads (recover_check.h) */
};

struct rscan_result {
	uint64_t end;          /* file offset after the last record kept */
	uint64_t records;      /* records kept (outer: a COMPRESSED record is one) */
	uint64_t compressed;   /* COMPRESSED records among them */
	uint64_t comp_bytes;   /* their bytes, headers included */
	uint64_t decomp_bytes; /* bytes they decompress to */
	uint64_t max_decomp;   /* largest decompressed size of one of them */
	uint64_t samples, first_time, last_time; /* SAMPLE records, compressed too */
	const char *stop;      /* why the walk ended, for -v */
};

/*
 * Walk o->file from o->start.  Returns 0 with *r filled, -ENOTSUP when a
 * COMPRESSED record must be checked but perfsink was built without
 * libzstd, or -ENOMEM.
 */
int rscan_walk(const struct rscan_opts *o, struct rscan_result *r);

#endif
