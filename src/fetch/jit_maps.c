/* A session's JIT maps into /tmp; see jit_maps.h. */
#include "fetch/jit_maps.h"
#include "fetch/jit_dumps.h"
#include "fetch/jit_file.h"
#include "fetch/collector.h"
#include "fetch/fetch_output.h"
#include "base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int jit_map_name_pid(const char *name)
{
	return jit_name_pid(name, "perf-", ".map");
}

/* One map of the session into dir; -EINTR ends the walk. */
static int map_place(struct collector *c, const char *rel_dir, const char *name, int pid,
		     const char *dir, struct jit_limits *lim, struct jit_maps_result *res)
{
	char rel[1200], leaf[64], path[4200];
	uint64_t len;

	snprintf(rel, sizeof(rel), "%s%s", rel_dir, name);
	snprintf(leaf, sizeof(leaf), "perf-%d.map", pid);
	snprintf(path, sizeof(path), "%s/%s", dir, leaf);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = dfd < 0 ? -errno : jit_file_fetch(c, rel, dfd, leaf, lim, &len);
	if (dfd >= 0)
		close(dfd);
	if (rc == 0) {
		res->placed++;
		res->bytes += len;
		pr_debug("jit map %s placed as %s (%" PRIu64 " bytes)", rel, path, len);
	} else if (rc == -EEXIST) {
		res->present++;
		pr_warn("%s is already there: left as it is (a process of this machine has pid %d, or "
			"an earlier fetch placed it); perf report uses whatever it holds", path, pid);
	} else if (rc == -EDQUOT) {
		res->capped++;
	} else {
		res->failed++;
		jit_fetch_error(c, "jit map", rel, path, rc);
	}
	return rc == -EINTR ? rc : 0;
}

int jit_maps_place(struct collector *c, const char *host, const char *session, const char *dir,
		   const char *home, struct jit_limits *lim, struct jit_maps_result *res,
		   struct jit_dumps_result *dumps)
{
	struct perfsink_coll_list l = { 0 };
	char rel_dir[1100];

	memset(res, 0, sizeof(*res));
	memset(dumps, 0, sizeof(*dumps));
	if (!lim->files)
		lim->files = JIT_FILES_DEFAULT;
	if (!lim->bytes)
		lim->bytes = JIT_BYTES_DEFAULT;
	snprintf(rel_dir, sizeof(rel_dir), "%s/%s/jit/", host, session);
	int rc = collector_list(c, rel_dir, &l);
	if (rc == -ENOENT)
		return 0;
	for (size_t i = 0; rc == 0 && i < l.nr; i++) {
		if (l.e[i].is_dir)
			continue; /* not something the sink writes there */
		int pid = jit_map_name_pid(l.e[i].name);
		if (pid < 0) {
			rc = jit_dump_place(c, rel_dir, l.e[i].name, home, lim, dumps);
			continue;
		}
		res->maps++;
		rc = map_place(c, rel_dir, l.e[i].name, pid, dir, lim, res);
	}
	perfsink_coll_list_free(&l);
	return rc;
}
