/*
 * What perf.data's BPF_PROG_INFO and BPF_BTF features say of the BPF
 * programs loaded while recording: plain data that probe/bpf_progs.c reads
 * through bpf(2) and feat_bpf.c turns into bytes.  Both lists are sorted by
 * id, as perf 6.1 writes them (it keeps them in trees keyed by id).
 */
#ifndef PS_BPF_INFO_H
#define PS_BPF_INFO_H
#include <stddef.h>
#include <stdint.h>

/*
 * One program: perf 6.1's struct perf_bpil exactly as it goes in the file
 * (u32 info_len, u32 data_len, u64 arrays, struct bpf_prog_info of
 * info_len bytes, then data_len bytes of arrays whose pointers in info are
 * offsets into data).
 */
struct ps_bpf_prog {
	uint32_t id;
	uint8_t *bpil;
	size_t len;
};

/* One BTF object a program refers to: its raw bytes as the kernel gives them. */
struct ps_bpf_btf {
	uint32_t id;
	uint8_t *data;
	uint32_t size;
};

struct ps_bpf_info {
	struct ps_bpf_prog *progs;
	uint32_t nr_progs;
	struct ps_bpf_btf *btfs;
	uint32_t nr_btfs;
};

#endif
