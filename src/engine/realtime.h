/*
 * -r/--realtime: run perfsink's threads with SCHED_FIFO, as perf record -r
 * does for perf.  Under CPU saturation the reader is then scheduled as
 * soon as a ring wakes it, instead of after the CPU-bound tasks' slices,
 * which is what decides how much a small ring loses.  The threads block
 * in poll() and on their queues, so they use the CPU only to move data.
 */
#ifndef PS_REALTIME_H
#define PS_REALTIME_H

/*
 * Give every existing thread of this process SCHED_FIFO priority prio
 * (1..99); threads created later inherit it from their creator.  Call
 * after the workload is forked (it keeps the normal policy).  0 or a
 * negative errno (-EPERM without CAP_SYS_NICE).  Engine thread.
 */
int realtime_apply(int prio);

#endif
