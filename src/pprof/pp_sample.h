/*
 * One PERF_RECORD_SAMPLE decoded by its attr's sample_type, up to the
 * fields a profile needs (IP, TID, TIME, CPU, PERIOD, CALLCHAIN,
 * REGS_USER, STACK_USER).  Pointers point into the record.  Pure.
 */
#ifndef PS_PPROF_SAMPLE_H
#define PS_PPROF_SAMPLE_H
#include <linux/perf_event.h>
#include <stdint.h>

struct pp_sample {
	uint64_t id, ip, time, period;
	uint32_t pid, tid, cpu;
	unsigned cpumode;                /* header.misc & CPUMODE_MASK */
	uint64_t nr_chain;
	const uint8_t *chain;            /* nr_chain u64s, maybe unaligned */
	uint64_t regs_abi, regs_mask;    /* abi 0: no user registers */
	const uint8_t *regs;             /* popcount(regs_mask) u64s */
	uint64_t stack_size;             /* the copy's bytes used (dyn_size) */
	const uint8_t *stack;
};

/* The id of sample r (IDENTIFIER or ID), to find its attr; 0 when it has none. */
uint64_t pp_sample_id(const uint8_t *r, uint16_t size, uint64_t sample_type);
/* Decode r (size bytes) with attr a.  0, or -EINVAL when r is too short for its fields. */
int pp_sample_decode(const uint8_t *r, uint16_t size, const struct perf_event_attr *a, struct pp_sample *s);
/* Entry i of the call chain. */
uint64_t pp_sample_chain(const struct pp_sample *s, uint64_t i);
/* User register perf_reg (PERF_REG_X86_*), or 0 when not recorded. */
uint64_t pp_sample_reg(const struct pp_sample *s, unsigned perf_reg);

#endif
