/*
 * perf's build-id cache (~/.debug): what perf record adds by default so
 * that perf report still finds the symbols of a binary after it is rebuilt
 * and perf archive can pack them.  The layout of perf 6.1
 * (tools/perf/util/build-id.c, build_id_cache__add), under DIR:
 *
 *   <realpath>/<build-id>/elf             hard link to the file, else a copy
 *   [kernel.kallsyms]/<build-id>/kallsyms a copy of /proc/kallsyms
 *   [vdso]/<build-id>/vdso                the vDSO image
 *   <...>/<build-id>/debug                /usr/lib/debug/.build-id/xx/yyyy.debug,
 *                                         when that is installed
 *   .build-id/<xx>/<yyyy...>              symlink to ../../<...>/<build-id>
 *
 * Like perf: a file whose build-id cannot be read is skipped; a file that
 * cannot be linked or copied leaves its <build-id> directory without the
 * file and without the .build-id link, and is an error.  Copies are made
 * in an unnamed file that is linked into place once complete, so a copy
 * cut short (the process ended) leaves nothing behind.  Thread-safe, no
 * state: any thread.
 */
#ifndef PS_BUILDID_CACHE_H
#define PS_BUILDID_CACHE_H
#include <stddef.h>

/*
 * The cache directory perf uses: buildid.dir from perf's config files
 * ($PERF_CONFIG alone, else /etc/perfconfig then ~/.perfconfig, the last
 * one wins), else $HOME/.debug, or ".debug" when HOME is unset (as perf's
 * set_buildid_dir).  0, or -ENAMETOOLONG.
 */
int buildid_cache_dir(char *out, size_t len);

/*
 * Add the DSO recorded as name (an absolute path, "[kernel.kallsyms]" or
 * "[vdso]") to the cache at dir.  Returns 1 when its file was added, 0 when
 * the cache had it already, -ENODATA (or the error reading the build-id)
 * when it has no build-id to file it under, or a negative errno from
 * creating the entry.
 */
int buildid_cache_add(const char *dir, const char *name);

#endif
