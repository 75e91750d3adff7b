/* Counting and checking perf records, the LOST marker; see perfsink/kit.h. */
#include <perfsink/kit.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

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

static uint16_t rec_size(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p + 6, sizeof(v));
	return v;
}

uint64_t perfsink_kit_records_count(const uint8_t *data, size_t len, size_t *rest)
{
	uint64_t n = 0;
	size_t off = 0;

	while (len - off >= 8) {
		uint16_t sz = rec_size(data + off);
		uint32_t type = rd32(data + off);
		size_t extra = 0;

		if (sz < 8 || sz > len - off)
			break;
		/* HEADER_TRACING_DATA is followed by payload its size omits. */
		if (type == PERFSINK_KIT_REC_HEADER_TRACING_DATA && sz >= 12)
			extra = rd32(data + off + 8);
		if (extra > len - off - sz)
			break;
		off += sz + extra;
		n++;
	}
	if (rest)
		*rest = len - off;
	return n;
}

uint64_t perfsink_kit_buf_records(const struct perfsink_buf *buf)
{
	return buf->records ? buf->records : perfsink_kit_records_count(buf->data, buf->len, NULL);
}

/* Kernel types 1..21 (up to AUX_OUTPUT_HW_ID), user types 64..83 in perf 6.1. */
static int type_known(uint32_t type)
{
	return (type >= 1 && type <= 21) || (type >= 64 && type <= 83);
}

#define PIPE_MAGIC 0x32454c4946524550ull /* "PERFILE2" */

int perfsink_kit_records_validate(const uint8_t *data, size_t len, int prologue, char *why,
				  size_t whylen)
{
	size_t off = 0;

	if (prologue) {
		if (len < 16 || rd64(data) != PIPE_MAGIC || rd64(data + 8) != 16) {
			snprintf(why, whylen, "part 0 does not start with a perf pipe header (PERFILE2, size 16)");
			return -EBADMSG;
		}
		off = 16;
	}
	while (off < len) {
		uint32_t type;
		uint16_t sz;
		uint64_t extra = 0;

		if (len - off < 8) {
			snprintf(why, whylen, "%zu bytes at offset %zu: not a whole record header", len - off, off);
			return -EBADMSG;
		}
		type = rd32(data + off);
		sz = rec_size(data + off);
		if (!type_known(type)) {
			snprintf(why, whylen, "record type %u at offset %zu is not one perf knows", type, off);
			return -EBADMSG;
		}
		if (sz < 8 || sz > len - off) {
			snprintf(why, whylen, "record at offset %zu has size %u, %zu bytes left", off, sz, len - off);
			return -EBADMSG;
		}
		/* Payload that follows the record but is not in its size. */
		if (type == PERFSINK_KIT_REC_HEADER_TRACING_DATA)
			extra = sz >= 12 ? rd32(data + off + 8) : UINT64_MAX;
		else if (type == PERFSINK_KIT_REC_AUXTRACE)
			extra = sz >= 16 ? rd64(data + off + 8) : UINT64_MAX;
		if (extra > len - off - sz) {
			snprintf(why, whylen, "record type %u at offset %zu announces %s bytes after it, %zu left",
				 type, off, extra == UINT64_MAX ? "unknown" : "more", len - off - sz);
			return -EBADMSG;
		}
		off += sz + (size_t)extra;
	}
	return 0;
}

int perfsink_kit_lost_template_from_pipe_header(const uint8_t *hdr, size_t len,
						struct perfsink_kit_lost_template *t)
{
	size_t off = 16;

	while (off + 8 <= len) {
		uint32_t type = rd32(hdr + off);
		uint16_t sz = rec_size(hdr + off);

		if (sz < 8 || sz > len - off)
			break;
		if (type == PERFSINK_KIT_REC_HEADER_ATTR && sz >= 8 + 48) {
			const uint8_t *attr = hdr + off + 8;
			uint32_t asz = rd32(attr + 4);

			t->sample_type = rd64(attr + 24);
			t->sample_id_all = !!(rd64(attr + 40) & ATTR_FLAG_SAMPLE_ID_ALL);
			t->id = (8 + (size_t)asz + 8 <= sz) ? rd64(attr + asz) : 0;
			return 0;
		}
		if (type == PERFSINK_KIT_REC_HEADER_TRACING_DATA)
			break;
		off += sz;
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
	uint32_t type = PERFSINK_KIT_REC_LOST;
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
