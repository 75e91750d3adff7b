#include <errno.h>
#include <linux/bpf.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "engine/evlist.h"
#include "engine/self_filter.h"

/* return (bpf_get_current_pid_tgid() >> 32) == tgid ? 0 (drop) : 1 (keep); */
static int prog_load(enum bpf_prog_type type, pid_t tgid)
{
	struct bpf_insn insn[] = {
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_get_current_pid_tgid },
		{ .code = BPF_ALU64 | BPF_RSH | BPF_K, .dst_reg = BPF_REG_0, .imm = 32 },
		{ .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = BPF_REG_0, .off = 2, .imm = tgid },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 1 },
		{ .code = BPF_JMP | BPF_EXIT },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr a;
	memset(&a, 0, sizeof(a));
	a.prog_type = type;
	a.insns = (uint64_t)(uintptr_t)insn;
	a.insn_cnt = sizeof(insn) / sizeof(insn[0]);
	a.license = (uint64_t)(uintptr_t)"GPL";
	int fd = (int)syscall(SYS_bpf, BPF_PROG_LOAD, &a, sizeof(a));
	return fd < 0 ? -errno : fd;
}

int self_filter_attach(const struct ps_evlist *evl, pid_t tgid)
{
	/* Tracepoints take a TRACEPOINT program, every other event a PERF_EVENT one. */
	int prog[2] = { -1, -1 }, n = 0, ret = 0;
	for (unsigned e = 0; e < evl->nr && ret >= 0; e++) {
		const struct ps_event *ev = &evl->ev[e];
		int tp = ev->attr.type == PERF_TYPE_TRACEPOINT;
		if (ev->tracking)
			continue; /* no samples of its own */
		if (prog[tp] < 0) {
			prog[tp] = prog_load(tp ? BPF_PROG_TYPE_TRACEPOINT : BPF_PROG_TYPE_PERF_EVENT, tgid);
			if (prog[tp] < 0) {
				ret = prog[tp];
				break;
			}
		}
		for (unsigned i = 0; ev->fds && i < evl->nr_cpus * evl->nr_threads; i++) {
			if (ev->fds[i] < 0)
				continue;
			/*
			 * A tracepoint keeps one program list for every perf event on
			 * it (all CPUs), and runs it before any of them gets the hit:
			 * one attach filters them all, and the same program attached
			 * again is EEXIST (a second -e of the same tracepoint).
			 */
			if (ioctl(ev->fds[i], PERF_EVENT_IOC_SET_BPF, prog[tp]) < 0 &&
			    !(tp && errno == EEXIST)) {
				ret = -errno;
				break;
			}
			n++;
			if (tp)
				break;
		}
	}
	/* Each event holds its own reference on the program. */
	for (int i = 0; i < 2; i++)
		if (prog[i] >= 0)
			close(prog[i]);
	return ret < 0 ? ret : n;
}
