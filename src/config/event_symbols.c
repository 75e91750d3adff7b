/*
 * perf 6.1's symbolic event names (parse-events.l) and hardware cache
 * names (L1-dcache-load-misses: type-op-result, evsel.c's tables).
 */
#include <config.h>

#include <linux/perf_event.h>
#include <string.h>
#include <strings.h>

#include "config/event_spec.h"

struct symbol {
	const char *name;
	uint32_t type;
	uint64_t config;
};

#define HW(n, c) { n, PERF_TYPE_HARDWARE, PERF_COUNT_HW_##c }
#define SW(n, c) { n, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##c }

static const struct symbol symbols[] = {
	SW("cpu-clock", CPU_CLOCK), SW("task-clock", TASK_CLOCK),
	SW("page-faults", PAGE_FAULTS), SW("faults", PAGE_FAULTS),
	SW("minor-faults", PAGE_FAULTS_MIN), SW("major-faults", PAGE_FAULTS_MAJ),
	SW("context-switches", CONTEXT_SWITCHES), SW("cs", CONTEXT_SWITCHES),
	SW("cpu-migrations", CPU_MIGRATIONS), SW("migrations", CPU_MIGRATIONS),
	SW("alignment-faults", ALIGNMENT_FAULTS), SW("emulation-faults", EMULATION_FAULTS),
	SW("dummy", DUMMY), SW("bpf-output", BPF_OUTPUT),
	/* perf's tool event: a dummy software event when recorded */
	SW("duration_time", DUMMY),
	HW("cycles", CPU_CYCLES), HW("cpu-cycles", CPU_CYCLES),
	HW("stalled-cycles-frontend", STALLED_CYCLES_FRONTEND),
	HW("idle-cycles-frontend", STALLED_CYCLES_FRONTEND),
	HW("stalled-cycles-backend", STALLED_CYCLES_BACKEND),
	HW("idle-cycles-backend", STALLED_CYCLES_BACKEND),
	HW("instructions", INSTRUCTIONS), HW("cache-references", CACHE_REFERENCES),
	HW("cache-misses", CACHE_MISSES), HW("branches", BRANCH_INSTRUCTIONS),
	HW("branch-instructions", BRANCH_INSTRUCTIONS), HW("branch-misses", BRANCH_MISSES),
	HW("bus-cycles", BUS_CYCLES), HW("ref-cycles", REF_CPU_CYCLES),
};

/* Aliases separated by '|', index = perf's number. */
static const char *const cache_types[] = {
	"L1-dcache|l1-d|l1d|L1-data", "L1-icache|l1-i|l1i|L1-instruction", "LLC|L2",
	"dTLB|d-tlb|Data-TLB", "iTLB|i-tlb|Instruction-TLB", "branch|branches|bpu|btb|bpc",
	"node",
};
static const char *const cache_ops[] = {
	"load|loads|read", "store|stores|write", "prefetch|prefetches|speculative-read|speculative-load",
};
static const char *const cache_results[] = { "refs|Reference|ops|access", "misses|miss" };

/* Index of the alias list that s[0..n) is in, or -1. */
static int alias_find(const char *const *lists, int nr, const char *s, size_t n)
{
	for (int i = 0; i < nr; i++) {
		const char *a = lists[i];
		while (*a) {
			size_t l = strcspn(a, "|");
			if (l == n && !strncmp(a, s, n))
				return i;
			a += l + (a[l] == '|');
		}
	}
	return -1;
}

/* The longest cache type that prefixes name (types hold '-' themselves). */
static int cache_type_prefix(const char *name, size_t *len)
{
	int best = -1;
	for (size_t n = strlen(name); n > 0; n--) {
		if (name[n] != '\0' && name[n] != '-')
			continue;
		best = alias_find(cache_types, 7, name, n);
		if (best >= 0) {
			*len = n;
			return best;
		}
	}
	return -1;
}

/* type[-op[-result]] as perf's parse_events_add_cache: op load, result access by default. */
static bool cache_find(const char *name, uint64_t *config)
{
	size_t n;
	int type = cache_type_prefix(name, &n), op = 0, res = 0;
	const char *p = name + n;

	if (type < 0)
		return false;
	for (int part = 0; *p == '-' && part < 2; part++) {
		size_t l = strcspn(p + 1, "-");
		int o = alias_find(cache_ops, 3, p + 1, l), r = alias_find(cache_results, 2, p + 1, l);
		if (part == 0 && o >= 0)
			op = o;
		else if (r >= 0)
			res = r;
		else
			return false;
		p += 1 + l;
	}
	if (*p)
		return false;
	*config = (uint64_t)type | ((uint64_t)op << 8) | ((uint64_t)res << 16);
	return true;
}

bool ev_symbol_find(const char *name, uint32_t *type, uint64_t *config)
{
	for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++) {
		if (!strcmp(symbols[i].name, name)) {
			*type = symbols[i].type;
			*config = symbols[i].config;
			return true;
		}
	}
	if (cache_find(name, config)) {
		*type = PERF_TYPE_HW_CACHE;
		return true;
	}
	return false;
}

const char *ev_symbol_name(uint32_t type, uint64_t config)
{
	for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++)
		if (symbols[i].type == type && symbols[i].config == config)
			return symbols[i].name;
	return NULL;
}
