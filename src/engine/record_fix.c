/* KSYMBOL and BPF_EVENT records sized too large by the kernel; see record_fix.h. */
#include "engine/record_fix.h"

#include <linux/perf_event.h>
#include <string.h>

/* header, addr, len, ksym_type, flags; then the name, NUL-padded to 8. */
#define KSYMBOL_FIXED 24
/* header, type, flags, id, tag[8]. */
#define BPF_EVENT_FIXED 24

unsigned record_id_size(uint64_t st)
{
	const uint64_t bits = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			      PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
	return 8 * (unsigned)__builtin_popcountll(st & bits);
}

/* What the kernel wrote of rec: its true size, or 0 if not one to repair. */
static unsigned written_size(const uint8_t *rec, unsigned size, unsigned id_size)
{
	struct perf_event_header h;
	memcpy(&h, rec, sizeof(h));
	if (h.type == PERF_RECORD_BPF_EVENT)
		return BPF_EVENT_FIXED + id_size;
	if (h.type != PERF_RECORD_KSYMBOL || size < KSYMBOL_FIXED + 8 + id_size)
		return 0;
	const uint8_t *name = rec + KSYMBOL_FIXED;
	const uint8_t *nul = memchr(name, 0, size - KSYMBOL_FIXED - id_size);
	if (!nul)
		return 0;
	unsigned name_len = ((unsigned)(nul - name) + 1 + 7) & ~7u;
	return KSYMBOL_FIXED + name_len + id_size;
}

int record_fix_size(uint8_t *rec, unsigned id_size)
{
	struct perf_event_header h;
	memcpy(&h, rec, sizeof(h));
	if (!id_size || h.size % 8)
		return 0;
	unsigned real = written_size(rec, h.size, id_size);
	if (!real || real >= h.size)
		return 0;
	memmove(rec + h.size - id_size, rec + real - id_size, id_size);
	memset(rec + real - id_size, 0, h.size - real);
	return 1;
}
