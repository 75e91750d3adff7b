/*
 * What perf.data's header says of the machine (the HOSTNAME .. CPU_TOPOLOGY,
 * NUMA_TOPOLOGY, PMU_MAPPINGS, CACHE, MEM_TOPOLOGY, PMU_CAPS and CPU_PMU_CAPS
 * features and CMDLINE's binary): plain data that probe/machine.h reads once
 * per recording and perf_features.c turns into bytes.  A fact the system did
 * not report holds a neutral value ("unknown", 0, -1, an empty list), so a
 * feature is written whenever perf 6.1 would write it and the header bitmap
 * always matches the feature index.
 */
#ifndef PS_MACHINE_H
#define PS_MACHINE_H
#include <limits.h>
#include <stdint.h>

/* Distinct sysfs CPU lists ("0-3,8"), in the order the online CPUs gave them. */
struct ps_cpu_lists {
	char **v;
	uint32_t nr;
};

/* NUMA_TOPOLOGY: one online node (/sys/devices/system/node/nodeN). */
struct ps_numa_node {
	uint32_t node;
	uint64_t mem_total_kb, mem_free_kb; /* nodeN/meminfo MemTotal, MemFree */
	char *cpus;                         /* nodeN/cpulist, "" when unreadable */
};

/* CACHE: one distinct cache (cpuN/cache/indexI), as perf compares them. */
struct ps_cache {
	uint32_t level, line_size, sets, ways;
	char *type, *size, *map;            /* "Data", "32K", shared_cpu_list */
};

/* MEM_TOPOLOGY: the memory blocks (memoryB entries) of one node. */
struct ps_mem_node {
	uint64_t node;
	uint64_t nr_bits;                   /* highest block + 1 */
	uint64_t *bits;                     /* (nr_bits + 63) / 64 words */
};

/* PMU_MAPPINGS / PMU_CAPS: one PMU of /sys/bus/event_source/devices. */
struct ps_pmu {
	uint32_t type;
	char *name;
	uint32_t nr_caps;
	char **caps;                        /* nr_caps (name, value) pairs: caps/<name> */
};

struct ps_machine {
	char hostname[65], osrelease[65], arch[65]; /* uname(2) */
	char cpudesc[256];           /* /proc/cpuinfo model name */
	char cpuid[64];              /* x86 "vendor,family,model,stepping"; "" elsewhere */
	char exe[PATH_MAX];          /* perfsink's binary, for CMDLINE */
	uint32_t nr_cpus_avail;      /* highest present CPU + 1 */
	uint32_t nr_cpus_online;
	uint64_t total_mem_kb;
	/* CPU_TOPOLOGY */
	struct ps_cpu_lists packages, cores, dies;
	int32_t *core_id, *socket_id; /* nr_cpus_avail each, -1 unknown */
	int32_t *die_id;             /* nr_cpus_avail, or NULL: the kernel reports no dies */
	/* NUMA_TOPOLOGY, in /sys/devices/system/node/online order */
	struct ps_numa_node *numa;
	uint32_t nr_numa;
	/* CACHE, sorted by level (stable: CPU order within a level) */
	struct ps_cache *caches;
	uint32_t nr_caches;
	/* MEM_TOPOLOGY, sorted by node; mem_block_size 0: no memory blocks in
	 * sysfs, and perf 6.1 writes no MEM_TOPOLOGY then */
	uint64_t mem_block_size;
	struct ps_mem_node *mem_nodes;
	uint32_t nr_mem_nodes;
	/* PMU_MAPPINGS and PMU_CAPS, in sysfs directory order as perf scans them */
	struct ps_pmu *pmus;
	uint32_t nr_pmus;
};

#endif
