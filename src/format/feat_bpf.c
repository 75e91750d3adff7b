/*
 * BPF_PROG_INFO and BPF_BTF payloads in perf 6.1's encoding
 * (tools/perf/util/header.c: write_bpf_prog_info, write_bpf_btf).  Pure:
 * the programs come from format/bpf_info.h, read by probe/bpf_progs.c.
 */
#include "format/feat_priv.h"

/* u32 count, then each program's perf_bpil (already in file form). */
void feat_bpf_prog_info_write(struct bytes *b, const struct ps_bpf_info *info)
{
	uint32_t nr = info ? info->nr_progs : 0;
	bytes_u32(b, nr);
	for (uint32_t i = 0; i < nr; i++)
		bytes_add(b, info->progs[i].bpil, info->progs[i].len);
}

/* u32 count, then per BTF object: u32 id, u32 size, the raw bytes (unpadded). */
void feat_bpf_btf_write(struct bytes *b, const struct ps_bpf_info *info)
{
	uint32_t nr = info ? info->nr_btfs : 0;
	bytes_u32(b, nr);
	for (uint32_t i = 0; i < nr; i++) {
		bytes_u32(b, info->btfs[i].id);
		bytes_u32(b, info->btfs[i].size);
		bytes_add(b, info->btfs[i].data, info->btfs[i].size);
	}
}
