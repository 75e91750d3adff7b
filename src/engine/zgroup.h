/*
 * Which compression stage each sink instance reads from: instances that
 * asked for the same (level, chunk) share one, so their bytes are
 * compressed once (sink ABI 1.9, COMPRESSED INPUT).  Pure: no allocation,
 * any thread.
 */
#ifndef PS_ZGROUP_H
#define PS_ZGROUP_H
#include <stdint.h>

/* One instance's request; level 0: it asked for nothing (raw buffers). */
struct zwant {
	uint32_t level, chunk, threads;
};

/* One distinct (level, chunk): a stage, with the workers it may use. */
struct zgroup {
	uint32_t level, chunk;
	uint32_t threads; /* max over its instances, at least 1 */
	unsigned nr_sinks;
};

/*
 * Group the n requests w[]: group_of[i] = the index of instance i's group
 * in out[], or -1 when it asked for nothing; groups in the order of their
 * first instance.  out needs room for n.  Returns the number of groups.
 */
unsigned zgroup_assign(const struct zwant *w, unsigned n, int *group_of, struct zgroup *out);

#endif
