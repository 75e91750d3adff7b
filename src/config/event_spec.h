/*
 * perf's event syntax (-e, perf 6.1: tools/perf/util/parse-events.y) as
 * plain data.  A -e string is a comma list of events and groups:
 *
 *   list  := item (',' item)*
 *   item  := [NAME] '{' event (',' event)* '}' [':' MODS] | event
 *   event := def [terms] [[':'] MODS]
 *   def   := SYMBOL                    cpu-clock, page-faults, cycles, ...
 *          | SYS ':' NAME              tracepoint; * ? [] globs
 *          | 'mem:' ADDR ['/' LEN] [':' rwx]   hardware breakpoint
 *          | 'r' HEX                   raw PMU config
 *          | TYPE ':' CONFIG           numeric type and config
 *          | PMU terms                 software/config=0/, tracepoint/.../
 *   terms := '/' [term (',' term)*] '/'
 *   term  := KEY ['=' (NUMBER | NAME | 'QUOTED')]
 *
 * Pure: nothing here reads tracefs or sysfs; globs, PMU names and
 * tracepoint ids are resolved by the engine (evlist), which turns each
 * ev_spec into one or more perf_event_attr.
 */
#ifndef PS_EVENT_SPEC_H
#define PS_EVENT_SPEC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ev_kind {
	EV_SYMBOL,     /* type/config from the name table */
	EV_TRACEPOINT, /* tp_sys:tp_name, maybe globs */
	EV_RAW,        /* PERF_TYPE_RAW, config */
	EV_NUMERIC,    /* type:config as numbers */
	EV_BREAKPOINT, /* bp_addr, bp_len, bp_type */
	EV_PMU,        /* pmu/terms/: type from sysfs, config from the terms */
};

enum ev_callgraph { EV_CG_UNSET = 0, EV_CG_NO, EV_CG_FP, EV_CG_DWARF };

/* Event terms (/.../).  -1 in a tri-state means "not given". */
struct ev_terms {
	bool has_period, has_freq, has_config, has_config1, has_config2, has_max_stack;
	uint64_t period, freq, config, config1, config2;
	uint32_t max_stack;
	enum ev_callgraph callgraph;
	uint32_t stack_size; /* 0: not given */
	int time, inherit, overwrite;
	char *name;          /* name=, NULL if not given */
};

/*
 * The state modifiers act on (perf's get_event_modifier).  An event starts
 * from ev_mods_default(); its own modifiers replace that state, a group's
 * modifiers are added on top of each member's.
 */
struct ev_mods {
	bool exclude_user, exclude_kernel, exclude_hv, exclude_host, exclude_guest;
	bool exclude_idle, pinned, exclusive, sample_read, precise_max, weak;
	bool exclude_GH; /* G or H was given: leave exclude_guest/host alone */
	unsigned precise;
};

#define EV_MODS_MAX 16

struct ev_spec {
	enum ev_kind kind;
	unsigned col;          /* 1-based column of the event in the -e string */
	char *text;            /* perf's default name: the event's text */
	uint32_t type;         /* EV_SYMBOL, EV_NUMERIC */
	uint64_t config;       /* EV_SYMBOL, EV_NUMERIC, EV_RAW */
	char *tp_sys, *tp_name;/* EV_TRACEPOINT */
	char *pmu;             /* EV_PMU */
	uint64_t bp_addr;      /* EV_BREAKPOINT */
	uint32_t bp_len;       /* 0: perf's default for the type */
	uint32_t bp_type;      /* HW_BREAKPOINT_R|W|X bits; 0: R|W */
	struct ev_terms terms;
	char mods[EV_MODS_MAX];/* the event's own modifier letters, "" if none */
	int group;             /* index in ev_list.groups, -1 if none */
};

struct ev_group {
	char *name;            /* NAME{...}, NULL if anonymous */
	char mods[EV_MODS_MAX];
	unsigned first, nr;    /* its events in ev_list.ev */
};

struct ev_list {
	struct ev_spec *ev;
	unsigned nr;
	struct ev_group *groups;
	unsigned nr_groups;
};

/*
 * Parse one -e string.  0, -EINVAL with one line in err naming the column
 * ("at column 11: ..."), or -ENOMEM.  out is freed by ev_list_free, also
 * after an error.
 */
int ev_list_parse(const char *text, struct ev_list *out, char *err, size_t errlen);
void ev_list_free(struct ev_list *l);

/* A symbolic event (cpu-clock, cs, cycles, ...): its type and config; false if unknown. */
bool ev_symbol_find(const char *name, uint32_t *type, uint64_t *config);
/* The first spelling of type/config ("cpu-clock"), or NULL. */
const char *ev_symbol_name(uint32_t type, uint64_t config);

/* The state of an event before any modifier (perf: exclude_guest set). */
struct ev_mods ev_mods_default(void);
/*
 * Apply modifier letters to m as perf 6.1 does: group false for an
 * event's own modifiers (from a clean state), true for its group's (on top
 * of the member's state; D and e reach the leader only).  The letters are
 * checked by the parser already.
 */
void ev_mods_apply(struct ev_mods *m, const char *letters, bool group, bool leader);

#endif
