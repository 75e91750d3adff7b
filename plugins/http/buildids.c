/* HEADER_BUILD_ID records from the stream's BUILD_ID feature; see buildids.h. */
#include "buildids.h"

#include <errno.h>
#include <perfsink/kit.h>
#include <stdlib.h>
#include <string.h>

enum {
	FEAT_TRACING_DATA = 1,
	FEAT_BUILD_ID = 2,
	HEADER_FEATURES_OFFSET = 72,    /* adds_features bitmap in perf_file_header */
};

/* The BUILD_ID payload inside feat (index then payloads), or NULL. */
static const uint8_t *build_id_payload(const struct perfsink_bytes *hdr, const struct perfsink_bytes *feat,
				       uint64_t data_offset, uint64_t *size)
{
	uint64_t bits, sec[2];
	if (hdr->len < HEADER_FEATURES_OFFSET + 8)
		return NULL;
	memcpy(&bits, hdr->data + HEADER_FEATURES_OFFSET, 8);
	if (!(bits & (1ULL << FEAT_BUILD_ID)))
		return NULL;
	/* Index entries follow the set bits in order; only TRACING_DATA is below. */
	size_t idx = (bits >> FEAT_TRACING_DATA) & 1;
	if (feat->len < (idx + 1) * sizeof(sec))
		return NULL;
	memcpy(sec, feat->data + idx * sizeof(sec), sizeof(sec));
	if (sec[0] < data_offset || sec[0] - data_offset > feat->len ||
	    sec[1] > feat->len - (sec[0] - data_offset))
		return NULL;
	*size = sec[1];
	return feat->data + (sec[0] - data_offset);
}

int buildid_records(const struct perfsink_host *host, const struct perfsink_stream *s,
		    uint8_t **out, size_t *len)
{
	struct perfsink_bytes hdr = { 0 }, feat = { 0 };
	uint64_t size = 0;
	*out = NULL;
	*len = 0;
	if (!host->file_header || !host->file_features)
		return 0;
	int rc = host->file_header(s, NULL, &hdr);
	if (rc)
		return rc;
	struct perfsink_file_end fe = { hdr.len, 0, NULL };
	host->bytes_free(&hdr);
	rc = host->file_header(s, &fe, &hdr);
	if (!rc)
		rc = host->file_features(s, &fe, &feat);
	const uint8_t *p = rc ? NULL : build_id_payload(&hdr, &feat, fe.data_offset, &size);
	if (p && size && !(*out = malloc(size)))
		rc = -ENOMEM;
	/* The feature is a list of build_id_event records without their type. */
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec r;
	uint32_t type = PERFSINK_RECORD_HEADER_BUILD_ID;
	perfsink_kit_rec_iter_init(&it, p, (size_t)size);
	while (*out && perfsink_kit_rec_next(&it, &r)) {
		memcpy(*out + *len, r.p, r.size);
		memcpy(*out + *len, &type, 4);
		*len += r.size;
	}
	host->bytes_free(&hdr);
	host->bytes_free(&feat);
	return rc;
}
