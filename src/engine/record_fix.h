/*
 * Records the kernel sized wrongly, made right in the pooled buffer before
 * any sink sees them.
 *
 * KSYMBOL and BPF_EVENT: Linux (6.1 to 6.18 at least) builds one such
 * record and outputs it to every event that asked for it, adding each
 * event's sample_id size to the one shared header without restoring it
 * (perf_event_ksymbol_output, perf_event_bpf_output).  Every consumer after
 * the first on that CPU -- another recorder running at the same time --
 * gets a header.size too large by the trailers of the ones before, and the
 * bytes past what the kernel wrote are stale ring data.  perf reads the
 * sample_id trailer from a record's end, finds no event with that id and
 * stops ("failed to process type: 17 [Bad address]"); perf record's own
 * files carry the same fault.  The record's trailer is moved to its end and
 * the stale bytes before it are zeroed, so the stream keeps its layout.
 */
#ifndef PS_ENGINE_RECORD_FIX_H
#define PS_ENGINE_RECORD_FIX_H
#include <stdint.h>

/*
 * rec: one whole record (header.size bytes, 8-aligned, writable); id_size:
 * the sample_id trailer bytes of the events that asked for KSYMBOL and
 * BPF_EVENT records (0: no trailer, nothing to repair).  Returns 1 when
 * rec was repaired, 0 when it was right, of another type, or not
 * understood (left as it is).
 */
int record_fix_size(uint8_t *rec, unsigned id_size);

/* The sample_id trailer bytes for sample_type (sample_id_all set). */
unsigned record_id_size(uint64_t sample_type);

#endif
