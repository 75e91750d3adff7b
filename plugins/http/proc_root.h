/*
 * Files of a recorded process as that process sees them: a process in
 * another mount namespace (a container) has its own /tmp, and under
 * another pid namespace its own pid, the one a JIT runtime puts in the
 * names it writes (/tmp/perf-NSPID.map, jit-NSPID.dump).  perf reads such
 * files through the process's namespaces (its nsinfo); the shipper reads
 * them through /proc/PID/root, never following a symbolic link, so a
 * link the container planted cannot make it read a file of the host.
 *
 * THREADS.  Any thread; no state.
 */
#ifndef HTTP_PROC_ROOT_H
#define HTTP_PROC_ROOT_H
#include <stddef.h>
#include <sys/types.h>

/*
 * The innermost pid of the "NSpid:" line of a /proc/PID/status text
 * (its last field), or of "Pid:" for a kernel without NSpid; -1 if none.
 */
int proc_status_nspid(const char *status);
/* The same for a live process; -errno when it is gone or unreadable. */
int proc_nspid(pid_t pid);
/*
 * 1 when pid is in another mount namespace than this process, 0 in the
 * same one, -errno when that cannot be told (the process is gone).
 */
int proc_other_mntns(pid_t pid);
/*
 * Open the regular file at the absolute path abs as pid sees it
 * (/proc/PID/root/abs), read-only: every component opened relative to the
 * one before with O_NOFOLLOW, "." and ".." refused (-EINVAL).  Returns the
 * fd (the caller closes it), or -errno (a symbolic link: -ELOOP as the
 * file, -ENOTDIR as a directory on the way; -EINVAL not a regular file).
 */
int proc_root_open(pid_t pid, const char *abs);
/*
 * The same from root, an fd of a directory (O_PATH will do) taken as "/":
 * a process's root held from when it was alive (held_roots.h).  root is
 * neither closed nor moved.
 */
int proc_root_open_at(int root, const char *abs);
/*
 * Open path read-only here (on the host) when it is a regular file, not
 * when its last component is a symbolic link: the names a recorded
 * process makes us read (/tmp/perf-PID.map, DIR/jit-PID.dump) are fixed
 * but for the directory, and a link there could point at any file root
 * may read.  fd or -errno (-ELOOP a link, -EINVAL not a regular file).
 */
int host_open(const char *path);
/*
 * The bytes of fd's file into a path perfsink_kit_file_read can take:
 * "/proc/self/fd/N" opens that very file again (n bytes of out, 32 are
 * enough).
 */
void proc_fd_path(int fd, char *out, size_t n);

#endif
