/*
 * One kernel perf ring (the mmap of a perf event fd): the consumer side of
 * the protocol in perf-format.md §6.  Engine thread only.
 */
#ifndef PS_RING_H
#define PS_RING_H
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct ring {
	struct perf_event_mmap_page *pc; /* control page */
	uint8_t *data;                   /* data pages */
	uint64_t size;                   /* data bytes, a power of two */
	size_t mmap_len;                 /* control page included */
	int fd;                          /* the event fd that owns the mmap */
	int cpu;
	uint64_t bytes;                  /* read so far */
	uint64_t reads;                  /* ring_read calls that returned data */
	uint64_t overruns;               /* times head ran more than size ahead */
	uint64_t lost;                   /* records the kernel dropped (PERF_RECORD_LOST) */
	int overwrite;                   /* read-only, written backward by the kernel */
	uint64_t prev;                   /* overwrite: head at the previous read */
};

/*
 * mmap 1 + pages pages of fd; 0 or a negative errno.  With overwrite the
 * mapping is read-only, so the kernel overwrites the oldest data (the
 * events must have attr.write_backward set).
 */
int ring_map(struct ring *r, int fd, int cpu, unsigned pages, int overwrite);
void ring_unmap(struct ring *r);
/* Bytes ready to read (head - tail). */
uint64_t ring_ready(const struct ring *r);
/*
 * Called while a read copies, after each piece of at most RING_PIECE bytes:
 * dst[0, done) is copied and its last piece is still in the CPU's cache, so
 * a caller that walks the records there does not fetch them from memory a
 * second time.  The record walk is a chain of dependent loads (each header
 * gives the next one's offset): from a cold 2 MiB buffer it costs as much
 * as the copy itself.
 */
typedef void ring_piece_fn(void *arg, const uint8_t *dst, size_t done);
#define RING_PIECE (32 * 1024)

/*
 * Copy every byte from tail to head into dst (cap >= r->size), in two
 * pieces when it wraps, then publish the new tail so the kernel may reuse
 * the space at once.  Returns the bytes copied (0: empty).  seen (may be
 * NULL) is called as described above.
 */
size_t ring_read(struct ring *r, uint8_t *dst, size_t cap, ring_piece_fn *seen, void *arg);
/*
 * Overwrite rings: copy the records written since the previous call (at
 * most the whole ring, newest first as the kernel lays them out).  The
 * caller pauses the ring's output around the call.
 */
size_t ring_read_backward(struct ring *r, uint8_t *dst, size_t cap, ring_piece_fn *seen,
			  void *arg);

#endif
