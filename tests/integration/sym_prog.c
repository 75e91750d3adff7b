/*
 * The program whose symbols the symbol tests ship: built by the test into
 * a temporary directory (so no other copy of it exists), it burns CPU in
 * two functions of its own.  With "jit", it first writes the JIT symbol map
 * perf reads, /tmp/perf-PID.map, as a JIT runtime does, and prints
 * "pid PID".
 *   sym_prog MS [jit]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void sym_alpha_work(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}

__attribute__((noinline)) void sym_beta_work(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink ^= i * 7;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = now_s() + (argc > 1 ? atoi(argv[1]) : 300) / 1000.0;

	if (argc > 2 && !strcmp(argv[2], "jit")) {
		char path[64];
		FILE *f;

		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
		f = fopen(path, "w");
		if (!f)
			return 1;
		fprintf(f, "7f0000001000 40 sym_jitted_function\n");
		fclose(f);
		printf("pid %d\n", (int)getpid());
	}
	while (now_s() < end) {
		sym_alpha_work(200000);
		sym_beta_work(200000);
	}
	printf("%lu\n", sink);
	return 0;
}
