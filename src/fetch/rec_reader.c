/* A part's records from memory or a file; see rec_reader.h. */
#include "fetch/rec_reader.h"

#include <errno.h>
#include <perfsink/kit.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void rec_reader_mem(struct rec_reader *r, const uint8_t *p, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->mem = p;
	r->fd = -1;
	r->len = len;
}

int rec_reader_fd(struct rec_reader *r, int fd, uint64_t len)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->len = len;
	r->win = malloc(REC_READER_WINDOW);
	return r->win ? 0 : -ENOMEM;
}

void rec_reader_free(struct rec_reader *r)
{
	free(r->win);
	r->win = NULL;
}

uint64_t rec_reader_left(const struct rec_reader *r)
{
	return r->off < r->len ? r->len - r->off : 0;
}

/* The window from r->off on, as full as the input allows. */
static int refill(struct rec_reader *r)
{
	uint64_t want = rec_reader_left(r);
	if (want > REC_READER_WINDOW)
		want = REC_READER_WINDOW;
	r->win_off = r->off;
	r->win_len = 0;
	while (r->win_len < want) {
		ssize_t k = pread(r->fd, r->win + r->win_len, want - r->win_len,
				  (off_t)(r->off + r->win_len));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return r->err = k < 0 ? -errno : -EIO;
		r->win_len += (size_t)k;
	}
	return 0;
}

const uint8_t *rec_reader_peek(struct rec_reader *r, size_t n)
{
	if (r->err || n > REC_READER_WINDOW || n > rec_reader_left(r))
		return NULL;
	if (r->mem)
		return r->mem + r->off;
	if (r->off < r->win_off || r->off + n > r->win_off + r->win_len) {
		if (refill(r) < 0)
			return NULL;
	}
	return r->win + (r->off - r->win_off);
}

uint64_t rec_payload_size(const uint8_t *rec)
{
	struct perfsink_kit_rec r = { .p = rec };
	memcpy(&r.type, rec, 4);
	memcpy(&r.size, rec + 6, 2);
	uint64_t n = perfsink_kit_rec_payload(&r);
	return n == UINT64_MAX ? 0 : n; /* too small to say: the walk's size checks catch it */
}

int rec_reader_next(struct rec_reader *r, struct perfsink_kit_rec *rec,
		    enum perfsink_kit_rec_stop *stop)
{
	uint64_t left = rec_reader_left(r);
	const uint8_t *h = left >= 8 ? rec_reader_peek(r, 8) : NULL;

	if (!h) {
		*stop = left ? PERFSINK_KIT_REC_SHORT : PERFSINK_KIT_REC_END;
		return 0;
	}
	memcpy(&rec->type, h, 4);
	memcpy(&rec->misc, h + 4, 2);
	memcpy(&rec->size, h + 6, 2);
	if (rec->size < 8 || rec->size > left) {
		*stop = rec->size < 8 ? PERFSINK_KIT_REC_UNDERSIZE : PERFSINK_KIT_REC_PAST_END;
		return 0;
	}
	if (!(rec->p = rec_reader_peek(r, rec->size))) {
		*stop = PERFSINK_KIT_REC_PAST_END; /* a read error: r->err */
		return 0;
	}
	rec->payload = rec_payload_size(rec->p);
	return 1;
}
