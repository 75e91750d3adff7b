/*
 * Setters of the perf record options kept in struct perf_flags (opts.h):
 * the same contract as opts.c's setters (0, -EINVAL with the reason in
 * err, -ENOMEM).  Private to src/config: opts.c lists them in its tables.
 */
#ifndef PS_OPTS_PERF_H
#define PS_OPTS_PERF_H
#include <stddef.h>
#include <stdint.h>

struct record_opts;

#define PERF_SETTER(fn) int fn(struct record_opts *o, const char *v, char *err, size_t errlen)

PERF_SETTER(set_data);
PERF_SETTER(set_period_flag);
PERF_SETTER(set_weight);
PERF_SETTER(set_raw_samples);
PERF_SETTER(set_stat);
PERF_SETTER(set_no_samples);
PERF_SETTER(set_no_inherit);
PERF_SETTER(set_all_user);
PERF_SETTER(set_all_kernel);
PERF_SETTER(set_switch_events);
PERF_SETTER(set_namespaces);
PERF_SETTER(set_sample_identifier);
PERF_SETTER(set_running_time);
PERF_SETTER(set_code_page_size);
PERF_SETTER(set_data_page_size);
PERF_SETTER(set_phys_data);
PERF_SETTER(set_kernel_callchains);
PERF_SETTER(set_user_callchains);
PERF_SETTER(set_user_regs);
PERF_SETTER(set_intr_regs);
PERF_SETTER(set_max_size);
PERF_SETTER(set_delay);
PERF_SETTER(set_timestamp_filename);
PERF_SETTER(set_proc_map_timeout);
PERF_SETTER(set_compression_level);
PERF_SETTER(set_clockid);
PERF_SETTER(set_control);
PERF_SETTER(set_no_bpf_event);

/* Registers perf names on x86_64 (perf_regs.c), one mask bit each. */
int regs_parse(const char *v, uint64_t *mask, char *err, size_t errlen);

#endif
