/*
 * The program whose symbols the symbol tests ship: built by the test into
 * a temporary directory (so no other copy of it exists), it burns CPU in
 * two functions of its own.  With "jit" (x86-64 only), it runs as a JIT
 * runtime does: it copies a small loop into an anonymous executable
 * mapping, writes the symbol map perf reads for such code,
 * /tmp/perf-PID.map ("START SIZE sym_jitted_function", hex), prints
 * "pid PID", and spends about three quarters of MS in that code.
 *   sym_prog MS [jit]
 * Exit 3 when jit is asked for on another architecture.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

#if defined(__x86_64__)
/* loop: dec %rdi; jnz loop; ret -- then int3 padding up to JIT_SIZE. */
static const unsigned char jit_code[] = { 0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc3 };
#define JIT_SIZE 16

typedef void (*jit_fn)(unsigned long n);

/*
 * The code is written while the mapping is RW and made R|X after, as
 * JITs under W^X do: mprotect adding exec is what makes the kernel send
 * the MMAP record (an //anon mapping) perf resolves the map against.
 */
static jit_fn jit_emit(void)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char path[64];
	FILE *f;

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0xcc, JIT_SIZE);
	memcpy(p, jit_code, sizeof(jit_code));
	if (mprotect(p, (size_t)page, PROT_READ | PROT_EXEC) < 0)
		return NULL;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return NULL;
	fprintf(f, "%lx %x sym_jitted_function\n", (unsigned long)p, JIT_SIZE);
	if (fclose(f) != 0)
		return NULL;
	return (jit_fn)(void *)p;
}
#endif

int main(int argc, char **argv)
{
	double start = now_s();
	double end = start + (argc > 1 ? atoi(argv[1]) : 300) / 1000.0;

	if (argc > 2 && !strcmp(argv[2], "jit")) {
#if defined(__x86_64__)
		jit_fn jitted = jit_emit();
		double jit_end = start + (end - start) * 0.75;

		if (!jitted) {
			perror("sym_prog: jit");
			return 1;
		}
		printf("pid %d\n", (int)getpid());
		fflush(stdout);
		while (now_s() < jit_end)
			jitted(2000000);
#else
		fprintf(stderr, "sym_prog: jit mode runs x86-64 code only\n");
		return 3;
#endif
	}
	while (now_s() < end) {
		sym_alpha_work(200000);
		sym_beta_work(200000);
	}
	printf("%lu\n", sink);
	return 0;
}
