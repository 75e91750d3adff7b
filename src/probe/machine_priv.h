/* probe/machine.c's parts (private to probe/). */
#ifndef PS_PROBE_MACHINE_PRIV_H
#define PS_PROBE_MACHINE_PRIV_H
#include "format/machine.h"

/*
 * machine_topo.c: NUMA nodes, caches, memory blocks; machine_pmus.c: PMUs.
 * Each fills its fields of m; what sysfs does not show stays empty.
 * 0 or -ENOMEM; machine_free releases what they filled, even on error.
 */
int machine_numa_read(struct ps_machine *m);
int machine_caches_read(struct ps_machine *m);
int machine_mem_read(struct ps_machine *m);
int machine_pmus_read(struct ps_machine *m);
void machine_topo_free(struct ps_machine *m);
void machine_pmus_free(struct ps_machine *m);

#endif
