/*
 * perf's build-id cache (~/.debug): what perf record adds by default so
 * that perf report still finds the symbols of a binary after it is rebuilt
 * and perf archive can pack them.  The layout of perf 6.1
 * (tools/perf/util/build-id.c, build_id_cache__add), under DIR:
 *
 *   <path>/<build-id>/elf                 hard link to the file, else a copy
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
 * (the file may change while it is copied).
 *
 * Unlike perf 6.1, which runs as root among users it does not trust: the
 * cache is refused unless every directory from / to it belongs to root or
 * the effective uid (HOME may be another user's, who could plant links in
 * it), and every entry is made through directory descriptors one
 * component at a time without following a link (the kit's safe paths,
 * PERFSINK_KIT_DIR_OWN), new directories 0700 (perf: 0755); the kallsyms
 * copy is 0600 (perf: 0755, with the kernel's addresses root sees); a
 * file is filed under the name its process mapped, never under the
 * realpath of that name now, and only from the fd opened through the
 * mapping (probe/map_file.h).  Thread-safe, no state: any thread.
 */
#ifndef PS_BUILDID_CACHE_H
#define PS_BUILDID_CACHE_H
#include <stddef.h>
#include <stdint.h>

/* The cache directory perf uses: perfsink_kit_buildid_cache_dir() (<perfsink/kit.h>). */

/*
 * Open the cache at dir for filling (made 0700 where missing), every
 * directory from / checked as above.  An O_PATH directory fd (the
 * caller closes it), or -errno with one line in why: the cache is not
 * used then.
 */
int buildid_cache_open(const char *dir, char *why, size_t n);

/*
 * Add "[kernel.kallsyms]" (a copy of /proc/kallsyms, 0600) or "[vdso]" to
 * the cache open as dirfd.  Returns 1 when its file was added, 0 when the
 * cache had it already, the error reading its build-id, -EINVAL for any
 * other name (a file is added from its fd only), or a negative errno from
 * creating the entry.
 */
int buildid_cache_add(int dirfd, const char *name);

/*
 * Add the file open as fd (not closed; read with pread only) as the DSO
 * name: the file a process mapped, opened through its mapping, under the
 * name that process saw (absolute, no "." or "..", taken as it is: in a
 * container the host's realpath of it means nothing, and on the host it
 * may lead elsewhere by now).  Its build-id is read from fd and must be
 * want[0..want_len) (what the recording says it mapped; want_len 0: not
 * checked), and a copy must still have it when complete: else -ESTALE and
 * nothing is stored.  Returns 1 added, 0 there already, -ENODATA (or the
 * error reading the build-id) when it has none, -EINVAL for a bad name, or
 * a negative errno from creating the entry.
 */
int buildid_cache_add_fd(int dirfd, const char *name, int fd, const uint8_t *want, size_t want_len);

#endif
