/*
 * Sink instances opened outside a recording, one at a time and never
 * started (sinkset.h): `perfsink check` and `perfsink upload`.  The
 * instance has no set, so what it says through host->output is printed as
 * at the end of a run.
 */
#include <errno.h>
#include <stdbool.h>
#include "loader/bind.h"
#include "loader/plugin.h"
#include "engine/signals.h"
#include "engine/sinkset.h"

int sinkset_check(const struct bound_sinks *b)
{
	for (unsigned i = 0; i < b->nr_sinks; i++) {
		struct sink_inst si;
		int r;

		sink_inst_init(&si, &b->sinks[i]);
		r = sink_inst_open(&si);
		if (r == 0)
			sink_inst_close(&si, NULL);
		sink_inst_release(&si);
		if (r < 0)
			return r;
	}
	return 0;
}

/* One instance's spool sent: whether anything stays unsent or it failed. */
static bool upload_one(const struct sink_conf *c, uint64_t deadline_ms, bool *told)
{
	struct sink_inst si;
	bool failed = true;

	sink_inst_init(&si, c);
	/* Its own error line only: upload says nothing more of a sink that cannot open. */
	if (si.ops->open(&si.pub, &si.ctx) == 0) {
		si.opened = true;
		int sent = si.ops->upload(si.ctx, (int64_t)deadline_ms);
		*told |= sent == -EINTR;
		/* close() says whether the spool still holds anything (http: -EAGAIN). */
		failed = sink_inst_close(&si, NULL) < 0 || sent < 0;
	}
	sink_inst_release(&si);
	return failed;
}

void sinkset_upload(const struct bound_sinks *b, uint64_t deadline_ms,
		    struct sinkset_upload_result *res)
{
	*res = (struct sinkset_upload_result){ 0 };
	for (unsigned i = 0; i < b->nr_sinks && !atomic_load(&signals_stop_requested); i++) {
		if (!b->sinks[i].plugin->ops->upload)
			continue;
		res->spools++; /* it has a spool, even if it cannot open it */
		res->failed |= upload_one(&b->sinks[i], deadline_ms, &res->told);
	}
}
