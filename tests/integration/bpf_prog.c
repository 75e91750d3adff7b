/*
 * Test helper: loads a BPF socket filter named NAME through the raw bpf(2)
 * syscall (no libbpf), so tests have a BPF program whose JIT image the
 * kernel reports as a ksymbol "bpf_prog_<tag>_<NAME>".
 *   bpf_prog NAME hold [FUNC]
 *                          print "ID TAG BTF_ID" (BTF_ID 0: none) and keep the program loaded
 *                          until stdin reaches EOF; with FUNC, the program
 *                          has BTF naming its function FUNC (perf and the
 *                          kernel then name it bpf_prog_<tag>_<FUNC>)
 *   bpf_prog NAME run MS   print "ID TAG BTF_ID", then run it in the kernel
 *                          (BPF_PROG_TEST_RUN) for MS ms of wall time, so
 *                          kernel samples land inside it
 * Exit 0, or 1 with the reason on stderr (77 when bpf(2) is not allowed:
 * the tests skip then).
 */
#include <errno.h>
#include <linux/bpf.h>
#include <stdint.h>
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

/*
 * A BTF blob with three types: [1] int, [2] int (void), [3] static
 * function FUNC of type 2; strings "\0int\0FUNC\0".  Returns its fd.
 */
static int load_btf(const char *func)
{
	static uint8_t blob[256];
	uint32_t types[] = {
		1, 1u << 24, 4, (1u << 24) | 32,  /* INT "int", size 4, signed, 32 bits */
		0, 13u << 24, 1,                  /* FUNC_PROTO, returns [1], no args */
		5, 12u << 24, 2,                  /* FUNC FUNC, static, type [2] */
	};
	size_t flen = strlen(func) + 1;
	uint32_t tlen = sizeof(types), slen = (uint32_t)(5 + flen);
	uint32_t hdr[6] = { 0xeb9f | (1u << 16), 24, 0, tlen, tlen, slen };
	if (24 + tlen + slen > sizeof(blob))
		return -1;
	memcpy(blob, hdr, sizeof(hdr));
	memcpy(blob + 24, types, tlen);
	memcpy(blob + 24 + tlen, "\0int", 5);
	memcpy(blob + 24 + tlen + 5, func, flen);

	union bpf_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.btf = (unsigned long)blob;
	attr.btf_size = 24 + tlen + slen;
	int fd = (int)sys_bpf(BPF_BTF_LOAD, &attr);
	if (fd < 0)
		fprintf(stderr, "bpf_prog: BPF_BTF_LOAD: %s\n", strerror(errno));
	return fd;
}

static int load(const char *name, const char *func)
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
	struct bpf_func_info fi = { .insn_off = 0, .type_id = 3 };
	if (func) {
		int btf = load_btf(func);
		if (btf < 0)
			return -1;
		attr.prog_btf_fd = (unsigned)btf;
		attr.func_info = (unsigned long)&fi;
		attr.func_info_cnt = 1;
		attr.func_info_rec_size = sizeof(fi);
	}
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
	printf(" %u\n", info.btf_id);
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
		fprintf(stderr, "usage: bpf_prog NAME hold [FUNC] | NAME run MS\n");
		return 2;
	}
	int fd = load(argv[1], !strcmp(argv[2], "hold") && argc > 3 ? argv[3] : NULL);
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
