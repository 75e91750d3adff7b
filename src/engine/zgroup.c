/* zgroup: see zgroup.h. */
#include "engine/zgroup.h"

unsigned zgroup_assign(const struct zwant *w, unsigned n, int *group_of, struct zgroup *out)
{
	unsigned ng = 0;

	for (unsigned i = 0; i < n; i++) {
		unsigned g;

		group_of[i] = -1;
		if (!w[i].level)
			continue;
		for (g = 0; g < ng; g++)
			if (out[g].level == w[i].level && out[g].chunk == w[i].chunk)
				break;
		if (g == ng)
			out[ng++] = (struct zgroup){ w[i].level, w[i].chunk, 1, 0 };
		if (w[i].threads > out[g].threads)
			out[g].threads = w[i].threads;
		out[g].nr_sinks++;
		group_of[i] = (int)g;
	}
	return ng;
}
