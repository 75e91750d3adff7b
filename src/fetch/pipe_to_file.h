/*
 * A perf pipe-mode stream, fed part by part, written as a perf.data file
 * (file mode) that perf report reads without perf inject: the prologue's
 * HEADER_ATTR records become the attrs section (format's perf_file_header
 * writes it), HEADER_FEATURE payloads and the HEADER_TRACING_DATA blob
 * become feature sections, HEADER_BUILD_ID records the BUILD_ID feature;
 * every other record goes to the data section as it is (COMPRESSED records
 * too, unless decompress is set).
 *
 * Readable at every checkpoint: p2f_checkpoint() writes the features after
 * the data and then the header's data.size and feature bits in one pwrite;
 * the next data append first clears the feature bits (a reader in between
 * sees the data without features, never features that are overwritten).
 *
 * Memory stays bounded whatever a collector sends: a part is read from its
 * file through a window (rec_reader.h), records go to the file in pieces of
 * P2F_FLUSH bytes, decompression is done a slice at a time and stops once a
 * part gives more than max_ratio times its size (at least P2F_RATIO_FLOOR
 * bytes: a 289 KB bomb once wrote 2.68 GB at 3.3 GB RSS), and what the
 * header keeps (attrs, features, build-ids, tracing data) is capped at
 * P2F_HELD_MAX.  A part that fails half-way is taken back out of the data
 * section (p2f_part_fd).
 *
 * Single-threaded.  Parts must be whole records (part_check() says so).
 */
#ifndef PS_FETCH_PIPE_TO_FILE_H
#define PS_FETCH_PIPE_TO_FILE_H
#include <stddef.h>
#include <stdint.h>
#include "base/bytes.h"

#define P2F_FEATS 64
#define P2F_FLUSH (1u << 20)
#define P2F_HELD_MAX (256u << 20)
#define P2F_RATIO_FLOOR (64u << 20)
#define P2F_RATIO_DEFAULT 100

struct ps_event_desc;

struct p2f {
	int fd;
	int decompress;
	int saw_header;            /* the 16-byte pipe header was read */
	struct ps_event_desc *ev;  /* from HEADER_ATTR; ids owned here */
	unsigned nr_ev;
	struct bytes feat[P2F_FEATS];
	uint64_t feat_set;         /* bit f: feat[f] holds a payload */
	uint64_t data_offset;      /* 0 until the header is written */
	uint64_t data_size;
	int features_live;         /* the header points at written features */
	void *dctx;                /* ZSTD_DCtx with decompress */
	struct bytes carry;        /* decompressed bytes of a record not yet whole */
	uint64_t records;          /* records written to the data section */
	unsigned max_ratio;        /* decompressed bytes per part byte, at most */
	uint64_t held;             /* bytes the header keeps (attrs, features) */
	uint64_t part_limit;       /* this part may decompress to this many bytes */
	uint64_t part_out;         /* it has so far */
	struct bytes out;          /* data records waiting to be written */
};

/*
 * Check that part holds whole perf pipe-mode records (part 0 starts with
 * the pipe header).  0, or -EBADMSG with the reason (offset, size) in err;
 * part_check_fd: the part is len bytes of fd (-EIO, -ENOMEM too).
 */
int part_check(const uint8_t *part, size_t len, int first, char *err, size_t errlen);
int part_check_fd(int fd, uint64_t len, int first, char *err, size_t errlen);

/*
 * fd: the output, empty, opened for writing; max_ratio: see above (0: the
 * default).  -ENOTSUP: decompress without zstd.
 */
int p2f_init(struct p2f *w, int fd, int decompress, unsigned max_ratio);
/*
 * Feed one checked part.  0, -EBADMSG (err says why: a bad record, or a
 * decompression bomb), -EIO/-ENOSPC (write), -ENOMEM.  On -EBADMSG the
 * part left no record in the file.  p2f_part_fd: the part is len bytes of
 * fd.
 */
int p2f_part(struct p2f *w, const uint8_t *part, size_t len, int first, char *err, size_t errlen);
int p2f_part_fd(struct p2f *w, int fd, uint64_t len, int first, char *err, size_t errlen);
/* Make the file complete and readable now.  0 or a negative errno. */
int p2f_checkpoint(struct p2f *w);
/* The BUILD_ID payload gathered so far (perf's build_id_event records). */
const struct bytes *p2f_build_ids(const struct p2f *w);
void p2f_free(struct p2f *w);

#endif
