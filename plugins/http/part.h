/*
 * The part cutter: it cuts the perf pipe stream into the parts (struct
 * part, <perfsink/collector_ship.h>: the object shipper's objects) that are
 * uploaded.
 *
 * The stream is cut only between buffers, so a part holds whole records
 * and `cat` of the parts in seq order is the stream.  A part is sealed when
 * adding the next buffer would take it over part_size (a single larger
 * buffer makes a part of its own), or when it has been open max_latency.
 * Parts are numbered from 0 in stream order; seq never repeats in a stream.
 *
 * Single-threaded: the cutter and its parts belong to the sink's thread.
 */
#ifndef HTTP_PART_H
#define HTTP_PART_H
#include <stddef.h>
#include <stdint.h>
#include <perfsink/kit.h>
#include <perfsink/collector_ship.h>

struct part_cutter {
	size_t part_size;
	int64_t max_latency_ms;
	uint64_t next_seq;
	struct part *open;     /* part being filled, or NULL */
};

void part_cutter_init(struct part_cutter *c, size_t part_size, int64_t max_latency_ms);
/*
 * Append one buffer of whole records (records: how many, for loss
 * accounting; compressed bytes hold more records than headers).  When the open part had to be sealed
 * first, *sealed receives it (the caller owns it); else *sealed = NULL.
 * Returns 0 or -ENOMEM (nothing appended).
 */
int part_cutter_append(struct part_cutter *c, const uint8_t *data, size_t len,
		       uint64_t records, int64_t now_ms, struct part **sealed);
/* The open part if it is at least max_latency old, sealed; else NULL. */
struct part *part_cutter_expire(struct part_cutter *c, int64_t now_ms);
/* The open part, sealed, whatever its age or size; NULL when none. */
struct part *part_cutter_flush(struct part_cutter *c);
/* Time (ms) at which the open part expires; -1 when no part is open. */
int64_t part_cutter_deadline(const struct part_cutter *c);
/*
 * A meta part made of bytes (the prologue, a LOST marker) taking the next
 * seq; the caller must flush the open part first to keep stream order.
 */
struct part *part_cutter_meta(struct part_cutter *c, const void *data, size_t len);
void part_cutter_destroy(struct part_cutter *c);

#endif
