/*
 * Where a SAMPLE record's call chain is, and its frames.  One rule for the
 * recorder, which marks the files the frames fall in as sampled while it
 * drains (engine/drain.c), and for fetch, which finds them again in a
 * recording made before the marks said so (fetch/sampled.c).
 *
 * A chain is PERF_CONTEXT_* markers (>= PERF_CONTEXT_MAX, (u64)-4095) and
 * ips; a marker says whose the ips after it are (kernel, user, a guest's).
 * Pure; a layout's id cache makes one layout single-threaded.
 */
#ifndef PS_SAMPLE_CHAIN_H
#define PS_SAMPLE_CHAIN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "format/events.h"

struct sample_layout {
	const struct ps_event_desc *ev;
	unsigned nr;
	const struct perf_event_attr *one; /* the layout of every sampling attr, or NULL */
	bool chains;                       /* an attr samples CALLCHAIN */
	/* The attr the last IDENTIFIER looked up was of (samples come in runs). */
	uint64_t last_id;
	const struct perf_event_attr *last;
};

/* The layouts of ev[0..nr); dummy events (which never sample) do not count. */
void sample_layout_init(struct sample_layout *l, const struct ps_event_desc *ev, unsigned nr);
/* The attr sample r (size bytes) was written with: by IDENTIFIER unless
 * the layouts are all one; NULL when no event has its id. */
const struct perf_event_attr *sample_layout_attr(struct sample_layout *l, const uint8_t *r,
						 uint16_t size);
/* Bytes of a READ value (read_format rf) at p, before end; SIZE_MAX when it
 * cannot be (a GROUP's nr past end or absurd). */
size_t sample_read_size(uint64_t rf, const uint8_t *p, const uint8_t *end);
/* The offset in r of the CALLCHAIN's nr, or 0 when a samples none or the
 * record is too short to hold it. */
size_t sample_chain_off(const struct perf_event_attr *a, const uint8_t *r, uint16_t size);

struct sample_chain {
	const uint8_t *p, *end;
	unsigned mode; /* the frames' cpumode: PERF_RECORD_MISC_KERNEL/USER, 0 a guest's */
};

/* The chain at r + off (sample_chain_off, not 0); mode: the sample's cpumode. */
static inline void sample_chain_begin(struct sample_chain *c, const uint8_t *r, uint16_t size,
				      size_t off, unsigned mode)
{
	uint64_t nr, room = (size - off - 8) / 8;

	memcpy(&nr, r + off, sizeof(nr));
	c->p = r + off + 8;
	c->end = c->p + 8 * (nr < room ? nr : room);
	c->mode = mode;
}

/* The next frame's ip into *ip (its mode in c->mode); 0 at the end. */
static inline int sample_chain_next(struct sample_chain *c, uint64_t *ip)
{
	while (c->p < c->end) {
		uint64_t e;

		memcpy(&e, c->p, sizeof(e));
		c->p += 8;
		if (e < (uint64_t)PERF_CONTEXT_MAX) {
			*ip = e;
			return 1;
		}
		c->mode = e == (uint64_t)PERF_CONTEXT_KERNEL ? PERF_RECORD_MISC_KERNEL
			  : e == (uint64_t)PERF_CONTEXT_USER ? PERF_RECORD_MISC_USER
							     : 0;
	}
	return 0;
}

#endif
