/*
 * Whether a plugin file may be loaded into a recorder that runs as root:
 * the file and every directory above it (its real path, up to /) must be
 * owned by root or by the effective user; the file must not be writable by
 * others or by a group other than root's (gid 0), nor any directory, except
 * a root-owned sticky directory such as /tmp, below which others cannot
 * rename or replace what we own.  Root's group is root: a tree root built
 * with umask 002 (directories and plugins 0775, group root) is trusted.
 */
#ifndef PS_PLUGIN_TRUST_H
#define PS_PLUGIN_TRUST_H
#include <stddef.h>

/*
 * Walk path's real path from / with openat(O_NOFOLLOW), checking each
 * component as it is opened.  Returns an fd open on the file (O_RDONLY,
 * close-on-exec: dlopen it as /proc/self/fd/N so that the file loaded is
 * the file checked), or with one line "PATH: ..." in err:
 * -ENOENT no such file, -EINVAL not a regular file, -EPERM untrusted
 * (the line names the offending file or directory and why), another
 * negative errno when a component cannot be opened.
 */
int plugin_trust_open(const char *path, char *err, size_t errlen);

#endif
