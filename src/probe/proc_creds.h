/*
 * Whether a recorded process could have read a file itself.  perfsink runs
 * as root: a file a process mapped (an execute-only binary, a file it got
 * by a setuid helper) is not one its user may read, and must not leave the
 * machine through root.  The kernel decides, with the process's filesystem
 * credentials put on the calling thread for one access check.
 */
#ifndef PS_PROC_CREDS_H
#define PS_PROC_CREDS_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define PROC_CREDS_GROUPS_MAX 256 /* more: the rest are left out (a stricter check) */

/* What /proc/PID/status says of a process's filesystem identity. */
struct proc_creds {
	uid_t fsuid;
	gid_t fsgid;
	size_t ngroups;
	gid_t groups[PROC_CREDS_GROUPS_MAX];
};

/*
 * Parse status text (/proc/PID/status): the fourth field of "Uid:" and
 * "Gid:" and the "Groups:" line.  0, or -EINVAL when a line is missing or
 * malformed.  Pure.
 */
int proc_creds_parse(const char *status, struct proc_creds *c);
/* Read and parse /proc/PID/status.  0, -ESRCH when the process is gone, -errno. */
int proc_creds_read(pid_t pid, struct proc_creds *c);
/*
 * 1 when a process with c could open the file open as fd for reading,
 * 0 when it could not, as the kernel answers (modes, ACLs, capabilities
 * its identity has): the calling thread takes c's groups, fsgid and fsuid
 * (per-thread credentials, raw system calls) for one faccessat2 on fd and
 * takes its own back before returning.  Run without euid 0 the recorder
 * can read no more than its user: 1 without asking.  -errno when the
 * credentials could not be taken (the file counts as unreadable).
 * Any thread; blocks no other.
 */
int proc_creds_can_read(const struct proc_creds *c, int fd);
/* 1 when any user could read the file open as fd (others may read it), else 0. */
int proc_creds_anyone_reads(int fd);

#endif
