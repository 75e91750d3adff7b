/* zstd compression into COMPRESSED records (the kit's framer); see compress.h. */
#include "compress.h"

#include <errno.h>
#include <stdlib.h>
#include <perfsink/kit.h>

struct compressor {
	struct perfsink_kit_zframe frame;
	struct perfsink_kit_buf out;
	uint64_t total_in, total_out;
};

struct compressor *compressor_new(int level)
{
	struct compressor *c = calloc(1, sizeof(*c));

	if (c && perfsink_kit_zframe_init(&c->frame, level) < 0) {
		perfsink_kit_zframe_fini(&c->frame);
		free(c);
		c = NULL;
	}
	return c;
}

int compressor_run(struct compressor *c, const uint8_t *data, size_t len, size_t tail_round,
		   const uint8_t **out, size_t *out_len)
{
	int rc;

	perfsink_kit_buf_reset(&c->out);
	rc = perfsink_kit_zframe_records(&c->frame, &c->out, data, len, tail_round, COMPRESS_CHUNK_MAX);
	c->total_in += len;
	c->total_out += c->out.len;
	*out = c->out.data;
	*out_len = c->out.len;
	return rc;
}

void compressor_totals(const struct compressor *c, uint64_t *in, uint64_t *out)
{
	*in = c->total_in;
	*out = c->total_out;
}

void compressor_free(struct compressor *c)
{
	if (!c)
		return;
	perfsink_kit_zframe_fini(&c->frame);
	perfsink_kit_buf_free(&c->out);
	free(c);
}
