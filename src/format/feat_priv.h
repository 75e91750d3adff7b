/*
 * Feature payload writers kept outside perf_features.c (one file per
 * family), for its table only.  Each appends perf 6.1's encoding of plain
 * data to b; errors are b->err (-ENOMEM).
 */
#ifndef PS_FEAT_PRIV_H
#define PS_FEAT_PRIV_H
#include <stdbool.h>
#include "base/bytes.h"
#include "format/bpf_info.h"
#include "format/machine.h"

/* feat_machine.c */
void feat_numa_write(struct bytes *b, const struct ps_machine *m);
void feat_pmu_mappings_write(struct bytes *b, const struct ps_machine *m);
void feat_cache_write(struct bytes *b, const struct ps_machine *m);
void feat_mem_topology_write(struct bytes *b, const struct ps_machine *m);
void feat_pmu_caps_write(struct bytes *b, const struct ps_machine *m);
/* The "cpu" PMU, whose caps go in CPU_PMU_CAPS; NULL when there is none. */
const struct ps_pmu *feat_cpu_pmu(const struct ps_machine *m);
void feat_cpu_pmu_caps_write(struct bytes *b, const struct ps_pmu *cpu);

/* feat_bpf.c; info may be NULL (no programs: count 0, as perf writes). */
void feat_bpf_prog_info_write(struct bytes *b, const struct ps_bpf_info *info);
void feat_bpf_btf_write(struct bytes *b, const struct ps_bpf_info *info);

#endif
