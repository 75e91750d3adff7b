/*
 * The build-id cache step of a recording: perf record adds the binaries
 * it recorded to perf's build-id cache by default (-N and -B do not); here
 * the drainer hands each DSO to the cache worker as its MMAP first goes by.
 */
#include <limits.h>
#include <string.h>
#include "base/log.h"
#include "config/opts.h"
#include "engine/bid_worker.h"
#include "engine/engine_priv.h"
#include "probe/buildid_cache.h"

static void on_new_dso(void *arg, const char *name)
{
	bid_worker_push(arg, name);
}

void cache_step_begin(struct engine *e)
{
	char dir[PATH_MAX];
	int r;

	if (e->o->no_buildid_cache || e->o->no_buildid)
		return;
	r = buildid_cache_dir(dir, sizeof(dir));
	if (r == 0)
		r = bid_worker_start(&e->bidc, dir);
	if (r < 0) {
		pr_warn("build-id cache: cannot start filling it (%s); perf report needs the "
			"recorded binaries unchanged", strerror(-r));
		return;
	}
	e->dsos.on_new = on_new_dso;
	e->dsos.on_new_arg = e->bidc;
}

void cache_step_end(struct engine *e, int64_t deadline_ns)
{
	struct bid_worker_report r;
	char dir[PATH_MAX] = "";

	if (!e->bidc)
		return;
	e->dsos.on_new = NULL;
	bid_worker_finish(e->bidc, deadline_ns, &r);
	e->bidc = NULL;
	if (!deadline_ns)
		return; /* a run that failed says why elsewhere */
	buildid_cache_dir(dir, sizeof(dir));
	if (r.not_done)
		pr_info("build-id cache: %u of %u binaries not added to %s in time (perfsink "
			"waits at most %d ms at the end; -N turns the cache off)",
			r.not_done, r.seen, dir, CACHE_WAIT_MS);
	if (r.failed)
		pr_info("build-id cache: %u binaries could not be linked or copied into %s",
			r.failed, dir);
	pr_debug("build-id cache %s: %u binaries, %u added, %u there already, %u without a build-id",
		 dir, r.seen, r.added, r.present, r.no_id);
}
