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
};

/*
 * For each entry of build_ids (perf's BUILD_ID feature payload) fetch what
 * the collector has into dir (the cache root, e.g. $HOME/.debug).
 * 0, or a negative errno when dir cannot be written (msg says why).
 */
int symbols_fill(struct collector *c, const struct bytes *build_ids, const char *dir,
		 struct symbols_result *res, char *msg, size_t msglen);

#endif
