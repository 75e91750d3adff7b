/*
 * `perfsink pprof` and `perfsink flamegraph`: recordings in, one profile
 * model (pp_profile.h) out, handed to the verb's writer.  Reads each input
 * in turn (pp_input), in time order (pp_order), follows its processes' maps (pp_procs), turns each
 * sample's call chain (frame pointers as recorded, or DWARF stacks unwound
 * by pp_unwind) into locations named by pp_symbols, and adds them to one
 * profile (pp_profile); pprof's writer is pp_write, flamegraph's
 * src/flame.  Single-threaded.
 */
#ifndef PS_PPROF_CONVERT_H
#define PS_PPROF_CONVERT_H
#include <stdint.h>
#include <stdio.h>

struct pp_filter;
struct pp_profile;

struct pp_convert_opts {
	int labels;              /* pid, tid, comm, cpu on each sample */
	const char *cache_dir;   /* perf's build-id cache (~/.debug) */
	const struct pp_filter *filter;  /* NULL: every sample */
};

struct pp_convert_report {
	uint64_t samples;        /* samples taken into the profile */
	uint64_t frames;         /* frames in them */
	uint64_t unknown;        /* frames nothing named ("[unknown]") */
	uint64_t unwound;        /* DWARF samples unwound past their first frame */
	uint64_t dwarf;          /* DWARF samples */
	uint64_t locations, functions, mappings, pprof_samples;
	uint64_t filtered;       /* samples the filter left out */
	uint64_t first_time, last_time;  /* of the samples taken (sample clock, ns) */
	char host[65];           /* the first input's HOSTNAME, "" when none */
	char event[64];          /* the event the last value type counts */
};

/* Handed the finished profile (the model of pp_profile.h) with the report
 * filled: 0, or a negative errno with err set. */
typedef int (*pp_model_fn)(void *ctx, const struct pp_profile *prof, const struct pp_convert_report *rep,
			   char *err, size_t errlen);

/* Read inputs[0..n) into one profile and hand it to fn (pprof's writes
 * it as profile.proto, flamegraph's draws it).  0, fn's error, or a negative errno with err
 * naming the input and the reason. */
int pp_convert_model(char *const *inputs, unsigned n, const struct pp_convert_opts *o, pp_model_fn fn,
		     void *ctx, struct pp_convert_report *rep, char *err, size_t errlen);

#endif
