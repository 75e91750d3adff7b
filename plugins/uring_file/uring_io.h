/*
 * One io_uring for a uring_file instance, kept for the whole run so the
 * pool's buffers are registered (fixed buffers) once, and the ordered
 * appends to one file that a writer (uring_writer.h) makes through it.
 *
 * THREADS.  The submission queue is shared by the sink's caller and the
 * writer's completion thread (a resubmitted short write): uring_io_sqe and
 * io_uring_submit are called with the writer's lock held.  Only the
 * completion thread reads the completion queue.
 */
#ifndef PS_URING_IO_H
#define PS_URING_IO_H
#include <stddef.h>
#include <stdint.h>
#include <liburing.h>
#include <perfsink/sink.h>

struct uring_io {
	struct io_uring ring;
	unsigned depth;            /* submission queue entries */
	struct perfsink_region *regions; /* registered, sorted by base; NULL: none */
	unsigned nr_regions;
	int ready;                 /* ring set up */
};

/*
 * Can this process set up an io_uring at all?  0, or a negative errno with
 * a one-line reason in why (kernel.io_uring_disabled, a seccomp filter, a
 * kernel without io_uring).
 */
int uring_io_probe(char *why, size_t n);
/* A ring of depth entries (>= every write that can be in flight + 1).  0 or -errno, why filled. */
int uring_io_init(struct uring_io *io, unsigned depth, char *why, size_t n);
/*
 * Register the memory of regions as fixed buffers, replacing any earlier
 * registration (the ring must be idle).  0 or -errno (io left with none).
 */
int uring_io_register(struct uring_io *io, const struct perfsink_region *regions, unsigned n);
/* Whether regions are what is registered already. */
int uring_io_registered(const struct uring_io *io, const struct perfsink_region *regions,
			unsigned n);
/* Index of the registered buffer that holds [p, p + len), or -1. */
int uring_io_fixed_index(const struct uring_io *io, const void *p, size_t len);
void uring_io_exit(struct uring_io *io);

#endif
