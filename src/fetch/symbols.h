/*
 * Filling perf's build-id cache (~/.debug) from a collector's buildid/
 * tree, the debuginfod layout the http sink ships symbols into:
 *
 *     buildid/{build-id}/executable   the mapped file (for the kernel:
 *                                     a copy of /proc/kallsyms)
 *     buildid/{build-id}/debuginfo    its separate debug file, if any
 *
 * stored as perf 6.1 keeps them: {dir}/{path}/{build-id}/elf (kernel:
 * .../kallsyms, [vdso]: .../vdso), .../debug, and the link {dir}/.build-id/xx/yyyy ->
 * ../../{path}/{build-id}.  What the collector does not have is counted,
 * not an error: perf then falls back to the local files.
 */
#ifndef PS_FETCH_SYMBOLS_H
#define PS_FETCH_SYMBOLS_H
#include <stdint.h>
#include "base/bytes.h"

struct collector;

struct symbols_result {
	unsigned build_ids;   /* entries in the recording's BUILD_ID */
	unsigned found;       /* with at least the executable on the collector */
	unsigned cached;      /* already in dir with this build-id: not fetched */
	unsigned debuginfo;   /* separate debug files fetched */
	uint64_t bytes;       /* bytes downloaded */
	unsigned files;       /* files placed (executables, symbol tables, debuginfo) */
	unsigned refused;     /* not placed: the cache, or a directory in it, is refused */
	unsigned not_needed;  /* left out by the filter */
};

/*
 * Which entries to fetch: by the recording's own marks (marked: every
 * entry but those perfsink record marked DSO_MAPPED_ONLY), else those
 * with need(ctx, recorded name, build-id hex) != 0.
 */
struct symbols_filter {
	int (*need)(void *ctx, const char *name, const char *hex);
	void *ctx;
	int marked;
};

/*
 * Whether build_ids (the BUILD_ID payload) carries perfsink record's marks
 * of the files samples and their call chains fell in (DSO_HITS_CHAIN,
 * format/build_id_flags.h): recordings made before have none, or marks
 * of sample ips alone.
 */
int symbols_marked(const struct bytes *build_ids);

/*
 * For each entry of build_ids (perf's BUILD_ID feature payload) that want
 * needs (NULL: every one) fetch what the collector has into dir (the cache
 * root, e.g. $HOME/.debug).
 *
 * As perf record's cache is filled (probe/buildid_cache.h), but for a
 * collector's files: the cache is refused unless every directory from /
 * to it belongs to root or the effective uid (HOME may be another user's,
 * who could plant links in it); every entry is made through directory
 * descriptors one component at a time without following a link
 * (PERFSINK_KIT_DIR_MKDIR | PERFSINK_KIT_DIR_OWN, new directories 0700);
 * a file is downloaded into a new file with an unpredictable name
 * (O_CREAT|O_EXCL|O_NOFOLLOW) in the cache's root and linked into place
 * without replacing anything; the kernel's symbol table is 0600.
 *
 * 0 (res->refused counts entries under a refused directory: msg names the
 * first), or a negative errno: the cache itself refused (-EPERM, -ELOOP,
 * -ENOTDIR; every entry counted in res->refused) or not writable, a stop
 * (-EINTR); msg says why.
 */
int symbols_fill(struct collector *c, const struct bytes *build_ids, const char *dir,
		 const struct symbols_filter *want, struct symbols_result *res, char *msg, size_t msglen);

#endif
