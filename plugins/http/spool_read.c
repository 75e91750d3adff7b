/* A spooled part's records checked from its file; see spool_read.h. */
#include "spool_read.h"
#include <perfsink/kit.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WINDOW (256u << 10)
#define PIPE_MAGIC 0x32454c4946524550ull /* "PERFILE2" */

struct window {
	int fd;
	uint64_t len, start;  /* the file's size; offset of buf[0] */
	size_t have;
	uint8_t *buf;
};

/* n (<= 16) bytes at off, or NULL when the file has fewer or a read failed (*err). */
static const uint8_t *at(struct window *w, uint64_t off, size_t n, int *err)
{
	if (off + n > w->len)
		return NULL;
	if (off < w->start || off + n > w->start + w->have) {
		uint64_t want = w->len - off < WINDOW ? w->len - off : WINDOW;
		w->start = off;
		w->have = 0;
		while (w->have < want) {
			ssize_t k = pread(w->fd, w->buf + w->have, want - w->have, (off_t)(off + w->have));
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0) {
				*err = k < 0 ? -errno : -EIO;
				return NULL;
			}
			w->have += (size_t)k;
		}
	}
	return w->buf + (off - w->start);
}

static int type_known(uint32_t type)
{
	return (type >= 1 && type <= 21) || (type >= 64 && type <= 83);
}

/* The record at off: 0 with its whole length (payload included) in *step. */
static int record_at(struct window *w, uint64_t off, uint64_t *step, char *why, size_t whylen, int *err)
{
	const uint8_t *h = at(w, off, 16 <= w->len - off ? 16 : 8, err);
	uint32_t type;
	uint16_t sz;
	uint64_t extra = 0;

	if (!h) {
		if (!*err)
			snprintf(why, whylen, "%" PRIu64 " bytes at offset %" PRIu64 ": not a whole record header",
				 w->len - off, off);
		return *err ? *err : -EBADMSG;
	}
	memcpy(&type, h, 4);
	memcpy(&sz, h + 6, 2);
	if (!type_known(type)) {
		snprintf(why, whylen, "record type %u at offset %" PRIu64 " is not one perf knows", type, off);
		return -EBADMSG;
	}
	if (sz < 8 || sz > w->len - off) {
		snprintf(why, whylen, "record at offset %" PRIu64 " has size %u, %" PRIu64 " bytes left", off, sz,
			 w->len - off);
		return -EBADMSG;
	}
	if (type == PERFSINK_KIT_REC_HEADER_TRACING_DATA) {
		uint32_t n;
		memcpy(&n, h + 8, 4);
		extra = sz >= 12 ? n : UINT64_MAX;
	} else if (type == PERFSINK_KIT_REC_AUXTRACE) {
		memcpy(&extra, h + 8, 8);
		extra = sz >= 16 ? extra : UINT64_MAX;
	}
	if (extra > w->len - off - sz) {
		snprintf(why, whylen, "record type %u at offset %" PRIu64 " announces %s bytes after it, %" PRIu64
			 " left", type, off, extra == UINT64_MAX ? "unknown" : "more", w->len - off - sz);
		return -EBADMSG;
	}
	*step = sz + extra;
	return 0;
}

int spool_records_check_fd(int fd, uint64_t len, int prologue, char *why, size_t whylen)
{
	struct window w = { fd, len, 0, 0, malloc(WINDOW) };
	uint64_t off = 0, step;
	int rc = w.buf ? 0 : -ENOMEM, err = 0;

	if (rc == 0 && prologue) {
		const uint8_t *h = at(&w, 0, 16, &err);
		uint64_t magic = 0, size = 0;
		if (h) {
			memcpy(&magic, h, 8);
			memcpy(&size, h + 8, 8);
		}
		if (err)
			rc = err;
		else if (magic != PIPE_MAGIC || size != 16) {
			snprintf(why, whylen, "part 0 does not start with a perf pipe header (PERFILE2, size 16)");
			rc = -EBADMSG;
		}
		off = 16;
	}
	while (rc == 0 && off < len && (rc = record_at(&w, off, &step, why, whylen, &err)) == 0)
		off += step;
	free(w.buf);
	return rc;
}
