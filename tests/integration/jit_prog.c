/*
 * A JIT runtime in miniature for the jitdump tests: it writes DIR/jit-PID.dump
 * as perf's jitdump specification says (tools/perf/Documentation/
 * jitdump-specification.txt): the file header, then one JIT_CODE_LOAD
 * record for a function it copies into an executable anonymous mapping,
 * named jitdump_hot_function; it maps the dump file PROT_READ|PROT_EXEC
 * once (as jvmti's agent does: that MMAP record is how perf inject --jit
 * finds the file), prints "pid PID" and "dump PATH", and calls the
 * function in a loop for MS milliseconds.  Timestamps are CLOCK_MONOTONIC:
 * record with -k mono, which perf inject --jit requires.
 *   jit_prog DIR MS
 * x86-64 only (exit 3 elsewhere).
 */
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define JITHEADER_MAGIC 0x4A695444u
#define JITHEADER_VERSION 1
#define JIT_CODE_LOAD 0
#define FUNC_NAME "jitdump_hot_function"

struct jitheader {
	uint32_t magic, version, total_size, elf_mach, pad1, pid;
	uint64_t timestamp, flags;
};

struct jr_code_load {
	uint32_t id, total_size;
	uint64_t timestamp;
	uint32_t pid, tid;
	uint64_t vma, code_addr, code_size, code_index;
	/* then the name, NUL-terminated, then the code bytes */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__)
/* loop: dec %rdi; jnz loop; ret -- then int3 padding up to CODE_SIZE. */
static const unsigned char code[] = { 0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc3 };
#define CODE_SIZE 16

static int write_all(int fd, const void *p, size_t n)
{
	return write(fd, p, n) == (ssize_t)n ? 0 : -1;
}

int main(int argc, char **argv)
{
	char path[4096];
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *fn;
	struct jitheader h = { 0 };
	struct jr_code_load r = { 0 };
	uint64_t end;
	void *marker;
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: jit_prog DIR MS\n");
		return 2;
	}
	end = mono_ns() + (uint64_t)atoi(argv[2]) * 1000000u;
	snprintf(path, sizeof(path), "%s/jit-%d.dump", argv[1], (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	fn = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fd < 0 || fn == MAP_FAILED) {
		perror("jit_prog");
		return 1;
	}
	/* The marker mapping: perf inject --jit sees this MMAP and reads the file. */
	marker = mmap(NULL, (size_t)page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (marker == MAP_FAILED) {
		perror("jit_prog: mmap of the dump");
		return 1;
	}
	memset(fn, 0xcc, CODE_SIZE);
	memcpy(fn, code, sizeof(code));
	if (mprotect(fn, (size_t)page, PROT_READ | PROT_EXEC) < 0) {
		perror("jit_prog: mprotect");
		return 1;
	}
	h.magic = JITHEADER_MAGIC;
	h.version = JITHEADER_VERSION;
	h.total_size = sizeof(h);
	h.elf_mach = EM_X86_64;
	h.pid = (uint32_t)getpid();
	h.timestamp = mono_ns();
	r.id = JIT_CODE_LOAD;
	r.total_size = (uint32_t)(sizeof(r) + sizeof(FUNC_NAME) + CODE_SIZE);
	r.timestamp = mono_ns();
	r.pid = (uint32_t)getpid();
	r.tid = (uint32_t)syscall(SYS_gettid);
	r.vma = r.code_addr = (uint64_t)(uintptr_t)fn;
	r.code_size = CODE_SIZE;
	if (write_all(fd, &h, sizeof(h)) || write_all(fd, &r, sizeof(r)) ||
	    write_all(fd, FUNC_NAME, sizeof(FUNC_NAME)) || write_all(fd, fn, CODE_SIZE) || fsync(fd)) {
		perror("jit_prog: write");
		return 1;
	}
	printf("pid %d\ndump %s\n", (int)getpid(), path);
	fflush(stdout);
	while (mono_ns() < end)
		((void (*)(unsigned long))(void *)fn)(2000000);
	munmap(marker, (size_t)page);
	close(fd);
	return 0;
}
#else
int main(void)
{
	fprintf(stderr, "jit_prog: x86-64 code only\n");
	return 3;
}
#endif
