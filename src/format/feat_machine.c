/*
 * NUMA_TOPOLOGY, PMU_MAPPINGS, CACHE, MEM_TOPOLOGY, PMU_CAPS and
 * CPU_PMU_CAPS payloads in perf 6.1's encoding (tools/perf/util/header.c:
 * write_numa_topology, write_pmu_mappings, write_cache, write_mem_topology,
 * write_pmu_caps, write_cpu_pmu_caps).  Pure: the facts come from
 * format/machine.h, read by probe/machine.c.
 */
#include <string.h>

#include "format/feat_priv.h"

/* u32 nr; per node: u32 node, u64 MemTotal kB, u64 MemFree kB, string cpus. */
void feat_numa_write(struct bytes *b, const struct ps_machine *m)
{
	bytes_u32(b, m->nr_numa);
	for (uint32_t i = 0; i < m->nr_numa; i++) {
		const struct ps_numa_node *n = &m->numa[i];
		bytes_u32(b, n->node);
		bytes_u64(b, n->mem_total_kb);
		bytes_u64(b, n->mem_free_kb);
		bytes_perf_string(b, n->cpus ? n->cpus : "");
	}
}

/* u32 nr; per PMU: u32 type, string name (every PMU, "cpu" included). */
void feat_pmu_mappings_write(struct bytes *b, const struct ps_machine *m)
{
	bytes_u32(b, m->nr_pmus);
	for (uint32_t i = 0; i < m->nr_pmus; i++) {
		bytes_u32(b, m->pmus[i].type);
		bytes_perf_string(b, m->pmus[i].name);
	}
}

/* u32 version 1, u32 nr; per cache: u32 level, line size, sets, ways; strings type, size, map. */
void feat_cache_write(struct bytes *b, const struct ps_machine *m)
{
	bytes_u32(b, 1);
	bytes_u32(b, m->nr_caches);
	for (uint32_t i = 0; i < m->nr_caches; i++) {
		const struct ps_cache *c = &m->caches[i];
		bytes_u32(b, c->level);
		bytes_u32(b, c->line_size);
		bytes_u32(b, c->sets);
		bytes_u32(b, c->ways);
		bytes_perf_string(b, c->type);
		bytes_perf_string(b, c->size);
		bytes_perf_string(b, c->map);
	}
}

/*
 * u64 version 1, u64 block size, u64 nr; per node: u64 node, u64 size (in
 * blocks), then the block bitmap as perf's do_write_bitmap: u64 nr bits and
 * the u64 words.
 */
void feat_mem_topology_write(struct bytes *b, const struct ps_machine *m)
{
	bytes_u64(b, 1);
	bytes_u64(b, m->mem_block_size);
	bytes_u64(b, m->nr_mem_nodes);
	for (uint32_t i = 0; i < m->nr_mem_nodes; i++) {
		const struct ps_mem_node *n = &m->mem_nodes[i];
		bytes_u64(b, n->node);
		bytes_u64(b, n->nr_bits);
		bytes_u64(b, n->nr_bits);
		for (uint64_t w = 0; w < (n->nr_bits + 63) / 64; w++)
			bytes_u64(b, n->bits[w]);
	}
}

static bool is_cpu_pmu(const struct ps_pmu *p)
{
	return !strcmp(p->name, "cpu");
}

/* u32 nr caps, (name, value) string pairs, and the PMU's name when with_name. */
static void pmu_caps(struct bytes *b, const struct ps_pmu *p, bool with_name)
{
	bytes_u32(b, p->nr_caps);
	for (uint32_t c = 0; c < 2 * p->nr_caps; c++)
		bytes_perf_string(b, p->caps[c]);
	if (with_name)
		bytes_perf_string(b, p->name);
}

/* u32 nr PMUs with caps ("cpu" aside: CPU_PMU_CAPS has it), then each one's caps and name. */
void feat_pmu_caps_write(struct bytes *b, const struct ps_machine *m)
{
	uint32_t nr = 0;
	for (uint32_t i = 0; i < m->nr_pmus; i++)
		nr += !is_cpu_pmu(&m->pmus[i]) && m->pmus[i].nr_caps;
	bytes_u32(b, nr);
	for (uint32_t i = 0; i < m->nr_pmus; i++)
		if (!is_cpu_pmu(&m->pmus[i]) && m->pmus[i].nr_caps)
			pmu_caps(b, &m->pmus[i], true);
}

const struct ps_pmu *feat_cpu_pmu(const struct ps_machine *m)
{
	for (uint32_t i = 0; i < m->nr_pmus; i++)
		if (is_cpu_pmu(&m->pmus[i]))
			return &m->pmus[i];
	return NULL;
}

void feat_cpu_pmu_caps_write(struct bytes *b, const struct ps_pmu *cpu)
{
	pmu_caps(b, cpu, false);
}
