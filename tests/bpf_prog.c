/*
 * Test helper: loads a BPF socket filter named NAME through the raw bpf(2)
 * syscall (no libbpf), so tests have a BPF program whose JIT image the
 * kernel reports as a ksymbol "bpf_prog_<tag>_<NAME>".
 *   bpf_prog NAME hold     print "id TAG" and keep the program loaded
 *                          until stdin reaches EOF
 *   bpf_prog NAME run MS   print "id TAG", then run it in the kernel
 *                          (BPF_PROG_TEST_RUN) for MS ms of wall time, so
 *                          kernel samples land inside it
 * Exit 0, or 1 with the reason on stderr (77 when bpf(2) is not allowed:
 * the tests skip then).
 */
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Enough straight-line work per run that samples land in the JIT image. */
#define NR_ADDS 2000

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int load(const char *name)
{
	static struct bpf_insn insns[NR_ADDS + 2];
	union bpf_attr attr;

	insns[0] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 };
	for (int i = 1; i <= NR_ADDS; i++)
		insns[i] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_ADD | BPF_K,
					      .dst_reg = BPF_REG_0, .imm = i & 7 };
	insns[NR_ADDS + 1] = (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT };

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = NR_ADDS + 2;
	attr.license = (unsigned long)"GPL";
	strncpy(attr.prog_name, name, sizeof(attr.prog_name) - 1);
	int fd = (int)sys_bpf(BPF_PROG_LOAD, &attr);
	if (fd < 0)
		fprintf(stderr, "bpf_prog: BPF_PROG_LOAD: %s\n", strerror(errno));
	return fd;
}

static int show(int fd)
{
	struct bpf_prog_info info;
	union bpf_attr attr;

	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = (unsigned)fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (unsigned long)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr) < 0) {
		fprintf(stderr, "bpf_prog: BPF_OBJ_GET_INFO_BY_FD: %s\n", strerror(errno));
		return -1;
	}
	printf("%u ", info.id);
	for (int i = 0; i < BPF_TAG_SIZE; i++)
		printf("%02x", info.tag[i]);
	printf("\n");
	fflush(stdout);
	return 0;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int run(int fd, double ms)
{
	unsigned char pkt[64] = { 0 };
	union bpf_attr attr;
	double end = now_ms() + ms;

	while (now_ms() < end) {
		memset(&attr, 0, sizeof(attr));
		attr.test.prog_fd = (unsigned)fd;
		attr.test.data_in = (unsigned long)pkt;
		attr.test.data_size_in = sizeof(pkt);
		attr.test.repeat = 1000;
		if (sys_bpf(BPF_PROG_TEST_RUN, &attr) < 0) {
			fprintf(stderr, "bpf_prog: BPF_PROG_TEST_RUN: %s\n", strerror(errno));
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[2], "hold") && (strcmp(argv[2], "run") || argc < 4))) {
		fprintf(stderr, "usage: bpf_prog NAME hold | NAME run MS\n");
		return 2;
	}
	int fd = load(argv[1]);
	if (fd < 0)
		return errno == EPERM || errno == ENOSYS ? 77 : 1;
	if (show(fd) < 0)
		return 1;
	if (!strcmp(argv[2], "run"))
		return run(fd, atof(argv[3])) < 0;
	char c;
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
