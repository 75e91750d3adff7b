/* zs_frame: see zs_frame.h for the record format and its invariants. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "zs_frame.h"

int zs_obuf_reserve(struct zs_obuf *o, size_t extra)
{
	size_t cap = o->cap ? o->cap : 64 * 1024;
	uint8_t *n;

	if (o->len + extra <= o->cap)
		return 0;
	while (cap < o->len + extra)
		cap *= 2;
	n = realloc(o->data, cap);
	if (!n)
		return -ENOMEM;
	o->data = n;
	o->cap = cap;
	return 0;
}

int zs_obuf_append(struct zs_obuf *o, const void *p, size_t len)
{
	int err = zs_obuf_reserve(o, len);

	if (err || !len)
		return err;
	memcpy(o->data + o->len, p, len);
	o->len += len;
	return 0;
}

void zs_obuf_reset(struct zs_obuf *o) { o->len = 0; }

void zs_obuf_free(struct zs_obuf *o)
{
	free(o->data);
	memset(o, 0, sizeof(*o));
}

int zs_frame_init(struct zs_frame *f, int level)
{
	size_t r;

	memset(f, 0, sizeof(*f));
	f->cctx = ZSTD_createCCtx();
	if (!f->cctx)
		return -ENOMEM;
	r = ZSTD_CCtx_setParameter(f->cctx, ZSTD_c_compressionLevel, level);
	if (ZSTD_isError(r)) {
		zs_frame_fini(f);
		return -EINVAL;
	}
	return 0;
}

void zs_frame_fini(struct zs_frame *f)
{
	ZSTD_freeCCtx(f->cctx);
	zs_obuf_free(&f->scratch);
	f->cctx = NULL;
}

int zs_frame_reset(struct zs_frame *f)
{
	if (ZSTD_isError(ZSTD_CCtx_reset(f->cctx, ZSTD_reset_session_only)))
		return -EIO;
	f->group = 0;
	f->open = 0;
	zs_obuf_reset(&f->scratch);
	return 0;
}

/* Run one compressStream2 step to completion, output into the scratch. */
static int frame_step(struct zs_frame *f, const void *data, size_t len, ZSTD_EndDirective op)
{
	ZSTD_inBuffer in = { data, len, 0 };
	size_t left;

	do {
		ZSTD_outBuffer out;
		int err = zs_obuf_reserve(&f->scratch, ZSTD_CStreamOutSize());

		if (err)
			return err;
		out.dst = f->scratch.data + f->scratch.len;
		out.size = f->scratch.cap - f->scratch.len;
		out.pos = 0;
		left = ZSTD_compressStream2(f->cctx, &out, &in, op);
		if (ZSTD_isError(left))
			return -EIO;
		f->scratch.len += out.pos;
	} while (op == ZSTD_e_continue ? in.pos < in.size : left != 0);
	return 0;
}

/* Finish the current group and append it to out as one record. */
static int frame_emit(struct zs_frame *f, struct zs_obuf *out, int end)
{
	struct { uint32_t type; uint16_t misc, size; } hdr;
	int err = frame_step(f, NULL, 0, end ? ZSTD_e_end : ZSTD_e_flush);

	if (err)
		return err;
	if (f->scratch.len > ZS_PAYLOAD_MAX)
		return -EIO; /* impossible by the size of ZS_GROUP_MAX */
	hdr.type = ZS_RECORD_TYPE;
	hdr.misc = 0;
	hdr.size = (uint16_t)(ZS_RECORD_HDR + f->scratch.len);
	err = zs_obuf_append(out, &hdr, sizeof(hdr));
	if (!err)
		err = zs_obuf_append(out, f->scratch.data, f->scratch.len);
	if (err)
		return err;
	f->out_bytes += hdr.size;
	f->records++;
	f->group = 0;
	f->open = !end;
	zs_obuf_reset(&f->scratch);
	return 0;
}

int zs_frame_put(struct zs_frame *f, struct zs_obuf *out, const void *data, size_t len,
		 enum zs_mode mode)
{
	const uint8_t *p = data;
	int err;

	if (mode == ZS_END && !len && !f->group && f->open)
		return -EINVAL;
	while (len) {
		size_t n;

		/* Emit a full group only now that more input exists, so the
		 * caller's mode always applies to a non-empty group. */
		if (f->group == ZS_GROUP_MAX) {
			err = frame_emit(f, out, 0);
			if (err)
				return err;
		}
		n = ZS_GROUP_MAX - f->group;
		if (n > len)
			n = len;
		err = frame_step(f, p, n, ZSTD_e_continue);
		if (err)
			return err;
		f->open = 1;
		f->group += n;
		f->in_bytes += n;
		p += n;
		len -= n;
	}
	if (mode != ZS_KEEP && f->group)
		return frame_emit(f, out, mode == ZS_END);
	return 0;
}
