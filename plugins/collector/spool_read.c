/* A spooled part's records checked from its file; see spool_read_priv.h. */
#include "spool_read_priv.h"
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

/* The record at off: 0 with its whole length (payload included) in *step. */
static int record_at(struct window *w, uint64_t off, uint64_t *step, char *why, size_t whylen, int *err)
{
	const uint8_t *h = at(w, off, 16 <= w->len - off ? 16 : 8, err);
	struct perfsink_kit_rec r = { .p = h };
	uint64_t extra;

	if (!h) {
		if (!*err)
			snprintf(why, whylen, "%" PRIu64 " bytes at offset %" PRIu64 ": not a whole record header",
				 w->len - off, off);
		return *err ? *err : -EBADMSG;
	}
	memcpy(&r.type, h, 4);
	memcpy(&r.size, h + 6, 2);
	if (!perfsink_kit_rec_type_known(r.type)) {
		snprintf(why, whylen, "record type %u at offset %" PRIu64 " is not one perf knows", r.type, off);
		return -EBADMSG;
	}
	if (r.size < 8 || r.size > w->len - off) {
		snprintf(why, whylen, "record at offset %" PRIu64 " has size %u, %" PRIu64 " bytes left", off, r.size,
			 w->len - off);
		return -EBADMSG;
	}
	/* h holds min(16, left) bytes: enough for what the payload size is read from. */
	extra = perfsink_kit_rec_payload(&r);
	if (extra > w->len - off - r.size) {
		snprintf(why, whylen, "record type %u at offset %" PRIu64 " announces %s bytes after it, %" PRIu64
			 " left", r.type, off, extra == UINT64_MAX ? "unknown" : "more", w->len - off - r.size);
		return -EBADMSG;
	}
	*step = r.size + extra;
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
