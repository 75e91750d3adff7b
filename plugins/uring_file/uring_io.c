/* The instance's io_uring and its fixed buffers; see uring_io.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "uring_io.h"

static void say_unavailable(int err, char *why, size_t n)
{
	const char *cause = err == -ENOSYS ? "a seccomp filter or a kernel without io_uring"
			  : err == -EPERM ? "kernel.io_uring_disabled, or a seccomp filter"
			  : err == -ENOMEM ? "locked-memory limit (ulimit -l)"
			  : "the kernel refused it";
	snprintf(why, n, "io_uring unavailable: io_uring_setup: %s (%s)", strerror(-err), cause);
}

int uring_io_probe(char *why, size_t n)
{
	struct io_uring ring;
	int r = io_uring_queue_init(2, &ring, 0);
	if (r < 0) {
		say_unavailable(r, why, n);
		return r;
	}
	io_uring_queue_exit(&ring);
	return 0;
}

/* Rings set up in this process and not yet exited: the io-wq workers they may use at once. */
static unsigned live_rings;

/*
 * An O_DIRECT append cannot be issued without blocking (ext4 and xfs take
 * the inode lock exclusively to move i_size), so io_uring hands every
 * such write to an io-wq worker of the submitting thread (the file sink
 * grows the file ahead of the data so that few are appends, but not where
 * fallocate fails or the disk is nearly full); left alone it starts
 * one per write in flight, and they queue on the inode lock: a third of
 * the workers' context switches on a tracepoint storm.  One worker per
 * file writes them in order with no lock handoff; the limit belongs to the
 * submitting thread, shared by every ring it uses, hence one per live
 * ring.  A kernel without the call (before 5.15) keeps its default.
 */
static void limit_workers(struct uring_io *io)
{
	unsigned v[2] = { __atomic_add_fetch(&live_rings, 1, __ATOMIC_RELAXED), 0 };
	(void)io_uring_register_iowq_max_workers(&io->ring, v);
}

int uring_io_init(struct uring_io *io, unsigned depth, char *why, size_t n)
{
	memset(io, 0, sizeof(*io));
	int r = io_uring_queue_init(depth, &io->ring, 0);
	if (r < 0) {
		say_unavailable(r, why, n);
		return r;
	}
	limit_workers(io);
	io->depth = depth;
	io->ready = 1;
	return 0;
}

static int region_cmp(const void *a, const void *b)
{
	const struct perfsink_region *x = a, *y = b;
	return x->base < y->base ? -1 : x->base > y->base;
}

static void unregister(struct uring_io *io)
{
	if (io->regions)
		io_uring_unregister_buffers(&io->ring);
	free(io->regions);
	io->regions = NULL;
	io->nr_regions = 0;
}

int uring_io_register(struct uring_io *io, const struct perfsink_region *regions, unsigned n)
{
	unregister(io);
	if (!n)
		return 0;
	struct perfsink_region *v = malloc(n * sizeof(*v));
	struct iovec *iov = malloc(n * sizeof(*iov));
	int r = -ENOMEM;
	if (v && iov) {
		memcpy(v, regions, n * sizeof(*v));
		qsort(v, n, sizeof(*v), region_cmp);
		for (unsigned i = 0; i < n; i++)
			iov[i] = (struct iovec){ (void *)v[i].base, v[i].len };
		r = io_uring_register_buffers(&io->ring, iov, n);
	}
	free(iov);
	if (r < 0) {
		free(v);
		return r;
	}
	io->regions = v;
	io->nr_regions = n;
	return 0;
}

int uring_io_registered(const struct uring_io *io, const struct perfsink_region *regions,
			unsigned n)
{
	if (n != io->nr_regions)
		return 0;
	for (unsigned i = 0; i < n; i++)
		if (uring_io_fixed_index(io, regions[i].base, regions[i].len) < 0)
			return 0;
	return 1;
}

int uring_io_fixed_index(const struct uring_io *io, const void *p, size_t len)
{
	const uint8_t *a = p;
	unsigned lo = 0, hi = io->nr_regions;
	while (lo < hi) { /* the last region whose base <= a */
		unsigned mid = (lo + hi) / 2;
		if ((const uint8_t *)io->regions[mid].base <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	const struct perfsink_region *g = &io->regions[lo - 1];
	const uint8_t *base = g->base;
	return a + len <= base + g->len ? (int)(lo - 1) : -1;
}

void uring_io_exit(struct uring_io *io)
{
	if (!io->ready)
		return;
	unregister(io);
	io_uring_queue_exit(&io->ring);
	__atomic_sub_fetch(&live_rings, 1, __ATOMIC_RELAXED);
	io->ready = 0;
}
