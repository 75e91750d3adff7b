/* The set of pids seen in a stream's records; see pid_set.h. */
#include "pid_set.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

int pid_set_add(struct pid_set *p, int32_t pid)
{
	size_t i;

	if (pid <= 0)
		return 0;
	if ((p->n + 1) * 2 > p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 256;
		int32_t *v = calloc(cap, sizeof(*v));

		if (!v)
			return 0;
		for (i = 0; i < p->cap; i++)
			if (p->v[i]) {
				size_t h = (size_t)p->v[i] * 2654435761u & (cap - 1);

				while (v[h])
					h = (h + 1) & (cap - 1);
				v[h] = p->v[i];
			}
		free(p->v);
		p->v = v;
		p->cap = cap;
	}
	for (i = (size_t)pid * 2654435761u & (p->cap - 1); p->v[i]; i = (i + 1) & (p->cap - 1))
		if (p->v[i] == pid)
			return 0;
	p->v[i] = pid;
	p->n++;
	return 1;
}

void pid_set_record(struct pid_set *p, const uint8_t *rec, uint32_t type, uint16_t size,
		    void (*seen)(void *arg, int32_t pid), void *arg)
{
	int32_t pid;

	if ((type != PERF_RECORD_COMM && type != PERF_RECORD_FORK) || size < 12)
		return;
	memcpy(&pid, rec + 8, 4);
	if ((pid_set_add(p, pid) || type == PERF_RECORD_COMM) && seen && pid > 0)
		seen(arg, pid);
}

void pid_set_free(struct pid_set *p)
{
	free(p->v);
	memset(p, 0, sizeof(*p));
}
