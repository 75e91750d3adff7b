/*
 * One recording as a stream of records: a perf.data file (perf record's or
 * perfsink's), or perf's pipe format from a file or standard input ("-").
 * The events (attr, name, ids) and the build-ids the header or the
 * stream's own HEADER_* records carry are kept here; COMPRESSED records are
 * decompressed (zstd) and their records handed out one by one, so the
 * caller sees plain records only.  Memory: one record and one COMPRESSED
 * record's output at a time.  Single-threaded.
 */
#ifndef PS_PPROF_INPUT_H
#define PS_PPROF_INPUT_H
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "base/bytes.h"

struct pp_event {
	struct perf_event_attr attr;  /* as recorded, zero-extended */
	char *name;                   /* "cpu-clock"; made up from the attr when none was recorded */
	uint64_t *ids;
	unsigned nr_ids;
};

struct pp_buildid {
	char *file;            /* the file name BUILD_ID gives */
	char hex[41];
};

struct pp_input {
	const char *path;
	FILE *f;
	int pipe;                   /* perf's pipe format */
	uint64_t left;              /* file mode: data bytes not read yet */
	struct pp_event *ev;
	unsigned nr_ev;
	struct pp_buildid *bid;
	unsigned nr_bid;
	uint8_t *rec;               /* the record being read (64 KiB) */
	struct bytes inner;         /* decompressed bytes not yet handed out */
	void *dctx;                 /* ZSTD_DCtx, made at the first COMPRESSED */
	uint64_t records, compressed;
	char hostname[65];          /* HOSTNAME, "" when not recorded */
};

/* Handed each record (never COMPRESSED, HEADER_ATTR or HEADER_FEATURE):
 * 0 to go on, a negative errno to stop with it. */
typedef int (*pp_record_fn)(void *ctx, const struct pp_input *in, const uint8_t *rec, uint16_t size);

/* Open path ("-": standard input) and read its header.  0, or a negative
 * errno with err set (not a perf recording, a short file...). */
int pp_input_open(struct pp_input *in, const char *path, char *err, size_t n);
/* Hand every record to fn in the order of the stream.  0, fn's error, or a
 * negative errno with err set (a cut record, a corrupt COMPRESSED one). */
int pp_input_run(struct pp_input *in, pp_record_fn fn, void *ctx, char *err, size_t n);
void pp_input_close(struct pp_input *in);
/* The event the sample ids point at: id's event, or the only one; NULL. */
const struct pp_event *pp_input_event(const struct pp_input *in, uint64_t id);
/* The build-id hex BUILD_ID gives for file, or NULL. */
const char *pp_input_buildid(const struct pp_input *in, const char *file);

#endif
