/* Reading the machine facts of format/machine.h from uname, /proc and sysfs. */
#ifndef PS_PROBE_MACHINE_H
#define PS_PROBE_MACHINE_H
#include "format/machine.h"

/*
 * Fill m; what the system does not report gets the neutral value.  0 or
 * -ENOMEM (m is then empty; machine_free is still allowed).  Any thread.
 */
int machine_read(struct ps_machine *m);
void machine_free(struct ps_machine *m);
/* Set the NUMA nodes' free memory, the one fact that changes by the second, to 0 (unknown). */
void machine_forget_free_memory(struct ps_machine *m);

#endif
