/*
 * Two facts of the machine that decide what a recorder can do here
 * (docs/BENCHMARKS.md, "Writing straight from the ring, closed"):
 *
 *   psb_probe ring-dio DIR      can I/O read a perf ring's pages directly?
 *   psb_probe memcpy CPU SECS   how fast one CPU copies memory (GB/s)
 *   psb_probe xcopy SECS        the same for bytes CPU 0 has just written,
 *                               copied on CPU 1 in ring_read's pieces
 *
 * ring-dio maps the ring of a software event, prints the mapping's
 * VmFlags from /proc/self/smaps and tries the two ways a sink could write
 * the ring's bytes without copying them first: an O_DIRECT pwrite() from
 * the ring into a file in DIR, and registering the ring as an io_uring
 * fixed buffer (when built with liburing).  Both need the kernel to pin
 * the ring's pages (GUP), which a VM_PFNMAP or VM_IO mapping refuses with
 * EFAULT.  Exit 0 when both work, 1 when one does not, 2 on a setup error.
 *
 * memcpy copies 1 MiB buffers on CPU for SECS seconds and prints GB/s of
 * wall time and the thread's CPU time.  Run alone and under `perf record
 * -a -e cpu-clock -F RATE` (bench/sample_tax.sh), it shows what the
 * sampling interrupts take from every task on a sampled CPU, a recorder
 * included.
 *
 * xcopy is the engine's ring copy without the kernel: a thread on CPU 0
 * fills 2 MiB, then CPU 1 copies it in 32 KiB pieces (RING_PIECE) into
 * one of four 2 MiB buffers in turn, so the source comes from the other
 * CPU's cache or from memory, as a ring's bytes do.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#ifdef HAVE_LIBURING_PROBE
#include <liburing.h>
#endif

#define RING_PAGES 16 /* data pages: a power of two, as perf requires */

static double now(clockid_t clk)
{
	struct timespec t;
	clock_gettime(clk, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* The VmFlags line of the mapping that starts at p: the last line of its block. */
static void print_vmflags(const void *p)
{
	char want[32], line[512];
	snprintf(want, sizeof(want), "%lx-", (unsigned long)p);
	FILE *f = fopen("/proc/self/smaps", "r");
	int in = 0;
	while (f && fgets(line, sizeof(line), f)) {
		in |= !strncmp(line, want, strlen(want));
		if (in && !strncmp(line, "VmFlags:", 8)) {
			printf("ring mapping %s", line);
			break;
		}
	}
	if (f)
		fclose(f);
}

static int dio_from(const uint8_t *ring, const char *dir)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/psb_probe.dio", dir);
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_DIRECT, 0600);
	if (fd < 0) {
		fprintf(stderr, "psb_probe: %s: %s\n", path, strerror(errno));
		return -2;
	}
	ssize_t w = pwrite(fd, ring, 8192, 0);
	int err = w < 0 ? errno : 0;
	close(fd);
	unlink(path);
	printf("O_DIRECT pwrite from the ring: %s\n", err ? strerror(err) : "works");
	return err ? -1 : 0;
}

static int fixed_buffer(uint8_t *ring, size_t len)
{
#ifdef HAVE_LIBURING_PROBE
	struct io_uring u;
	int r = io_uring_queue_init(4, &u, 0);
	if (r < 0) {
		printf("io_uring fixed buffer: io_uring unavailable (%s)\n", strerror(-r));
		return -1;
	}
	struct iovec iov = { ring, len };
	r = io_uring_register_buffers(&u, &iov, 1);
	io_uring_queue_exit(&u);
	printf("io_uring fixed buffer of the ring: %s\n", r < 0 ? strerror(-r) : "works");
	return r < 0 ? -1 : 0;
#else
	(void)ring;
	(void)len;
	printf("io_uring fixed buffer of the ring: not tried (built without liburing)\n");
	return 0;
#endif
}

static int ring_dio(const char *dir)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(a), .sample_period = 1000000, .sample_type = PERF_SAMPLE_IP,
	};
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		fprintf(stderr, "psb_probe: perf_event_open: %s\n", strerror(errno));
		return 2;
	}
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint8_t *m = mmap(NULL, (RING_PAGES + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		fprintf(stderr, "psb_probe: mmap of the ring: %s\n", strerror(errno));
		return 2;
	}
	print_vmflags(m);
	int r = dio_from(m + page, dir);
	if (r == -2)
		return 2;
	r |= fixed_buffer(m + page, RING_PAGES * page);
	return r ? 1 : 0;
}

static int copy_rate(int cpu, double secs)
{
	if (pin(cpu) < 0) {
		fprintf(stderr, "psb_probe: CPU %d: %s\n", cpu, strerror(errno));
		return 2;
	}
	const size_t n = 1 << 20;
	char *src = malloc(n), *dst = malloc(n);
	if (!src || !dst)
		return 2;
	memset(src, 1, n);
	memset(dst, 2, n);
	double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID), t;
	long copies = 0;
	do {
		memcpy(dst, src, n);
		__asm__ volatile("" : : "r"(dst) : "memory"); /* keep every copy */
		copies++;
		t = now(CLOCK_MONOTONIC);
	} while (t - t0 < secs);
	printf("cpu %d: %.2f GB/s, thread CPU %.2f s in %.2f s\n", cpu,
	       (double)copies * (double)n / (t - t0) / 1e9, now(CLOCK_THREAD_CPUTIME_ID) - c0, t - t0);
	free(src);
	free(dst);
	return 0;
}

#define XSIZE (2u << 20)
#define XPIECE (32u << 10)

struct xshared {
	uint8_t *src;
	int turn;   /* atomic: odd, the writer fills; even, the reader copies */
	int done;   /* atomic */
};

static void *xwriter(void *arg)
{
	struct xshared *x = arg;
	pin(0);
	for (int i = 1;; i++) {
		int t;
		while ((t = __atomic_load_n(&x->turn, __ATOMIC_ACQUIRE)) % 2 == 0)
			if (__atomic_load_n(&x->done, __ATOMIC_ACQUIRE))
				return NULL;
		memset(x->src, i, XSIZE);
		__atomic_store_n(&x->turn, t + 1, __ATOMIC_RELEASE);
	}
}

static int cross_copy(double secs)
{
	struct xshared x = { .src = aligned_alloc(4096, XSIZE) };
	/* Four destinations in turn, as a ring's pool of buffers. */
	uint8_t *dst = aligned_alloc(4096, 4 * XSIZE);
	pthread_t th;
	if (!x.src || !dst || pin(1) < 0 || pthread_create(&th, NULL, xwriter, &x)) {
		fprintf(stderr, "psb_probe: xcopy needs CPUs 0 and 1\n");
		return 2;
	}
	double spent = 0, t0 = now(CLOCK_MONOTONIC);
	long rounds = 0;
	while (now(CLOCK_MONOTONIC) - t0 < secs) {
		__atomic_add_fetch(&x.turn, 1, __ATOMIC_ACQ_REL);
		while (__atomic_load_n(&x.turn, __ATOMIC_ACQUIRE) % 2)
			;
		double a = now(CLOCK_MONOTONIC);
		uint8_t *to = dst + (size_t)(rounds % 4) * XSIZE;
		for (size_t o = 0; o < XSIZE; o += XPIECE)
			memcpy(to + o, x.src + o, XPIECE);
		__asm__ volatile("" : : "r"(to) : "memory"); /* keep every copy */
		spent += now(CLOCK_MONOTONIC) - a;
		rounds++;
	}
	__atomic_store_n(&x.done, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	printf("CPU 1 copying what CPU 0 wrote: %.2f GB/s (%ld copies of 2 MiB)\n",
	       (double)rounds * XSIZE / spent / 1e9, rounds);
	free(x.src);
	free(dst);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "ring-dio"))
		return ring_dio(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "xcopy"))
		return cross_copy(atof(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "memcpy"))
		return copy_rate(atoi(argv[2]), atof(argv[3]));
	fprintf(stderr, "usage: psb_probe ring-dio DIR | memcpy CPU SECONDS | xcopy SECONDS\n");
	return 2;
}
