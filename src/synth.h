/*
 * Records synthesized at the start of a stream (and again at each rotation)
 * so perf report can resolve symbols: kernel MMAP ([kernel.kallsyms]_text),
 * COMM/FORK/MMAP2 of existing tasks, FINISHED_INIT.
 */
#ifndef PS_SYNTH_H
#define PS_SYNTH_H
#include <sys/types.h>
#include "bytes.h"

struct ps_evlist;

/* MMAP for the kernel text, with the _text reference for KASLR. */
int synth_kernel_mmap(struct bytes *b, const struct ps_evlist *evl);
/* COMM (+FORK for non-main threads) and MMAP2 of executable maps for one process. */
int synth_process(struct bytes *b, const struct ps_evlist *evl, pid_t pid);
/* synth_process for every process in /proc. */
int synth_all_processes(struct bytes *b, const struct ps_evlist *evl);
/* The 8-byte FINISHED_INIT record. */
void synth_finished_init(struct bytes *b);

#endif
