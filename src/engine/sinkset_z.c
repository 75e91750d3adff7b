/*
 * The sink set's compression stages (sink ABI 1.9, COMPRESSED INPUT in
 * sink.h): instances that asked for the same (level, chunk) read from one
 * stage, so their bytes are compressed once; the engine thread hands each
 * stage's output on, in stream order, as it is done (at every write and
 * every pass of the record loop) and all of it before any barrier.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/log.h"
#include "engine/pool.h"
#include "engine/sinkset.h"
#include "engine/zgroup.h"
#include "engine/zstage.h"

#define ZSTD_LEVEL_MAX 22

int sinkset_host_want_compressed(const struct perfsink_instance *inst,
				 const struct perfsink_zwant *w)
{
	struct sink_inst *si = inst ? inst->host_priv : NULL;

	if (!si || !w)
		return -EINVAL;
#ifndef HAVE_ZSTD
	return -ENOTSUP;
#endif
	if (w->level < 1 || w->level > ZSTD_LEVEL_MAX)
		return -EINVAL;
	if (w->chunk && (w->chunk < 4096 || w->chunk > PERFSINK_Z_CHUNK))
		return -EINVAL;
	si->zwant = (struct zwant){ w->level, w->chunk ? w->chunk : PERFSINK_Z_CHUNK, w->threads };
	return 0;
}

int sinkset_z_start(struct sinkset *ss)
{
	struct zwant *w;
	int *group_of;
	int r = 0;

	if (ss->stages_made)
		return 0;
	ss->stages_made = true;
	w = calloc(ss->n ? ss->n : 1, sizeof(*w));
	group_of = calloc(ss->n ? ss->n : 1, sizeof(*group_of));
	ss->groups = calloc(ss->n ? ss->n : 1, sizeof(*ss->groups));
	ss->stages = calloc(ss->n ? ss->n : 1, sizeof(*ss->stages));
	if (!w || !group_of || !ss->groups || !ss->stages) {
		r = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < ss->n; i++)
		w[i] = ss->v[i].zwant;
	unsigned ng = zgroup_assign(w, ss->n, group_of, ss->groups);
	for (unsigned g = 0; g < ng && !r; g++) {
		const struct zgroup *gr = &ss->groups[g];
		r = zstage_create(gr->level, gr->chunk, gr->threads, &ss->stages[g]);
		if (r == 0)
			ss->nr_stages++;
	}
	if (r < 0)
		pr_err("cannot start the compression threads: %s", strerror(-r));
	for (unsigned i = 0; i < ss->n; i++)
		ss->v[i].zgroup = group_of[i];
out:
	free(w);
	free(group_of);
	return r;
}

/* Hand b, stage g's output, to the instances that read from g; drop it. */
static void hand_on(struct sinkset *ss, unsigned g, struct psbuf *b)
{
	for (unsigned i = 0; i < ss->n; i++)
		if (ss->v[i].zgroup == (int)g)
			sinkset_write_one(ss, &ss->v[i], &b->pub, b->samples);
	psbuf_put(&b->pub);
}

static void deliver(struct sinkset *ss, unsigned g, bool wait)
{
	struct psbuf *b;

	while ((b = zstage_pop(ss->stages[g], wait)))
		hand_on(ss, g, b);
}

void sinkset_z_write(struct sinkset *ss, struct perfsink_buf *buf, uint32_t samples)
{
	for (unsigned g = 0; g < ss->nr_stages; g++) {
		int r = zstage_push(ss->stages[g], psbuf_of(buf));
		for (unsigned i = 0; r < 0 && i < ss->n; i++)
			if (ss->v[i].zgroup == (int)g) {
				sinkset_fail(ss, &ss->v[i], r);
				sinkset_not_written(&ss->v[i], buf, samples);
			}
		deliver(ss, g, false);
	}
}

void sinkset_z_poll(struct sinkset *ss)
{
	for (unsigned g = 0; g < ss->nr_stages; g++)
		deliver(ss, g, false);
}

void sinkset_z_flush(struct sinkset *ss)
{
	for (unsigned g = 0; g < ss->nr_stages; g++)
		deliver(ss, g, true);
}

/* At -v: one line per stage, what it took and made, for how many instances. */
static void stage_say(const struct sinkset *ss, unsigned g)
{
	struct zstage_stats st;

	zstage_stats(ss->stages[g], &st);
	pr_debug("compression stage: level %u, %u sink%s, %u thread%s: %llu bytes in "
		"(%llu buffers), %llu ring bytes compressed once to %llu",
		ss->groups[g].level, ss->groups[g].nr_sinks, ss->groups[g].nr_sinks == 1 ? "" : "s",
		ss->groups[g].threads, ss->groups[g].threads == 1 ? "" : "s",
		(unsigned long long)st.bytes_in, (unsigned long long)st.buffers,
		(unsigned long long)st.comp_in, (unsigned long long)st.comp_out);
}

void sinkset_z_end(struct sinkset *ss)
{
	for (unsigned g = 0; g < ss->nr_stages; g++) {
		struct psbuf *b;

		stage_say(ss, g);
		/* Nothing is left after the last barrier; an aborted run may leave some. */
		while ((b = zstage_pop(ss->stages[g], true))) {
			for (unsigned i = 0; i < ss->n; i++)
				if (ss->v[i].zgroup == (int)g)
					sinkset_not_written(&ss->v[i], &b->pub, b->samples);
			psbuf_put(&b->pub);
		}
		zstage_destroy(ss->stages[g]);
	}
	free(ss->stages);
	free(ss->groups);
	ss->stages = NULL;
	ss->groups = NULL;
	ss->nr_stages = 0;
}
