/*
 * Test workload with known function names and known CPU shares, so tests
 * can check what perf report attributes:
 *   workload cpu MS       spin for MS ms of CPU: hot_alpha 50%, hot_beta 25%,
 *                         hot_gamma 12.5%, hot_delta 6.25%, hot_epsilon 3%
 *   workload getppid N    exactly N getppid() system calls
 *   workload exit CODE    exit with CODE
 *   workload sleep MS     sleep (for -p tests)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Distinct constants keep the compiler from folding them into one. */
#define SPIN(name, k)                                                     \
	__attribute__((noinline)) static void name(double ms)            \
	{                                                                 \
		double end = cpu_ms() + ms;                               \
		while (cpu_ms() < end)                                    \
			for (int i = 0; i < 20000; i++)                   \
				sink += (unsigned long)i * (k);           \
	}

SPIN(hot_alpha, 3)
SPIN(hot_beta, 5)
SPIN(hot_gamma, 7)
SPIN(hot_delta, 11)
SPIN(hot_epsilon, 13)

__attribute__((noinline)) static void cpu_mix(double slice)
{
	hot_alpha(slice * 0.50);
	hot_beta(slice * 0.25);
	hot_gamma(slice * 0.125);
	hot_delta(slice * 0.0625);
	hot_epsilon(slice * 0.03);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: workload cpu MS | getppid N | exit CODE | sleep MS\n");
		return 2;
	}
	long n = atol(argv[2]);
	if (!strcmp(argv[1], "cpu")) {
		double start = cpu_ms();
		while (cpu_ms() - start < (double)n)
			cpu_mix(20.0);
	} else if (!strcmp(argv[1], "getppid")) {
		for (long i = 0; i < n; i++)
			syscall(SYS_getppid);
	} else if (!strcmp(argv[1], "exit")) {
		return (int)n;
	} else if (!strcmp(argv[1], "sleep")) {
		usleep((useconds_t)n * 1000);
	} else {
		return 2;
	}
	return 0;
}
