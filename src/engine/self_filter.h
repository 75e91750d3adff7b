/*
 * Keep perfsink out of its own recording.  A system-wide recorder is itself
 * sampled by cpu-clock and, worse, traces its own write() calls with
 * syscall tracepoints, which feeds back into the data it must write.  A
 * tiny BPF program, attached to every event with PERF_EVENT_IOC_SET_BPF,
 * drops the records of one process (every thread of it, including the
 * threads glibc creates for POSIX AIO at any time later).
 *
 * Caveat of the kernel, documented for users: a BPF program on a
 * tracepoint event is attached to the tracepoint, so while perfsink runs
 * other perf users of that tracepoint do not see perfsink's own events
 * either.  Software events (cpu-clock, ...) are filtered per event.
 */
#ifndef PS_SELF_FILTER_H
#define PS_SELF_FILTER_H
#include <sys/types.h>

struct ps_evlist;

/*
 * Attach the filter for process tgid to every opened fd of evl (to one fd
 * of each tracepoint event, which filters all of them).  Returns the
 * number of attaches, or a negative errno (-EPERM without
 * CAP_BPF/CAP_SYS_ADMIN, -EINVAL/-ENOSYS where the kernel lacks BPF);
 * the events work unfiltered after a failure.  Engine thread, before the
 * events are enabled.
 */
int self_filter_attach(const struct ps_evlist *evl, pid_t tgid);

#endif
