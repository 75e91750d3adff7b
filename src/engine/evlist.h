/*
 * The set of events being recorded: parsed from -e, opened per CPU or per
 * task, one ring per CPU.  Owned by the engine thread.
 */
#ifndef PS_EVLIST_H
#define PS_EVLIST_H
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "format/events.h"

struct bytes;

struct record_opts;

struct ps_event {
	struct perf_event_attr attr; /* attr.size = PS_ATTR_SIZE */
	char *name;                  /* as perf shows it: "cpu-clock", "sched:sched_switch" */
	char *tp_sys, *tp_name;      /* tracepoints only, else NULL */
	/* Groups ({a,b}): a member is opened with its leader's fd as group_fd. */
	unsigned leader_off;         /* how far back its leader is; 0: it leads or is alone */
	unsigned nr_members;         /* a leader's group size (0 or 1: alone) */
	char *group_name;            /* a leader's NAME{...}, else NULL */
	char *filter;                /* tracepoint filter (--filter, --exclude-perf) */
	bool precise_max;            /* :P: the highest precise_ip the kernel takes */
	int *fds;                    /* nr_cpus * nr_threads, -1 when not opened */
	uint64_t *ids;               /* kernel ids, same index as fds */
	unsigned nr_ids;
	bool tracking;               /* perf's dummy:HG side-band event (evlist_track.h) */
};

struct ps_evlist {
	struct ps_event *ev;
	unsigned nr;
	int *cpus;        /* CPUs opened; {-1} with nr_cpus 1 for per-thread mode */
	unsigned nr_cpus;
	pid_t *threads;   /* {-1} system-wide */
	unsigned nr_threads;
	bool system_wide;
	bool has_tracepoint;
	/* Layout shared by every attr (checked at parse time). */
	uint64_t sample_type;
	bool sample_id_all;
	uint32_t stack_user;  /* DWARF stack bytes every event samples; 0: none or mixed */
	/* What format and probe see of these events; see evlist_describe. */
	struct ps_event_desc *desc;
	struct ps_events events;
};

/* perfsink's name of a software or hardware event (the first -e spelling
 * of type/config, as in "cpu-clock"), or NULL when it has none. */
const char *evlist_event_name(uint32_t type, uint64_t config);
/*
 * Parse opts->events (perf's syntax, config/event_spec.h) into evl with
 * the attrs perf record 6.1 would use (evlist_build.c); no fds yet.
 * Error message to err.
 */
int evlist_parse(struct ps_evlist *evl, const struct record_opts *o, char *err, size_t errlen);
/* Fill cpus/threads from -a/-C/-p/-t or the forked child's pid. */
int evlist_set_targets(struct ps_evlist *evl, const struct record_opts *o, pid_t child,
		       char *err, size_t errlen);
/* perf_event_open everything; errors name the event and the reason. */
int evlist_open(struct ps_evlist *evl, char *err, size_t errlen);
/*
 * The kernel's count of samples it could not write (PERF_FORMAT_LOST) for
 * the fd at slot of ev: (id, lost) pairs into ids/lost, EVLIST_LOST_MAX at
 * most.  A group read with PERF_FORMAT_GROUP (:S) answers for the whole
 * group at its leader, so its members give none.  Count, or 0 on failure.
 */
#define EVLIST_LOST_MAX 64
int evlist_fd_lost(const struct ps_event *ev, unsigned slot, uint64_t *ids, uint64_t *lost);
int evlist_enable(struct ps_evlist *evl);
int evlist_disable(struct ps_evlist *evl);
/*
 * Fill evl->events (attrs, names, ids) for format and probe; after
 * evlist_open, whose ids it copies (recover: after filling ev itself).
 * 0 or -ENOMEM.  evlist_free frees it.
 */
int evlist_describe(struct ps_evlist *evl);
void evlist_close(struct ps_evlist *evl);
void evlist_free(struct ps_evlist *evl);
/*
 * TRACING_DATA for the tracepoints of evl (formats read from tracefs) into
 * out; out stays empty when evl has none.  0 or a negative errno.
 */
int evlist_tracing_data(const struct ps_evlist *evl, struct bytes *out);

#endif
