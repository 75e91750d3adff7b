/*
 * What perf.data's header says of the machine (the HOSTNAME .. CPU_TOPOLOGY
 * features and CMDLINE's binary): plain data that probe/machine.h reads once
 * per recording and perf_features.c turns into bytes.  A fact the system did
 * not report holds a neutral value ("unknown", 0, -1), so a feature is always
 * written and the header bitmap always matches the feature index.
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
};

#endif
