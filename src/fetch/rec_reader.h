/*
 * Reading a part's perf records in order, from memory or from a file,
 * with bounded memory: a file is seen through a window of REC_READER_WINDOW
 * bytes, enough for any record's header and body (header.size is 16 bits);
 * the payload that HEADER_TRACING_DATA and AUXTRACE carry after their
 * header (up to 4 GiB and 2^64) is read in pieces.
 *
 * Single-threaded.
 */
#ifndef PS_FETCH_REC_READER_H
#define PS_FETCH_REC_READER_H
#include <stddef.h>
#include <stdint.h>

#define REC_READER_WINDOW (256u << 10)

struct rec_reader {
	const uint8_t *mem;   /* the whole input, or NULL: fd */
	int fd;
	uint64_t len;         /* input size */
	uint64_t off;         /* where the next read starts */
	uint8_t *win;         /* fd: bytes [win_off, win_off + win_len) */
	uint64_t win_off;
	size_t win_len;
	int err;              /* a read error (-errno), sticky */
};

void rec_reader_mem(struct rec_reader *r, const uint8_t *p, size_t len);
/* fd: the input, len bytes from offset 0.  0 or -ENOMEM. */
int rec_reader_fd(struct rec_reader *r, int fd, uint64_t len);
void rec_reader_free(struct rec_reader *r);
/*
 * n (at most REC_READER_WINDOW) bytes at r->off, or NULL when fewer are
 * left or a read failed (r->err).  Valid until the next call; r->off does
 * not move.
 */
const uint8_t *rec_reader_peek(struct rec_reader *r, size_t n);
/* Bytes left from r->off. */
uint64_t rec_reader_left(const struct rec_reader *r);

/* The bytes after a record that its header.size does not count. */
uint64_t rec_payload_size(const uint8_t *rec);

/*
 * The record at r->off, checked as the kit's walk (perfsink_kit_rec_next)
 * checks one: 1 with *rec filled (rec->p valid until the next call,
 * rec->payload from rec_payload_size), or 0 with the reason in *stop
 * (PERFSINK_KIT_REC_END when nothing is left; SHORT, UNDERSIZE, PAST_END;
 * a read error is SHORT or PAST_END with r->err set).  r->off does not
 * move: the caller steps over the record and its payload.
 */
struct perfsink_kit_rec;
enum perfsink_kit_rec_stop;
int rec_reader_next(struct rec_reader *r, struct perfsink_kit_rec *rec,
		    enum perfsink_kit_rec_stop *stop);

#endif
