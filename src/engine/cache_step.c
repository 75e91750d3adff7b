/* The build-id cache step: see cache_step.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "base/log.h"
#include "config/opts.h"
#include "engine/bid_worker.h"
#include "engine/cache_step.h"
#include "probe/buildid_cache.h"
#include "probe/dso_set.h"
#include <perfsink/kit.h>

static void on_new_dso(void *arg, const struct dso_seen *seen)
{
	bid_worker_push(arg, seen);
}

struct bid_worker *cache_step_begin(const struct record_opts *o, struct dso_set *dsos)
{
	struct bid_worker *w = NULL;
	char cache_dir[PATH_MAX], note[PATH_MAX + 128], why[PATH_MAX + 256] = "";
	int r, fd;

	if (o->no_buildid_cache || o->no_buildid)
		return NULL;
	r = perfsink_kit_buildid_cache_dir_note(cache_dir, sizeof(cache_dir), note, sizeof(note));
	if (note[0])
		pr_warn("build-id cache: %s", note);
	if (r == 0 && (fd = buildid_cache_open(cache_dir, why, sizeof(why))) < 0)
		r = fd;
	if (r == 0)
		r = bid_worker_start(&w, fd, cache_dir);
	if (r < 0) {
		/* Refused (a link, another user's directory) is news; a HOME that
		 * cannot hold it (none, read-only) is said as perf would not. */
		log_msg(r == -EPERM || r == -ELOOP ? LOG_WARN : LOG_INFO, NULL,
			"build-id cache: not filled this run (%s); perf report needs the recorded "
			"binaries unchanged", why[0] ? why : strerror(-r));
		return NULL;
	}
	dsos->on_new = on_new_dso;
	dsos->on_new_arg = w;
	return w;
}

void cache_step_settle(struct bid_worker *w, int64_t deadline_ns)
{
	if (w)
		bid_worker_settle(w, deadline_ns);
}

void cache_step_end(struct bid_worker *w, struct dso_set *dsos, int64_t deadline_ns)
{
	struct bid_worker_report r;
	char dir[PATH_MAX];

	if (!w)
		return;
	snprintf(dir, sizeof(dir), "%s", bid_worker_dir(w));
	dsos->on_new = NULL;
	bid_worker_finish(w, deadline_ns, &r);
	if (!deadline_ns)
		return; /* a run that failed says why elsewhere */
	if (r.not_done)
		pr_info("build-id cache: %u of %u binaries not added to %s in time (perfsink "
			"waits at most %d ms at the end; -N turns the cache off)",
			r.not_done, r.seen, dir, CACHE_WAIT_MS);
	if (r.changed)
		pr_info("build-id cache: %u binaries changed since they were mapped (another build-id "
			"or another file): not added to %s", r.changed, dir);
	if (r.failed)
		pr_info("build-id cache: %u binaries could not be linked or copied into %s",
			r.failed, dir);
	pr_debug("build-id cache %s: %u binaries, %u added, %u there already, %u without a build-id",
		 dir, r.seen, r.added, r.present, r.no_id);
}
