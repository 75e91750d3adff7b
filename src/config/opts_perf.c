/* perf record's sample flags and run options, with perf's spellings and limits. */
#include <config.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "config/opts.h"
#include "config/opts_perf.h"
#include "config/value_parse.h"

static int bool_set(bool *dst, const char *v, char *err, size_t errlen)
{
	if (parse_bool(v, dst)) {
		snprintf(err, errlen, "'%s' is not a boolean; accepted: true, false, yes, no, "
			 "on, off, 1, 0", v);
		return -EINVAL;
	}
	return 0;
}

#define BOOL_SETTER(fn, field) \
	PERF_SETTER(fn) { return bool_set(&o->pf.field, v, err, errlen); }

BOOL_SETTER(set_data, data)
BOOL_SETTER(set_period_flag, period)
BOOL_SETTER(set_weight, weight)
BOOL_SETTER(set_raw_samples, raw_samples)
BOOL_SETTER(set_stat, stat)
BOOL_SETTER(set_no_samples, no_samples)
BOOL_SETTER(set_no_inherit, no_inherit)
BOOL_SETTER(set_all_user, all_user)
BOOL_SETTER(set_all_kernel, all_kernel)
BOOL_SETTER(set_switch_events, switch_events)
BOOL_SETTER(set_namespaces, namespaces)
BOOL_SETTER(set_sample_identifier, sample_identifier)
BOOL_SETTER(set_running_time, running_time)
BOOL_SETTER(set_code_page_size, code_page_size)
BOOL_SETTER(set_data_page_size, data_page_size)
BOOL_SETTER(set_phys_data, phys_data)
BOOL_SETTER(set_kernel_callchains, kernel_callchains)
BOOL_SETTER(set_user_callchains, user_callchains)
BOOL_SETTER(set_timestamp_filename, timestamp_filename)
BOOL_SETTER(set_no_bpf_event, no_bpf_event)

/* perf's x86_64 names (arch/x86/util/perf_regs.c), index = bit. */
static const char *const x86_regs[] = {
	"ax", "bx", "cx", "dx", "si", "di", "bp", "sp", "ip", "flags", "cs", "ss",
	NULL, NULL, NULL, NULL, /* ds, es, fs, gs: the kernel refuses them on x86_64 */
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};
#define NR_X86_REGS (sizeof(x86_regs) / sizeof(x86_regs[0]))
#define REGS_ALL 0xff0fffULL /* perf's PERF_REGS_MASK: every name above */

static int reg_bit(const char *name, size_t len)
{
	for (unsigned i = 0; i < NR_X86_REGS; i++)
		if (x86_regs[i] && strlen(x86_regs[i]) == len && !strncasecmp(name, x86_regs[i], len))
			return (int)i;
	return -1;
}

int regs_parse(const char *v, uint64_t *mask, char *err, size_t errlen)
{
	uint64_t m = 0;

	/* A bare flag ("true" from the CLI or the config): every register, as perf. */
	if (!*v || !strcmp(v, "true")) {
		*mask = REGS_ALL;
		return 0;
	}
	if (!strcmp(v, "false")) {
		*mask = 0;
		return 0;
	}
	for (const char *p = v; *p;) {
		size_t len = strcspn(p, ",");
		int bit = reg_bit(p, len);

		if (bit < 0) {
			snprintf(err, errlen, "'%.*s' is not a register perfsink samples; x86_64 "
				 "names: ax bx cx dx si di bp sp ip flags cs ss r8-r15 (xmm0-15 "
				 "need a PMU with PEBS)", (int)len, p);
			return -EINVAL;
		}
		m |= 1ULL << bit;
		p += len + (p[len] == ',');
	}
	*mask = m;
	return 0;
}

PERF_SETTER(set_user_regs) { return regs_parse(v, &o->pf.user_regs, err, errlen); }
PERF_SETTER(set_intr_regs) { return regs_parse(v, &o->pf.intr_regs, err, errlen); }

static int size_set(uint64_t *dst, const char *v, const char *what, char *err, size_t errlen)
{
	uint64_t n;

	if (parse_size(v, &n) || !n) {
		snprintf(err, errlen, "'%s' is not %s; give a size with an optional unit B, K, "
			 "M or G (e.g. 64K)", v, what);
		return -EINVAL;
	}
	*dst = n;
	return 0;
}

PERF_SETTER(set_max_size) { return size_set(&o->pf.max_size, v, "an output size limit", err, errlen); }

PERF_SETTER(set_delay)
{
	int64_t ms;

	/* perf's "10-20,30-40": a '-' after the first character, or a list. */
	if ((*v && strchr(v + 1, '-')) || strchr(v, ',')) {
		snprintf(err, errlen, "'%s': perfsink takes one delay, not time ranges; give "
			 "milliseconds (e.g. 100) or -1 (start disabled, enable with --control)", v);
		return -EINVAL;
	}
	if (parse_int(v, -1, INT32_MAX, &ms)) {
		snprintf(err, errlen, "'%s' is not a delay; give milliseconds (e.g. 100) or -1 "
			 "(start disabled, enable with --control)", v);
		return -EINVAL;
	}
	o->pf.delay_ms = ms;
	return 0;
}

PERF_SETTER(set_proc_map_timeout)
{
	int64_t ms;

	if (parse_int(v, 1, 3600000, &ms)) {
		snprintf(err, errlen, "'%s' is not a timeout; give milliseconds from 1 "
			 "(perf's default 500)", v);
		return -EINVAL;
	}
	o->pf.proc_map_timeout_ms = (uint64_t)ms;
	return 0;
}

PERF_SETTER(set_compression_level)
{
	int64_t n;

	/* A bare -z: level 1, perf's default. */
	if (!strcmp(v, "true"))
		v = "1";
	if (!strcmp(v, "false") || !strcmp(v, "0")) {
		o->pf.compression_level = 0;
		return 0;
	}
	if (parse_int(v, 1, 22, &n)) {
		snprintf(err, errlen, "'%s' is not a zstd level; give 1 (fastest) to 22 "
			 "(smallest), as perf -z", v);
		return -EINVAL;
	}
	o->pf.compression_level = (int)n;
	return 0;
}

static const struct { const char *name; int id; } clocks[] = {
	{ "monotonic", CLOCK_MONOTONIC }, { "mono", CLOCK_MONOTONIC },
	{ "monotonic_raw", CLOCK_MONOTONIC_RAW }, { "raw", CLOCK_MONOTONIC_RAW },
	{ "realtime", CLOCK_REALTIME }, { "real", CLOCK_REALTIME },
	{ "boottime", CLOCK_BOOTTIME }, { "boot", CLOCK_BOOTTIME },
	{ "tai", CLOCK_TAI },
};

PERF_SETTER(set_clockid)
{
	const char *name = strncasecmp(v, "CLOCK_", 6) ? v : v + 6;
	int64_t n;

	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		if (!strcasecmp(name, clocks[i].name)) {
			o->pf.clockid = clocks[i].id;
			return 0;
		}
	}
	if (!parse_int(v, 0, 63, &n)) {
		o->pf.clockid = (int)n;
		return 0;
	}
	snprintf(err, errlen, "'%s' is not a clock; give monotonic, monotonic_raw, realtime, "
		 "boottime, tai (or mono, raw, real, boot, CLOCK_*) or a clockid number", v);
	return -EINVAL;
}

PERF_SETTER(set_control)
{
	char *s;

	if (!strncmp(v, "fifo:", 5) && v[5] && v[5] != ',') {
		/* paths: anything */
	} else if (!strncmp(v, "fd:", 3)) {
		const char *p = v + 3;
		int64_t n;
		size_t len = strcspn(p, ",");
		char num[24];

		snprintf(num, sizeof(num), "%.*s", (int)(len < 23 ? len : 23), p);
		if (!len || parse_int(num, 0, 1 << 20, &n) ||
		    (p[len] == ',' && parse_int(p + len + 1, 0, 1 << 20, &n)))
			goto bad;
	} else {
		goto bad;
	}
	s = strdup(v);
	if (!s)
		return -ENOMEM;
	free(o->pf.control);
	o->pf.control = s;
	return 0;
bad:
	snprintf(err, errlen, "'%s' is not a control channel; give fifo:CTL[,ACK] (paths) or "
		 "fd:CTL[,ACK] (open descriptors), as perf record --control", v);
	return -EINVAL;
}
