/* The instance's io_uring and its fixed buffers; see uring_io.h (the thread: uring_io_thread.c). */
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

void uring_io_say_unavailable(int err, char *why, size_t n)
{
	say_unavailable(err, why, n);
}

static int region_cmp(const void *a, const void *b)
{
	const struct perfsink_region *x = a, *y = b;
	return x->base < y->base ? -1 : x->base > y->base;
}

/* On the I/O thread (SINGLE_ISSUER: only the submitter may register). */
void uring_io_unregister(struct uring_io *io)
{
	if (io->regions)
		io_uring_unregister_buffers(&io->ring);
	free(io->regions);
	io->regions = NULL;
	io->nr_regions = 0;
}

struct register_args {
	const struct perfsink_region *regions;
	unsigned n;
};

/* On the I/O thread, through uring_io_call. */
static int do_register(struct uring_io *io, void *arg)
{
	const struct register_args *a = arg;
	uring_io_unregister(io);
	if (!a->n)
		return 0;
	struct perfsink_region *v = malloc(a->n * sizeof(*v));
	struct iovec *iov = malloc(a->n * sizeof(*iov));
	int r = -ENOMEM;
	if (v && iov) {
		memcpy(v, a->regions, a->n * sizeof(*v));
		qsort(v, a->n, sizeof(*v), region_cmp);
		for (unsigned i = 0; i < a->n; i++)
			iov[i] = (struct iovec){ (void *)v[i].base, v[i].len };
		r = io_uring_register_buffers(&io->ring, iov, a->n);
	}
	free(iov);
	if (r < 0) {
		free(v);
		return r;
	}
	io->regions = v;
	io->nr_regions = a->n;
	return 0;
}

int uring_io_register(struct uring_io *io, const struct perfsink_region *regions, unsigned n)
{
	struct register_args a = { regions, n };
	return uring_io_call(io, do_register, &a);
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
