#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "engine/ring.h"

int ring_map(struct ring *r, int fd, int cpu, unsigned pages, int overwrite)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)(pages + 1) * (size_t)page;
	int prot = overwrite ? PROT_READ : PROT_READ | PROT_WRITE;
	void *m = mmap(NULL, len, prot, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	memset(r, 0, sizeof(*r));
	r->pc = m;
	r->mmap_len = len;
	r->data = (uint8_t *)m + page;
	r->size = (uint64_t)pages * (uint64_t)page;
	r->fd = fd;
	r->cpu = cpu;
	r->overwrite = overwrite;
	return 0;
}

void ring_unmap(struct ring *r)
{
	if (r->pc)
		munmap(r->pc, r->mmap_len);
	r->pc = NULL;
}

uint64_t ring_ready(const struct ring *r)
{
	uint64_t head = __atomic_load_n(&r->pc->data_head, __ATOMIC_ACQUIRE);
	return head - r->pc->data_tail;
}

/* Longest run of whole records from tail that fits in cap. */
static uint64_t whole_records(const struct ring *r, uint64_t tail, uint64_t cap)
{
	uint64_t mask = r->size - 1, n = 0;
	for (;;) {
		/* Headers are 8-byte aligned, so one never straddles the wrap. */
		const struct perf_event_header *h = (const void *)(r->data + ((tail + n) & mask));
		if (h->size == 0 || n + h->size > cap)
			return n;
		n += h->size;
	}
}

static void copy_out(const struct ring *r, uint8_t *dst, uint64_t from, uint64_t len)
{
	uint64_t start = from & (r->size - 1);
	uint64_t first = start + len > r->size ? r->size - start : len;
	memcpy(dst, r->data + start, first);
	if (first < len)
		memcpy(dst + first, r->data, len - first);
}

static void copy_pieces(const struct ring *r, uint8_t *dst, uint64_t from, uint64_t len,
			ring_piece_fn *seen, void *arg)
{
	if (!seen) {
		copy_out(r, dst, from, len);
		return;
	}
	for (uint64_t done = 0; done < len;) {
		uint64_t n = len - done < RING_PIECE ? len - done : RING_PIECE;
		copy_out(r, dst + done, from + done, n);
		done += n;
		seen(arg, dst, done);
	}
}

size_t ring_read(struct ring *r, uint8_t *dst, size_t cap, ring_piece_fn *seen, void *arg)
{
	/* Pairs with the kernel's smp_wmb() before it publishes data_head. */
	uint64_t head = __atomic_load_n(&r->pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->pc->data_tail;
	uint64_t len = head - tail;
	if (len == 0)
		return 0;
	if (len > r->size) {
		/* Cannot happen with a writable mapping; resynchronize as perf does. */
		r->overruns++;
		tail = head - r->size;
		len = r->size;
	}
	if (len > cap)
		len = whole_records(r, tail, cap);
	copy_pieces(r, dst, tail, len, seen, arg);
	/* All reads of the data are done before the kernel may overwrite it. */
	__atomic_store_n(&r->pc->data_tail, tail + len, __ATOMIC_RELEASE);
	r->bytes += len;
	r->reads++;
	return len;
}

/* From head, the whole records that fit in the ring (perf's overwrite_rb_find_range). */
static uint64_t backward_extent(const struct ring *r, uint64_t head)
{
	uint64_t n = 0;
	for (;;) {
		const struct perf_event_header *h = (const void *)(r->data + ((head + n) & (r->size - 1)));
		if (h->size == 0 || n + h->size > r->size)
			return n;
		n += h->size;
	}
}

size_t ring_read_backward(struct ring *r, uint8_t *dst, size_t cap, ring_piece_fn *seen, void *arg)
{
	/* The kernel writes downward: head decreases; [head, prev) is new. */
	uint64_t head = __atomic_load_n(&r->pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t len = r->prev - head;
	if (len == 0)
		return 0;
	if (len > r->size)
		len = backward_extent(r, head); /* wrapped: only whole records */
	if (len > cap)
		len = whole_records(r, head, cap);
	copy_pieces(r, dst, head, len, seen, arg);
	r->prev = head;
	r->bytes += len;
	r->reads++;
	return len;
}
