/*
 * Records synthesized at the start of a stream (and again at each rotation)
 * so perf report can resolve symbols: kernel MMAP ([kernel.kallsyms]_text),
 * COMM/FORK/MMAP2 of existing tasks, FINISHED_INIT.
 *
 * Every function appends whole records to b.  Non-sample records get the
 * sample_id trailer evs promises (evs may be NULL: no trailer); the trailer
 * carries pid/tid of the task, time 0, id 0, cpu 0.  Out of memory is left in
 * b->err (sticky) and also returned.  Called from the engine thread only;
 * the functions keep no state between calls.
 */
#ifndef PS_SYNTH_H
#define PS_SYNTH_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "base/bytes.h"

struct ps_events;

/*
 * MMAP for the kernel text, with the _text reference for KASLR (pid -1,
 * misc KERNEL, start = pgoff = _text, len = _etext - _text, filename
 * "[kernel.kallsyms]_text"), then one MMAP per module of /proc/modules.
 * Returns 0; -EACCES when /proc/kallsyms is unreadable or shows zero
 * addresses (kptr_restrict): nothing is appended then and the caller should
 * warn that kernel symbols will not resolve; -ENOENT when _text is missing.
 * The text bounds are read from /proc/kallsyms once per process (~0.1 s)
 * and cached; /proc/modules is read at every call.
 */
int synth_kernel_mmap(struct bytes *b, const struct ps_events *evs);

/*
 * For each thread of pid (/proc/PID/task): FORK (non-main threads only),
 * COMM, and after the main thread's COMM one MMAP2 per executable line of
 * its maps (misc USER; "//anon" for anonymous and hugetlbfs maps, as perf
 * does).  When an attr of evs has mmap_data, also one per readable
 * non-executable line, misc USER | MMAP_DATA, as perf does then.  Threads that vanish mid-scan are skipped.  pid may also name a
 * non-main thread: the whole thread group is synthesized.
 * Returns 0, -ESRCH if pid does not exist, -ENOMEM.
 */
int synth_process(struct bytes *b, const struct ps_events *evs, pid_t pid);

/*
 * For every task in /proc: FORK (main threads too, parent from PPid, as
 * perf -a does), COMM, MMAP2s.  Reading maps stops after a 500 ms budget for
 * the whole walk (per_task_ms 0), or per_task_ms for each process, as perf's
 * --proc-map-timeout; later processes get one MMAP2 flagged
 * PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT (perf report counts them and
 * warns).  A warning names the count.  Returns 0, -errno if /proc cannot be
 * read, -ENOMEM.
 */
int synth_all_processes(struct bytes *b, const struct ps_events *evs, unsigned per_task_ms);

/*
 * One COMM record with the given name, read nothing.  For the forked
 * workload before it execs (perf record writes "perf-exec" for it there; the
 * exec COMM from the ring replaces it).
 */
void synth_comm(struct bytes *b, const struct ps_events *evs, pid_t pid, pid_t tid,
		const char *comm);

/*
 * NAMESPACES of a task (its /proc/PID/ns links: dev and inode of net, uts,
 * ipc, pid, user, mnt, cgroup), when an attr of evs has namespaces; else
 * nothing.  synth_process and synth_all_processes write it after each COMM.
 */
void synth_namespaces(struct bytes *b, const struct ps_events *evs, pid_t pid, pid_t tid);

/* The 8-byte FINISHED_INIT record. */
void synth_finished_init(struct bytes *b);

/* ---- Variants with explicit inputs, for tests and tuning ---- */

struct synth_stats {
	unsigned processes;      /* processes synthesized */
	unsigned maps_truncated; /* processes whose maps hit the time budget */
};

/* synth_all_processes with a budget in ms (0: maps of every process cut). */
int synth_all_processes_budget(struct bytes *b, const struct ps_events *evs,
			       unsigned budget_ms, struct synth_stats *st);

/* Where synth_kernel_mmap reads from; NULL members mean the live system. */
struct synth_kernel_src {
	const char *kallsyms;    /* /proc/kallsyms */
	const char *modules;     /* /proc/modules */
	const char *modules_dir; /* /lib/modules/$(uname -r) */
};

int synth_kernel_mmap_from(struct bytes *b, const struct ps_events *evs,
			   const struct synth_kernel_src *src);

/* Kernel text bounds from a kallsyms file.  ref is "_text" (or "_stext"). */
struct kernel_text {
	uint64_t start, end;
	const char *ref;
};

/* Returns 0, -EACCES (unreadable or zero addresses), -ENOENT, -errno. */
int kernel_text_read(const char *kallsyms_path, struct kernel_text *kt);
/*
 * The same bounds without reading kallsyms down to _etext: on x86-64 the
 * "Kernel code" resource of /proc/iomem is [__pa(_text), __pa(_etext) - 1]
 * (arch/x86/kernel/setup.c), so its length gives _etext once _text, the
 * third line of kallsyms, is known.  Elsewhere, or when iomem hides the
 * addresses (no CAP_SYS_ADMIN), it is kernel_text_read.
 */
int kernel_text_quick(const char *kallsyms_path, const char *iomem_path, struct kernel_text *kt);
/* Length of "Kernel code" in an iomem file: 0, -EACCES (zeros), -ENOENT, -errno. */
int kernel_code_len(const char *iomem_path, uint64_t *len);

/*
 * Path of module name (as /proc/modules spells it) under dir, like perf:
 * NAME.ko[.gz|.xz|.zst] anywhere below dir, '-' and '_' equivalent.
 * Returns 0 with out filled, -ENOENT, or -ENAMETOOLONG.
 */
int kmodule_path_find(const char *dir, const char *name, char *out, size_t outlen);

#endif
