/*
 * Benchmark workloads.  The tasks are created first and wait; a gate
 * command, run by the recorder as its workload once its counters are
 * ready, releases them and returns when they are done.  So every recorder
 * sees the same, already-named tasks, and the driver knows their pids.
 *
 *   psb_workload run MODE SECONDS DIR   create the tasks, write DIR/pids,
 *                                       wait for the gate, run, write DIR/result
 *   psb_workload gate DIR               release the tasks; exit when they are done
 *
 * MODE:
 *   cpu      one CPU-bound process per online CPU, deep call stacks (about
 *            40 frames) whose locals hold varied, non-zero data
 *   syscall  one process per online CPU calling getppid() in a loop
 *   ctxsw    two threads pinned to CPU 0 passing a byte over two pipes
 *   mild     one process using about 10% of a CPU (control)
 *
 * DIR/result (key=value lines): cpu_ns (user+sys of every task), calls
 * (getppid calls), switches (voluntary+involuntary context switches of the
 * tasks), start_ns and end_ns (CLOCK_MONOTONIC around the run).
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
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_TASKS 256
#define STACK_DEPTH 40

static volatile uint64_t sink;

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "psb_workload: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void path_in(char *out, size_t n, const char *dir, const char *name)
{
	snprintf(out, n, "%s/%s", dir, name);
}

/* ------------------------------------------------------------ cpu mode */

/*
 * A chain of frames, each with a local block filled from a cheap generator:
 * pointers, counters and text-like bytes, as real stacks hold; a dwarf
 * stack dump of 8 KiB then carries data that compresses like real stacks
 * (neither all zeros nor random).
 */
typedef uint64_t (*frame_fn)(int depth, uint64_t seed);
static uint64_t frame_a(int depth, uint64_t seed);
static uint64_t frame_b(int depth, uint64_t seed);
static uint64_t frame_c(int depth, uint64_t seed);
static uint64_t frame_d(int depth, uint64_t seed);
static const frame_fn frames[4] = { frame_a, frame_b, frame_c, frame_d };

__attribute__((noinline)) static uint64_t leaf_work(uint64_t seed)
{
	uint64_t x = seed | 1;
	for (int i = 0; i < 4000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

static void fill_locals(uint64_t *loc, unsigned n, uint64_t seed)
{
	for (unsigned i = 0; i < n; i++) {
		switch (i & 3) {
		case 0: loc[i] = (uint64_t)(uintptr_t)loc + i * 8; break; /* pointer-like */
		case 1: loc[i] = seed + i; break;                           /* counter */
		case 2: loc[i] = 0x2f7273752f6e6962ULL ^ (seed & 0xff); break; /* text-like */
		default: loc[i] = (seed * 0x9e3779b97f4a7c15ULL) >> (i & 31); break;
		}
	}
}

#define FRAME(name, words)                                                       \
	__attribute__((noinline)) static uint64_t name(int depth, uint64_t seed) \
	{                                                                        \
		uint64_t loc[words];                                             \
		fill_locals(loc, words, seed);                                   \
		__asm__ volatile("" : : "r"(loc) : "memory"); /* keep the block */ \
		uint64_t r = depth <= 0 ? leaf_work(seed)                        \
				       : frames[(seed + (uint64_t)depth) & 3](depth - 1, seed + 1); \
		return r + loc[(seed & (words - 1))];                            \
	}
FRAME(frame_a, 8)
FRAME(frame_b, 16)
FRAME(frame_c, 32)
FRAME(frame_d, 16)

static void run_cpu(int64_t end)
{
	uint64_t seed = (uint64_t)getpid();
	while (mono_ns() < end) {
		sink += frames[seed & 3](STACK_DEPTH, seed);
		seed++;
	}
}

static void run_mild(int64_t end)
{
	uint64_t seed = (uint64_t)getpid();
	while (mono_ns() < end) {
		int64_t busy = mono_ns() + 1000000;
		while (mono_ns() < busy) {
			sink += frames[seed & 3](STACK_DEPTH, seed);
			seed++;
		}
		struct timespec ts = { 0, 9 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}

/* ------------------------------------------------------- syscall mode */

static uint64_t run_syscall(int64_t end)
{
	uint64_t calls = 0;
	while (mono_ns() < end) {
		for (int i = 0; i < 1024; i++)
			syscall(SYS_getppid);
		calls += 1024;
	}
	return calls;
}

/* --------------------------------------------------------- ctxsw mode */

struct pingpong {
	int rd, wr;
	int64_t end;
	volatile int *stop;
	int leader;
};

static void pin_cpu0(void)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *pingpong_run(void *arg)
{
	struct pingpong *p = arg;
	char c = 0;
	pin_cpu0();
	prctl(PR_SET_NAME, p->leader ? "psb-ping" : "psb-pong");
	if (!p->leader && read(p->rd, &c, 1) != 1)
		return NULL;
	for (;;) {
		if (p->leader && (mono_ns() >= p->end || *p->stop)) {
			*p->stop = 1;
			c = 'q';
		}
		if (write(p->wr, &c, 1) != 1 || c == 'q')
			break;
		if (read(p->rd, &c, 1) != 1 || c == 'q')
			break;
	}
	if (!p->leader && c == 'q' && write(p->wr, &c, 1) != 1) {
		/* the leader is gone already */
	}
	return NULL;
}

static void run_ctxsw(int64_t end)
{
	int ab[2], ba[2];
	volatile int stop = 0;
	if (pipe(ab) < 0 || pipe(ba) < 0)
		die("pipe");
	struct pingpong a = { ba[0], ab[1], end, &stop, 1 };
	struct pingpong b = { ab[0], ba[1], end, &stop, 0 };
	pthread_t tb;
	if (pthread_create(&tb, NULL, pingpong_run, &b))
		die("pthread_create");
	pingpong_run(&a);
	pthread_join(tb, NULL);
}

/* ---------------------------------------------------------- the tasks */

struct task_result {
	uint64_t calls;
};

/* Child: wait for the release (EOF on the pipe), run, report on out_fd. */
static void task_main(const char *mode, int idx, double secs, int go_fd, int out_fd)
{
	char name[16];
	snprintf(name, sizeof(name), "psb-%s%d", mode, idx);
	prctl(PR_SET_NAME, name);
	char c;
	if (read(go_fd, &c, 1) < 0)
		_exit(3);
	close(go_fd);
	int64_t end = mono_ns() + (int64_t)(secs * 1e9);
	struct task_result r = { 0 };
	if (!strcmp(mode, "cpu"))
		run_cpu(end);
	else if (!strcmp(mode, "mild"))
		run_mild(end);
	else if (!strcmp(mode, "syscall"))
		r.calls = run_syscall(end);
	else if (!strcmp(mode, "ctxsw"))
		run_ctxsw(end);
	if (write(out_fd, &r, sizeof(r)) != (ssize_t)sizeof(r))
		_exit(4);
	_exit(0);
}

static int ntasks_for(const char *mode)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < 1)
		ncpu = 1;
	if (ncpu > MAX_TASKS)
		ncpu = MAX_TASKS;
	if (!strcmp(mode, "cpu") || !strcmp(mode, "syscall"))
		return (int)ncpu;
	if (!strcmp(mode, "ctxsw") || !strcmp(mode, "mild"))
		return 1;
	return -1;
}

static int cmd_run(const char *mode, double secs, const char *dir)
{
	int n = ntasks_for(mode);
	if (n < 0) {
		fprintf(stderr, "psb_workload: unknown mode '%s' (cpu, syscall, ctxsw, mild)\n", mode);
		return 2;
	}
	char p_go[512], p_done[512], p_pids[512], p_res[512], tmp[600];
	path_in(p_go, sizeof(p_go), dir, "go");
	path_in(p_done, sizeof(p_done), dir, "done");
	path_in(p_pids, sizeof(p_pids), dir, "pids");
	path_in(p_res, sizeof(p_res), dir, "result");
	unlink(p_go);
	unlink(p_done);
	if (mkfifo(p_go, 0600) < 0 || mkfifo(p_done, 0600) < 0)
		die("mkfifo");

	int go[2], out[2];
	if (pipe(go) < 0 || pipe(out) < 0)
		die("pipe");
	pid_t pids[MAX_TASKS];
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork");
		if (pids[i] == 0) {
			close(go[1]);
			close(out[0]);
			task_main(mode, i, secs, go[0], out[1]);
		}
	}
	close(go[0]);
	close(out[1]);
	snprintf(tmp, sizeof(tmp), "%s.tmp", p_pids);
	FILE *f = fopen(tmp, "w");
	if (!f)
		die(tmp);
	fprintf(f, "%d", (int)getpid());
	for (int i = 0; i < n; i++)
		fprintf(f, " %d", (int)pids[i]);
	fprintf(f, "\n");
	fclose(f);
	if (rename(tmp, p_pids) < 0)
		die("rename");

	/* Wait for the gate: it opens the FIFO when the recorder runs it. */
	int gfd = open(p_go, O_RDONLY);
	if (gfd < 0)
		die(p_go);
	char c;
	if (read(gfd, &c, 1) != 1)
		die("gate read");
	close(gfd);
	int64_t start = mono_ns();
	close(go[1]); /* EOF: every task starts now */

	uint64_t calls = 0;
	struct task_result r;
	while (read(out[0], &r, sizeof(r)) == (ssize_t)sizeof(r))
		calls += r.calls;
	for (int i = 0; i < n; i++)
		waitpid(pids[i], NULL, 0);
	int64_t end = mono_ns();
	struct rusage ru;
	getrusage(RUSAGE_CHILDREN, &ru);
	int64_t cpu_ns = ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
			 ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
	snprintf(tmp, sizeof(tmp), "%s.tmp", p_res);
	f = fopen(tmp, "w");
	if (!f)
		die(tmp);
	fprintf(f, "mode=%s\ntasks=%d\ncpu_ns=%lld\ncalls=%llu\nswitches=%ld\nstart_ns=%lld\nend_ns=%lld\n",
		mode, n, (long long)cpu_ns, (unsigned long long)calls, ru.ru_nvcsw + ru.ru_nivcsw,
		(long long)start, (long long)end);
	fclose(f);
	if (rename(tmp, p_res) < 0)
		die("rename");
	/* Tell the gate: its exit ends the recording. */
	int dfd = open(p_done, O_WRONLY);
	if (dfd < 0)
		die(p_done);
	close(dfd);
	return 0;
}

static int cmd_gate(const char *dir)
{
	char p_go[512], p_done[512];
	path_in(p_go, sizeof(p_go), dir, "go");
	path_in(p_done, sizeof(p_done), dir, "done");
	int gfd = open(p_go, O_WRONLY);
	if (gfd < 0 || write(gfd, "g", 1) != 1)
		die(p_go);
	close(gfd);
	int dfd = open(p_done, O_RDONLY);
	if (dfd < 0)
		die(p_done);
	char c;
	while (read(dfd, &c, 1) > 0)
		;
	close(dfd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "run"))
		return cmd_run(argv[2], atof(argv[3]), argv[4]);
	if (argc == 3 && !strcmp(argv[1], "gate"))
		return cmd_gate(argv[2]);
	fprintf(stderr, "usage: psb_workload run cpu|syscall|ctxsw|mild SECONDS DIR\n"
			"       psb_workload gate DIR\n");
	return 2;
}
