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
 * cut short (the process ended) leaves nothing behind, and a copy of an
 * ELF file is linked in only when it has the build-id it is filed under
 * (the file may change while it is copied).  Thread-safe, no
 * state: any thread.
 */
#ifndef PS_BUILDID_CACHE_H
#define PS_BUILDID_CACHE_H
#include <stddef.h>
#include <stdint.h>
#include "base/buildid_dir.h"

/* buildid_cache_dir(): the cache directory perf uses, in base/buildid_dir.h. */

/*
 * Add the DSO recorded as name (an absolute path, "[kernel.kallsyms]" or
 * "[vdso]") to the cache at dir.  Returns 1 when its file was added, 0 when
 * the cache had it already, -ENODATA (or the error reading the build-id)
 * when it has no build-id to file it under, or a negative errno from
 * creating the entry.
 */
int buildid_cache_add(const char *dir, const char *name);

/*
 * Add the file open as fd (not closed; read with pread only) as the DSO
 * name: the file a process in another mount namespace (a container)
 * mapped, opened through /proc/PID/root, under the name that process saw
 * (absolute, no "..", taken as it is: the host's realpath of it means
 * nothing).  Its build-id is read from fd and must be want[0..want_len)
 * (what the recording says it mapped; want_len 0: not checked), and a
 * copy must still have it when complete: else -ESTALE and nothing is
 * stored.  Otherwise the returns of buildid_cache_add; -EINVAL for a
 * relative name or one with "..".
 */
int buildid_cache_add_fd(const char *dir, const char *name, int fd, const uint8_t *want,
			 size_t want_len);

#endif
