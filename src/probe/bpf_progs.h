/*
 * The BPF programs loaded on the machine, read through bpf(2) as perf 6.1
 * reads them at the start of a recording (tools/perf/util/bpf-event.c,
 * bpf-utils.c; raw syscalls, no libbpf): their info for BPF_PROG_INFO and
 * BPF_BTF (format/bpf_info.h), and the KSYMBOL and BPF_EVENT records that
 * let perf report name samples in them bpf_prog_<tag>_<name>.
 */
#ifndef PS_PROBE_BPF_PROGS_H
#define PS_PROBE_BPF_PROGS_H
#include <stdbool.h>
#include <stdint.h>
#include "base/bytes.h"
#include "format/bpf_info.h"

struct ps_events;

/*
 * Add every loaded program not yet in info (by id) to info, with the BTF
 * object it refers to, and when b is not NULL append for every loaded
 * program one KSYMBOL per JIT image (sub-program) and one BPF_EVENT
 * (PROG_LOAD), with a zeroed sample_id trailer as perf writes them.
 * Programs unloaded meanwhile are skipped.  Returns the number of programs
 * seen, -EPERM/-ENOSYS when bpf(2) is not allowed (nothing is added), or
 * -ENOMEM.  Engine thread; no state besides info.
 */
int bpf_progs_read(struct ps_bpf_info *info, struct bytes *b, const struct ps_events *evs);
/*
 * A PERF_RECORD_BPF_EVENT from the ring: on PROG_LOAD, add that program to
 * info at once (as perf's side-band thread does), while it is still loaded.
 * A program gone already, or no memory, is left out (it only lacks from
 * BPF_PROG_INFO; its KSYMBOL is in the data).  Rare: one per program load.
 */
void bpf_progs_event(struct ps_bpf_info *info, const void *rec, uint16_t size);
void bpf_info_free(struct ps_bpf_info *info);
/*
 * For perfsink recover: whether the perf_bpil at p (len bytes left in its
 * BPF_PROG_INFO section) is one perf 6.1 reads safely: its info no larger
 * than perf's struct, every array perf 6.1 asks for that has entries named
 * in the arrays mask and lying inside its data (perf turns their offsets
 * into pointers and follows them; one the mask leaves out stays an offset
 * it follows all the same), no other in the mask.  Its size in *used.
 */
bool bpf_bpil_ok(const uint8_t *p, uint64_t len, uint64_t *used);

#endif
