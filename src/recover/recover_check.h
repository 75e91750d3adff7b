/*
 * What perf 6.1 refuses in a perf.data file, so that recover never calls a
 * file perf cannot read "complete" and never keeps a record perf would stop
 * at (issue 27, item 16: a fuzzed file left "complete" made perf report
 * fail, or abort with "stack smashing detected").  The rules follow perf
 * 6.1's own reading code:
 *
 *  - the attrs, as perf_session__read_header reads them (one after the
 *    other, each attr.size bytes and its ids section; attr.size 0 means 64,
 *    more than 6.1's 128 is refused) and perf_session__open checks them
 *    (the id position, sample_id_all and read_format agree across events;
 *    no bit 6.1 does not know), every event but a tracepoint sampling IP
 *    or ADDR (perf script refuses others), all of it before the data;
 *  - each record, as perf would parse it: a SAMPLE field by field against
 *    its event's sample_type (evsel__parse_sample: nothing may run past the
 *    record), the event an id names must exist (evlist__event2evsel), the
 *    fixed part, string and sample_id trailer of every kernel record, a
 *    CPU below perf's MAX_NR_CPUS (4096; perf script crashed on larger),
 *    and the counts inside the user records perf record writes (ID_INDEX,
 *    THREAD_MAP, CPU_MAP, EVENT_UPDATE, TIME_CONV); perf stat's records and
 *    AUX tracing's are not kept.
 *
 * recover_feat.h checks the feature sections.  Pure reading; thread-safe.
 */
#ifndef PS_RECOVER_CHECK_H
#define PS_RECOVER_CHECK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What perf keeps of one attr. */
struct rc_attr {
	uint32_t type;
	uint64_t config, sample_type, read_format, regs_user, regs_intr, branch_type;
	bool id_all;
};

struct rc_id {
	uint64_t id;
	unsigned ev;
};

/* The events as perf knows them once it has read the attrs. */
struct rc_events {
	struct rc_attr *a;
	unsigned nr;
	struct rc_id *ids; /* sorted by id */
	size_t nr_ids;
	int id_pos, is_pos; /* of the first event, as perf's evlist keeps them */
	bool tracepoints;   /* an attr of PERF_TYPE_TRACEPOINT: TRACING_DATA needed */
};

/* Where the header says the attrs and data are. */
struct rc_layout {
	uint64_t attr_size, attrs_off, attrs_size, data_off;
};

/*
 * Read the attrs of the mapped file (size bytes) as perf 6.1 does.  0, or
 * -EINVAL with the reason in err (perf would refuse the file), -ENOMEM.
 * Free with rc_events_free, which also takes an events never read.
 */
int rc_events_read(struct rc_events *e, const uint8_t *file, uint64_t size,
		   const struct rc_layout *l, char *err, size_t n);
void rc_events_free(struct rc_events *e);
/*
 * The perf_event_attr of len bytes at attr sets no sample_type, read_format,
 * flag or branch_sample_type bit perf 6.1 does not know ("Please update
 * perf tool"), and branch_sample_type only with PERF_SAMPLE_BRANCH_STACK.
 */
bool rc_attr_bits_ok(const uint8_t *attr, size_t len);
/* The event of kernel id id, or -1. */
int rc_event_of_id(const struct rc_events *e, uint64_t id);
/*
 * Whether perf 6.1 reads the record rec of size bytes (header included,
 * size from its header, at least 8): NULL, or what it would stop at.
 * COMPRESSED records are the scan's (recover_scan.h); their contents come
 * here one record at a time.
 */
const char *rc_record(const struct rc_events *e, const uint8_t *rec, size_t size);

#endif
