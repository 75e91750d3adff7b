/*
 * `perfsink recover`: make a perf.data file that a killed recorder left
 * behind readable by perf.  The header and attrs are kept as they are; the
 * data section is cut after its last whole record perf reads (recover_scan.h,
 * recover_check.h); a file is complete, and left alone, only when its
 * records and feature sections all pass those checks (recover_feat.h), and
 * refused when perf would refuse its attrs;
 * data.size, the feature bitmap and the feature section are written again
 * with the engine's own format code (perf_file.c, perf_features.c) from what
 * can be re-derived: event names from the attrs (tracefs for tracepoints),
 * TRACING_DATA, build-ids of the files the MMAP records name, the machine's
 * description, the sample time range, COMPRESSED for zstd data.  Those are
 * read on the machine recover runs on: run it where the recording was made.
 *
 * The result is written to a temporary file beside the target and renamed
 * onto it, so a crash during recover leaves the original as it was.
 * Do not run it on a file a recorder is still writing.
 */
#ifndef PS_RECOVER_H
#define PS_RECOVER_H
#include <stddef.h>
#include <stdint.h>

struct recover_report {
	int complete;              /* already whole: left alone (with out: copied as it is) */
	uint64_t data_size_before; /* data.size the header held */
	uint64_t data_size;        /* data.size written */
	uint64_t records;          /* records kept */
	uint64_t bytes_cut;        /* bytes of the file after the last record kept */
	unsigned features;         /* feature sections written */
	uint64_t compressed;       /* COMPRESSED records kept */
	uint64_t max_decomp;       /* the largest one's decompressed size (mmap_len) */
	uint64_t samples;
	const char *stop;          /* what ended the data */
	char not_complete[160];    /* why the file needed repair */
};

/*
 * Repair path in place (out NULL) or into out (path untouched).  0 with
 * *rep filled (rep->complete: nothing needed repair); a negative errno when
 * the file cannot be repaired, with the reason in err.
 */
int recover_file(const char *path, const char *out, struct recover_report *rep, char *err,
		 size_t errlen);

#endif
