/*
 * zs_frame: ring data -> PERF_RECORD_COMPRESSED records (type 81), as perf
 * 6.1 reads them.
 *
 * Input is cut into flush groups of at most ZS_GROUP_MAX bytes.  Each group
 * is compressed and flushed (ZSTD_e_flush, or ZSTD_e_end to end the frame)
 * and its output becomes exactly one record.  Hence, for every record:
 *   - header.size <= 65535: a group's worst-case output (ZSTD_compressBound
 *     plus frame header and end block) is below 65527 bytes of payload;
 *   - it decompresses on its own position in the stream to between 1 and
 *     ZS_GROUP_MAX bytes.  perf decompresses each record into a buffer of
 *     mmap_len bytes and treats an empty result as fatal, so both bounds
 *     matter: the COMPRESSED feature announces mmap_len = ZS_GROUP_MAX.
 * A frame may stay open across calls (one continuous stream, like perf) or
 * be ended on the last group of a batch (independent frames, for workers).
 * Raw records may be appended between groups: perf's reader keeps one
 * decompression stream across the file and skips nothing.
 *
 * THREADS.  A zs_frame is used by one thread at a time.
 * RETURN VALUES.  0 or a negative errno (-ENOMEM, -EIO for a zstd error).
 */
#ifndef ZS_FRAME_H
#define ZS_FRAME_H
#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

#define ZS_RECORD_TYPE 81          /* PERF_RECORD_COMPRESSED */
#define ZS_RECORD_HDR 8            /* struct perf_event_header */
#define ZS_PAYLOAD_MAX (65535 - ZS_RECORD_HDR)
#define ZS_GROUP_MAX (63u * 1024)  /* input bytes per record; = mmap_len */

/* A growable byte vector: one batch's output. */
struct zs_obuf {
	uint8_t *data;
	size_t len, cap;
};

/* Make room for extra more bytes. */
int zs_obuf_reserve(struct zs_obuf *o, size_t extra);
int zs_obuf_append(struct zs_obuf *o, const void *p, size_t len);
void zs_obuf_reset(struct zs_obuf *o); /* len = 0, memory kept */
void zs_obuf_free(struct zs_obuf *o);

/* What zs_frame_put does after consuming its input. */
enum zs_mode {
	ZS_KEEP = 0, /* keep the group open for more input */
	ZS_FLUSH,    /* emit the group: output is complete up to here */
	ZS_END,      /* emit the group and end the frame */
};

struct zs_frame {
	ZSTD_CCtx *cctx;
	size_t group;          /* input bytes in the current group */
	int open;              /* a frame was begun and not ended */
	struct zs_obuf scratch; /* compressed bytes of the current group */
	uint64_t in_bytes;     /* bytes compressed */
	uint64_t out_bytes;    /* record bytes emitted, headers included */
	uint64_t records;      /* records emitted */
};

int zs_frame_init(struct zs_frame *f, int level);
void zs_frame_fini(struct zs_frame *f);
/* Forget any open frame: the next group begins a new one (new file). */
int zs_frame_reset(struct zs_frame *f);
/*
 * Compress len bytes into records appended to out.  Full groups are
 * emitted when more input arrives; mode says what to do with the last one.
 * ZS_END with nothing pending leaves an open frame open and returns -EINVAL
 * (ending it would need a record that decompresses to nothing).
 */
int zs_frame_put(struct zs_frame *f, struct zs_obuf *out, const void *data, size_t len,
		 enum zs_mode mode);
/* Bytes pending in the current group: a raw record may follow only at 0. */
static inline size_t zs_frame_pending(const struct zs_frame *f) { return f->group; }

#endif
