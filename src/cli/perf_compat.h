/*
 * perf record 6.1 options that are no perfsink [record] key: each either
 * accepted with no effect (perfsink always does it, or it only tunes
 * perf's internals) or refused with a reason specific to it, detected on
 * this machine where it depends on one.  docs/perf-compat.md is generated
 * from what perfsink does with them (tests/perf_compat.sh).
 */
#ifndef PS_PERF_COMPAT_H
#define PS_PERF_COMPAT_H
#include <stdbool.h>
#include <stddef.h>

struct perf_only_opt {
	const char *name; /* long name */
	char letter;      /* short letter, 0 if none */
	int has_arg;      /* getopt's no_argument, required_argument, optional_argument */
	bool accepted;    /* true: accepted, no effect; false: refused */
	const char *why;  /* the explanation or the reason */
	/* For reasons that depend on the machine: the reason into buf. */
	void (*reason)(char *buf, size_t len);
};

extern const struct perf_only_opt perf_only_opts[];
extern const unsigned nr_perf_only_opts;

/* The explanation or reason of p, into buf. */
void perf_only_reason(const struct perf_only_opt *p, char *buf, size_t len);

#endif
