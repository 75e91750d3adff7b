/*
 * perf.data writers: file mode header and feature section, pipe mode
 * prologue.  Layouts follow perf 6.1 (see docs/perf-format.md §1, §2).
 *
 * File mode, as perf record lays it out:
 *
 *   0    struct perf_file_header (104 bytes)
 *   104  ids of event 0, ids of event 1, ...   (u64 each)
 *   ...  perf_file_attr per event: attr (128 bytes) + ids {offset, size}
 *   data_offset: records
 *   data_offset + data_size: feature index {offset, size} per set bit, then payloads
 *
 * Pipe mode: "PERFILE2" + u64 16, HEADER_ATTR per event, HEADER_FEATURE
 * records and their end marker, HEADER_TRACING_DATA, EVENT_UPDATE names.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "format/events.h"
#include "format/perf_features.h"
#include "format/perf_file.h"
#include "format/record.h"
#include "format/stream.h"

#define PERF_MAGIC2 PERF_FILE_MAGIC
#define FILE_HEADER_SIZE PERF_FILE_HEADER_SIZE
#define FILE_ATTR_SIZE (PS_ATTR_SIZE + 16)
#define FEAT_BITS PERF_FILE_FEAT_BITS
#define RECORD_MAX 65535 /* header.size is a u16 */

struct section {
	uint64_t offset, size;
};

/*
 * The events behind s, checked: -EINVAL without one, -ENODATA for
 * tracepoints without their TRACING_DATA (perf would reject the output, so
 * fail at the first header rather than at the end of the recording).
 */
static int stream_events(const struct perfsink_stream *s, const struct ps_events **evs)
{
	*evs = s && s->priv ? s->priv->events : NULL;
	if (!*evs)
		return -EINVAL;
	const struct bytes *td = s->priv->tracing_data;
	if ((*evs)->has_tracepoint && (!td || !td->len))
		return -ENODATA;
	return 0;
}

static uint64_t total_ids(const struct ps_events *evs)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < evs->nr; i++)
		n += evs->ev[i].nr_ids;
	return n;
}

/* Records start on a PERFSINK_BUF_ALIGN boundary, for O_DIRECT writers. */
static uint64_t data_offset_of(const struct ps_events *evs)
{
	uint64_t end = FILE_HEADER_SIZE + 8 * total_ids(evs) + (uint64_t)FILE_ATTR_SIZE * evs->nr;
	return (end + PERFSINK_BUF_ALIGN - 1) / PERFSINK_BUF_ALIGN * PERFSINK_BUF_ALIGN;
}

/* The attr as stored: always PS_ATTR_SIZE bytes with size = PS_ATTR_SIZE. */
static void add_attr(struct bytes *b, const struct perf_event_attr *attr)
{
	uint8_t raw[PS_ATTR_SIZE] = { 0 };
	size_t n = sizeof(*attr) < sizeof(raw) ? sizeof(*attr) : sizeof(raw);
	memcpy(raw, attr, n);
	uint32_t size = PS_ATTR_SIZE;
	memcpy(raw + offsetof(struct perf_event_attr, size), &size, sizeof(size));
	bytes_add(b, raw, sizeof(raw));
}

/* Sets the bits of the features written in file mode; bits starts zeroed. */
void perf_file_feature_bits(const struct perfsink_stream *s, const struct perfsink_compression *comp,
			    uint64_t bits[FEAT_BITS / 64])
{
	for (int f = 1; f < FEAT_BITS; f++)
		if (feature_wanted(f, s, comp, false))
			bits[f / 64] |= 1ULL << (f % 64);
}

static int bytes_finish(struct bytes *b, struct perfsink_bytes *out)
{
	if (b->err) {
		int err = b->err;
		bytes_free(b);
		return err;
	}
	out->data = bytes_steal(b, &out->len);
	return 0;
}

int perf_file_header(const struct perfsink_stream *s, const struct perfsink_file_end *end,
		     struct perfsink_bytes *out)
{
	const struct ps_events *evs;
	int err = stream_events(s, &evs);
	if (err || !out)
		return err ? err : -EINVAL;
	uint64_t data_offset = data_offset_of(evs);
	if (end && end->data_offset != data_offset)
		return -EINVAL;

	struct bytes b;
	bytes_init(&b);
	uint64_t ids_at = FILE_HEADER_SIZE + 8 * total_ids(evs);
	bytes_u64(&b, PERF_MAGIC2);
	bytes_u64(&b, FILE_HEADER_SIZE);
	bytes_u64(&b, FILE_ATTR_SIZE);
	bytes_u64(&b, ids_at);
	bytes_u64(&b, (uint64_t)FILE_ATTR_SIZE * evs->nr);
	bytes_u64(&b, data_offset);
	bytes_u64(&b, end ? end->data_size : 0);
	bytes_zero(&b, 16); /* event_types: obsolete */
	uint64_t bits[FEAT_BITS / 64] = { 0 };
	if (end)
		perf_file_feature_bits(s, end->comp, bits);
	bytes_add(&b, bits, sizeof(bits));

	for (unsigned i = 0; i < evs->nr; i++)
		bytes_add(&b, evs->ev[i].ids, evs->ev[i].nr_ids * sizeof(uint64_t));
	uint64_t ids_off = FILE_HEADER_SIZE;
	for (unsigned i = 0; i < evs->nr; i++) {
		const struct ps_event_desc *ev = &evs->ev[i];
		add_attr(&b, &ev->attr);
		bytes_u64(&b, ids_off);
		bytes_u64(&b, ev->nr_ids * sizeof(uint64_t));
		ids_off += ev->nr_ids * sizeof(uint64_t);
	}
	if (!b.err && b.len < data_offset)
		bytes_zero(&b, data_offset - b.len);
	if (!b.err && b.len != data_offset)
		b.err = -EINVAL; /* layout bug: never hand out a header that lies */
	return bytes_finish(&b, out);
}

int perf_file_features(const struct perfsink_stream *s, const struct perfsink_file_end *end,
		       struct perfsink_bytes *out)
{
	const struct ps_events *evs;
	int err = stream_events(s, &evs);
	if (err || !end || !out)
		return err ? err : -EINVAL;

	int ids[FEAT_BITS];
	unsigned nr = 0;
	for (int f = 1; f < FEAT_BITS; f++)
		if (feature_wanted(f, s, end->comp, false))
			ids[nr++] = f;

	uint64_t base = end->data_offset + end->data_size;
	struct bytes b;
	bytes_init(&b);
	bytes_zero(&b, nr * sizeof(struct section));
	for (unsigned i = 0; i < nr && !b.err; i++) {
		size_t start = b.len;
		err = feature_write(ids[i], &b, s, end->comp);
		if (err) {
			bytes_free(&b);
			return err;
		}
		struct section sec = { base + start, b.len - start };
		bytes_put_at(&b, i * sizeof(sec), &sec, sizeof(sec));
	}
	return bytes_finish(&b, out);
}

/* Set header.size of the record at start; -E2BIG if it does not fit a u16. */
static int record_close(struct bytes *b, size_t start)
{
	if (b->err)
		return b->err;
	size_t size = b->len - start;
	if (size > RECORD_MAX)
		return -E2BIG;
	uint16_t v = (uint16_t)size;
	bytes_put_at(b, start + offsetof(struct perf_event_header, size), &v, sizeof(v));
	return 0;
}

static int pipe_attrs(struct bytes *b, const struct ps_events *evs)
{
	for (unsigned i = 0; i < evs->nr; i++) {
		const struct ps_event_desc *ev = &evs->ev[i];
		size_t start = record_begin(b, PERFSINK_RECORD_HEADER_ATTR, 0);
		add_attr(b, &ev->attr);
		bytes_add(b, ev->ids, ev->nr_ids * sizeof(uint64_t));
		int err = record_close(b, start);
		if (err)
			return err;
	}
	return 0;
}

/*
 * HEADER_FEATURE records, unpadded as perf writes them, then the end marker.
 * A feature too large for one record is left out: all of them are optional
 * except COMPRESSED, which is 20 bytes.
 */
static int pipe_features(struct bytes *b, const struct perfsink_stream *s,
			 const struct perfsink_compression *comp)
{
	for (int f = 1; f < FEAT_LAST; f++) {
		if (!feature_wanted(f, s, comp, true))
			continue;
		size_t start = record_begin(b, PERFSINK_RECORD_HEADER_FEATURE, 0);
		bytes_u64(b, (uint64_t)f);
		int err = feature_write_pipe(f, b, s, comp);
		if (!err)
			err = record_close(b, start);
		if (err == -E2BIG)
			b->len = start;
		else if (err)
			return err;
	}
	size_t start = record_begin(b, PERFSINK_RECORD_HEADER_FEATURE, 0);
	bytes_u64(b, FEAT_LAST);
	return record_close(b, start);
}

/*
 * HEADER_TRACING_DATA: header + u32 size + u32 pad, followed by size bytes
 * that header.size does not count (the blob, zero-padded to 8 like perf).
 */
static int pipe_tracing_data(struct bytes *b, const struct perfsink_stream *s)
{
	const struct bytes *td = s->priv->tracing_data;
	if (!s->priv->events->has_tracepoint || !td || !td->len)
		return 0;
	size_t padded = (td->len + 7) & ~(size_t)7;
	if (padded > UINT32_MAX)
		return -E2BIG;
	size_t start = record_begin(b, PERFSINK_RECORD_HEADER_TRACING_DATA, 0);
	bytes_u32(b, (uint32_t)padded);
	bytes_u32(b, 0);
	int err = record_close(b, start);
	bytes_add(b, td->p, td->len);
	bytes_zero(b, padded - td->len);
	return err ? err : b->err;
}

/*
 * EVENT_UPDATE (name) per event, as perf record sends them in pipe mode.
 * perf also takes names from EVENT_DESC, but that one record holds every
 * id of every event and is dropped when it outgrows 64 KiB (many threads
 * or CPUs); these small records keep the names in that case.
 */
static int pipe_event_names(struct bytes *b, const struct ps_events *evs)
{
	enum { EVENT_UPDATE_NAME = 2 };
	for (unsigned i = 0; i < evs->nr; i++) {
		const struct ps_event_desc *ev = &evs->ev[i];
		if (!ev->nr_ids || !ev->name)
			continue;
		size_t start = record_begin(b, PERFSINK_RECORD_EVENT_UPDATE, 0);
		bytes_u64(b, EVENT_UPDATE_NAME);
		bytes_u64(b, ev->ids[0]);
		bytes_add(b, ev->name, strlen(ev->name) + 1);
		/* Pad the record itself: the unpadded features may have left b unaligned. */
		bytes_zero(b, (8 - (b->len - start) % 8) % 8);
		int err = record_close(b, start);
		if (err)
			return err;
	}
	return 0;
}

int perf_pipe_header(const struct perfsink_stream *s, const struct perfsink_compression *comp,
		     struct perfsink_bytes *out)
{
	const struct ps_events *evs;
	int err = stream_events(s, &evs);
	if (err || !out)
		return err ? err : -EINVAL;

	struct bytes b;
	bytes_init(&b);
	bytes_u64(&b, PERF_MAGIC2);
	bytes_u64(&b, 16);
	err = pipe_attrs(&b, evs);
	if (!err)
		err = pipe_features(&b, s, comp);
	if (!err)
		err = pipe_tracing_data(&b, s);
	if (!err)
		err = pipe_event_names(&b, evs);
	if (err) {
		bytes_free(&b);
		return err;
	}
	return bytes_finish(&b, out);
}

void perf_bytes_free(struct perfsink_bytes *b)
{
	if (!b)
		return;
	free(b->data);
	b->data = NULL;
	b->len = 0;
}
