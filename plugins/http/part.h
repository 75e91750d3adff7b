/*
 * Parts: the pieces the perf pipe stream is cut into for upload, and the
 * cutter that makes them.
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

enum part_kind {
	PART_DATA = 0,   /* records from buffers; subject to the spool cap */
	PART_META,       /* prologue or LOST marker: small, never dropped */
	PART_END,        /* the stream's end marker {host}/{session}.end: sent
			  * after the last part; spooled after it (as
			  * {session}/end) when the stream ended cleanly but
			  * could not be sent */
};

struct part {
	struct part *next;     /* queue link */
	uint64_t seq;
	enum part_kind kind;
	struct perfsink_kit_buf body; /* data NULL while the bytes live only in
				       * spool_path; len counts them still */
	int file_fd;           /* a large spooled part, checked, sent from its
				* file (spool_load): -1 when none */
	uint64_t records;      /* records in data, for loss accounting */
	char *key;             /* "{host}/{session}/{seq}": URL tail and spool name */
	char *spool_path;      /* the part's spool file, or NULL */
	int64_t opened_ms;
};

struct part *part_new(uint64_t seq, enum part_kind kind);
int part_append(struct part *p, const void *data, size_t len);
/* Free the bytes (and close file_fd), now kept only in the spool file; body.len still counts them. */
void part_unload(struct part *p);
/* Frees the bytes and the struct (not the spool file). */
void part_free(struct part *p);

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

/*
 * The end marker's bytes: {"parts": N, "start_ns": S, "end_ns": E}\n, N the
 * stream's part count, S and E the recording host's CLOCK_REALTIME (ns
 * since the epoch) when the stream began and when it ended, so `perfsink
 * ls` shows when it was recorded, not when its parts arrived.
 * part_end_format writes them to buf (at least PART_END_MAX bytes) and
 * returns their length.  part_end_parse accepts exactly what it writes,
 * and the {"parts": N}\n of sinks before the times (a spool of an older
 * run; *start_ns = *end_ns = 0), with N >= 1 (part 0, the prologue, always
 * exists): 0 and *parts, or -1.  start_ns, end_ns may be NULL.
 */
#define PART_END_MAX 96
size_t part_end_format(char *buf, uint64_t parts, int64_t start_ns, int64_t end_ns);
int part_end_parse(const uint8_t *data, size_t len, uint64_t *parts, int64_t *start_ns,
		   int64_t *end_ns);

#endif
