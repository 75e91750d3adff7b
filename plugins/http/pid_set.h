#ifndef HTTP_PID_SET_H
#define HTTP_PID_SET_H
#include <stddef.h>
#include <stdint.h>

/*
 * The pids of the processes in perf records (COMM and FORK records), added
 * to a set one record at a time (pid_set_record, a step of the kit's
 * perfsink_kit_rec_next walk).
 * Engine thread.  seen (NULL: none) is called with a pid the set did not
 * have, and with the pid of every COMM record (an exec: a process may have
 * changed its namespaces or root meanwhile).
 */
struct pid_set {
	int32_t *v;
	size_t n, cap;
};
/* One record rec of that type and size: its pid if it is a COMM or FORK. */
void pid_set_record(struct pid_set *p, const uint8_t *rec, uint32_t type, uint16_t size,
		    void (*seen)(void *arg, int32_t pid), void *arg);
/* Add pid (> 0): 1 when it was not there, 0 when it was (or no memory). */
int pid_set_add(struct pid_set *p, int32_t pid);
void pid_set_free(struct pid_set *p);

#endif
