/*
 * The uploader's part cutting, on its thread: buffers (with compress =
 * zstd, COMPRESSED by the engine's stage) into parts of whole records, a stream's prologue and
 * epilogue as parts of their own, its end marker; each part named and
 * handed to the shipper (ship.h).
 */
#include "uploader_int.h"
#include "http_conf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Name p in the stream being cut ({key_base}/{seq}, an end marker is named) and ship it. */
void part_enqueue(struct uploader *u, struct part *p)
{
	size_t n;

	if (!p)
		return;
	n = strlen(u->key_base) + 24;
	if (!p->key)
		p->key = malloc(n);
	if (p->key && p->kind != PART_END)
		snprintf(p->key, n, "%s/%010" PRIu64, u->key_base, p->seq);
	ship_enqueue(&u->ship, p);
}

/*
 * The end marker of the stream being cut: {host}/{session}.end, a sibling of
 * the parts' folder (so `cat` of the folder is still the stream), holding
 * {"parts": N}.  Queued after the last part, so the collector gets it only
 * once every part before it is stored.  Queued only when the stream ends
 * (a rotation, or the drain at the end of a run): a recorder that crashed
 * or was killed leaves none.  Its stream's tail waits in the spool at exit:
 * so does the marker, after it, and `perfsink upload` or the next run sends
 * it last.
 */
void end_enqueue(struct uploader *u, int64_t end_ns)
{
	char body[PART_END_MAX];
	struct part *p;
	size_t n;

	if (!u->have_stream || u->end_queued)
		return;
	u->end_queued = 1;
	if (end_ns <= 0) { /* not told (a failed run): when the stream's end reached us */
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		end_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	}
	n = part_end_format(body, u->cut.next_seq, u->start_ns > 0 ? u->start_ns : 0, end_ns);
	p = part_new(u->cut.next_seq, PART_END);
	if (p && part_append(p, body, n) == 0 &&
	    (p->key = malloc(strlen(u->key_base) + 5))) {
		sprintf(p->key, "%s.end", u->key_base);
		part_enqueue(u, p);
		return;
	}
	if (p)
		part_free(p);
	LOG(u, WARN, "no memory for the end marker of %s: it is not sent", u->key_base);
}

/*
 * A new stream (start, or a rotation): the last part of the previous one is
 * sealed under its name (it ended when the new one began), then numbering
 * starts again at 0 under the new one.
 */
void prologue_take(struct uploader *u, char *key_base, int64_t start_ns, uint8_t *bytes,
			  size_t len)
{
	struct part *p;

	part_enqueue(u, part_cutter_flush(&u->cut));
	end_enqueue(u, start_ns);
	free(u->key_base);
	u->key_base = key_base;
	u->start_ns = start_ns;
	u->cut.next_seq = 0;
	u->end_queued = 0;
	u->have_stream = 1;

	u->ship.have_lt = perfsink_kit_lost_template_from_pipe_header(bytes, len, &u->ship.lt) == 0;
	p = part_cutter_meta(&u->cut, bytes, len);
	free(bytes);
	if (!p) {
		ship_fail(&u->ship, -ENOMEM);
		return;
	}
	part_enqueue(u, p);
}

/* The current stream's last records, as a part of their own after its data. */
void epilogue_take(struct uploader *u, uint8_t *bytes, size_t len)
{
	struct part *p;

	part_enqueue(u, part_cutter_flush(&u->cut));
	p = u->have_stream ? part_cutter_meta(&u->cut, bytes, len) : NULL;
	free(bytes);
	if (p)
		part_enqueue(u, p);
	else if (u->have_stream)
		ship_fail(&u->ship, -ENOMEM);
}

void buffers_append(struct uploader *u, struct perfsink_buf **bufs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct part *sealed = NULL;
		const uint8_t *d = bufs[i]->data;
		size_t len = bufs[i]->len;
		/* Counted by the host since ABI 1.1; 0 from a host that did not. */
		uint64_t records = bufs[i]->records ? bufs[i]->records
						    : perfsink_kit_records_count(d, len, NULL);
		int rc = part_cutter_append(&u->cut, d, len, records, perfsink_coll_mono_ms(), &sealed);

		if (rc < 0 && !u->ship.err) {
			LOG(u, ERROR, "cannot add a buffer to a part: %s", strerror(-rc));
			ship_fail(&u->ship, rc);
		}
		part_enqueue(u, sealed);
		/* The reference is the worker's: dropped once this job returns. */
	}
}
