/*
 * What perf.data says of the recorded events: each event's attr, name and
 * kernel ids, and the sample layout all of them share.  Plain data: the
 * engine fills it from its event list (evlist_describe), recover from a
 * file's attrs; format and probe read it and nothing else of the engine.
 */
#ifndef PS_EVENTS_H
#define PS_EVENTS_H
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

/* perf 6.1 refuses larger attrs in file mode. */
#define PS_ATTR_SIZE 128

struct ps_event_desc {
	struct perf_event_attr attr; /* attr.size = PS_ATTR_SIZE */
	const char *name;            /* as perf shows it: "cpu-clock", "sched:sched_switch" */
	const char *tp_sys, *tp_name; /* tracepoints only, else NULL */
	const uint64_t *ids;         /* kernel ids of the event's fds */
	unsigned nr_ids;
	/* Groups (GROUP_DESC): set on a leader whose group has 2 or more events. */
	unsigned nr_members;         /* 0 or 1: not a group leader */
	const char *group_name;      /* NULL: perf's "{anon_group}" */
};

struct ps_events {
	const struct ps_event_desc *ev;
	unsigned nr;
	bool has_tracepoint;         /* a TRACING_DATA feature/record goes with them */
	/* The sample_id layout shared by every attr. */
	uint64_t sample_type;
	bool sample_id_all;
};

#endif
