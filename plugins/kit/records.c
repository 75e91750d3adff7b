/* Counting and checking perf records, the LOST marker; see perfsink/kit.h. */
#include <perfsink/kit.h>

#include <errno.h>
#include <linux/perf_event.h> /* PERF_RECORD_* */
#include <stdio.h>
#include <string.h>

/* Kit 1.0's record-type names are the one set's values (kit.h). */
_Static_assert(PERFSINK_KIT_REC_LOST == PERF_RECORD_LOST, "LOST");
_Static_assert(PERFSINK_KIT_REC_HEADER_ATTR == PERFSINK_RECORD_HEADER_ATTR, "HEADER_ATTR");
_Static_assert(PERFSINK_KIT_REC_HEADER_TRACING_DATA == PERFSINK_RECORD_HEADER_TRACING_DATA, "TRACING_DATA");
_Static_assert(PERFSINK_KIT_REC_AUXTRACE == PERFSINK_RECORD_AUXTRACE, "AUXTRACE");
_Static_assert(PERFSINK_KIT_REC_HEADER_FEATURE == PERFSINK_RECORD_HEADER_FEATURE, "HEADER_FEATURE");
_Static_assert(PERFSINK_KIT_REC_COMPRESSED == PERFSINK_RECORD_COMPRESSED, "COMPRESSED");

/* perf_event_attr.sample_type bits that shape the sample_id trailer. */
#define ST_TID (1ull << 1)
#define ST_TIME (1ull << 2)
#define ST_ID (1ull << 6)
#define ST_CPU (1ull << 7)
#define ST_STREAM_ID (1ull << 9)
#define ST_IDENTIFIER (1ull << 16)
#define ATTR_FLAG_SAMPLE_ID_ALL (1ull << 18)

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

uint64_t perfsink_kit_records_count(const uint8_t *data, size_t len, size_t *rest)
{
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec r;
	uint64_t n = 0;

	perfsink_kit_rec_iter_init(&it, data, len);
	it.payload = 1;
	while (perfsink_kit_rec_next(&it, &r))
		n++;
	if (rest)
		*rest = len - it.off;
	return n;
}

uint64_t perfsink_kit_buf_records(const struct perfsink_buf *buf)
{
	return buf->records ? buf->records : perfsink_kit_records_count(buf->data, buf->len, NULL);
}

#define PIPE_MAGIC 0x32454c4946524550ull /* "PERFILE2" */

/* Why the walk stopped at it->off, into why: -EBADMSG. */
static int why_stopped(const struct perfsink_kit_rec_iter *it, char *why, size_t whylen)
{
	const uint8_t *p = it->data + it->off;
	size_t left = it->len - it->off;
	struct perfsink_kit_rec r = { .p = p };

	if (it->stop == PERFSINK_KIT_REC_SHORT) {
		snprintf(why, whylen, "%zu bytes at offset %zu: not a whole record header", left, it->off);
		return -EBADMSG;
	}
	r.type = rd32(p);
	memcpy(&r.size, p + 6, sizeof(r.size));
	if (!perfsink_kit_rec_type_known(r.type))
		snprintf(why, whylen, "record type %u at offset %zu is not one perf knows", r.type, it->off);
	else if (r.size < 8 || r.size > left)
		snprintf(why, whylen, "record at offset %zu has size %u, %zu bytes left", it->off, r.size, left);
	else
		snprintf(why, whylen, "record type %u at offset %zu announces %s bytes after it, %zu left",
			 r.type, it->off, perfsink_kit_rec_payload(&r) == UINT64_MAX ? "unknown" : "more",
			 left - r.size);
	return -EBADMSG;
}

int perfsink_kit_records_validate(const uint8_t *data, size_t len, int prologue, char *why,
				  size_t whylen)
{
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec r;

	perfsink_kit_rec_iter_init(&it, data, len);
	it.payload = 1;
	if (prologue) {
		if (len < 16 || rd64(data) != PIPE_MAGIC || rd64(data + 8) != 16) {
			snprintf(why, whylen, "part 0 does not start with a perf pipe header (PERFILE2, size 16)");
			return -EBADMSG;
		}
		it.off = 16;
	}
	for (size_t at = it.off; perfsink_kit_rec_next(&it, &r); at = it.off) {
		if (!perfsink_kit_rec_type_known(r.type)) {
			it.off = at;
			return why_stopped(&it, why, whylen);
		}
	}
	return it.stop == PERFSINK_KIT_REC_END ? 0 : why_stopped(&it, why, whylen);
}

int perfsink_kit_lost_template_from_pipe_header(const uint8_t *hdr, size_t len,
						struct perfsink_kit_lost_template *t)
{
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec r;

	perfsink_kit_rec_iter_init(&it, hdr, len);
	it.off = len < 16 ? len : 16;
	while (perfsink_kit_rec_next(&it, &r)) {
		if (r.type == PERFSINK_RECORD_HEADER_ATTR && r.size >= 8 + 48) {
			const uint8_t *attr = r.p + 8;
			uint32_t asz = rd32(attr + 4);

			t->sample_type = rd64(attr + 24);
			t->sample_id_all = !!(rd64(attr + 40) & ATTR_FLAG_SAMPLE_ID_ALL);
			t->id = (8 + (size_t)asz + 8 <= r.size) ? rd64(attr + asz) : 0;
			return 0;
		}
		if (r.type == PERFSINK_RECORD_HEADER_TRACING_DATA)
			break;
	}
	return -EINVAL;
}

static uint8_t *put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
	return p + sizeof(v);
}

size_t perfsink_kit_lost_record_write(const struct perfsink_kit_lost_template *t, uint64_t lost,
				      uint8_t *out, size_t cap)
{
	uint8_t rec[PERFSINK_KIT_LOST_RECORD_MAX] = { 0 };
	uint8_t *p = rec + 8;
	uint32_t type = PERF_RECORD_LOST;
	uint16_t size;

	p = put64(p, t->id);
	p = put64(p, lost);
	if (t->sample_id_all) {
		uint64_t st = t->sample_type;

		/* Trailer order: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER. */
		if (st & ST_TID)
			p = put64(p, 0);
		if (st & ST_TIME)
			p = put64(p, 0);
		if (st & ST_ID)
			p = put64(p, t->id);
		if (st & ST_STREAM_ID)
			p = put64(p, t->id);
		if (st & ST_CPU)
			p = put64(p, 0);
		if (st & ST_IDENTIFIER)
			p = put64(p, t->id);
	}
	size = (uint16_t)(p - rec);
	if (size > cap)
		return 0;
	memcpy(rec, &type, sizeof(type));
	memcpy(rec + 6, &size, sizeof(size));
	memcpy(out, rec, size);
	return size;
}
