/* The COMPRESSED record framer; see perfsink_kit_zframe in perfsink/kit.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <perfsink/kit.h>

#ifdef HAVE_ZSTD
#include <zstd.h>

int perfsink_kit_zframe_init(struct perfsink_kit_zframe *f, int level)
{
	size_t r;

	memset(f, 0, sizeof(*f));
	f->cctx = ZSTD_createCCtx();
	if (!f->cctx)
		return -ENOMEM;
	r = ZSTD_CCtx_setParameter(f->cctx, ZSTD_c_compressionLevel, level);
	if (ZSTD_isError(r)) {
		perfsink_kit_zframe_fini(f);
		return -EINVAL;
	}
	return 0;
}

void perfsink_kit_zframe_fini(struct perfsink_kit_zframe *f)
{
	ZSTD_freeCCtx(f->cctx);
	perfsink_kit_buf_free(&f->scratch);
	f->cctx = NULL;
}

int perfsink_kit_zframe_reset(struct perfsink_kit_zframe *f)
{
	if (ZSTD_isError(ZSTD_CCtx_reset(f->cctx, ZSTD_reset_session_only)))
		return -EIO;
	f->group = 0;
	f->open = 0;
	perfsink_kit_buf_reset(&f->scratch);
	return 0;
}

/* Run one compressStream2 step to completion, output into the scratch. */
static int frame_step(struct perfsink_kit_zframe *f, const void *data, size_t len,
		      ZSTD_EndDirective op)
{
	ZSTD_inBuffer in = { data, len, 0 };
	size_t left;

	do {
		ZSTD_outBuffer out;
		int err = perfsink_kit_buf_reserve(&f->scratch, ZSTD_CStreamOutSize());

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
static int frame_emit(struct perfsink_kit_zframe *f, struct perfsink_kit_buf *out, int end)
{
	struct { uint32_t type; uint16_t misc, size; } hdr;
	int err = frame_step(f, NULL, 0, end ? ZSTD_e_end : ZSTD_e_flush);

	if (err)
		return err;
	if (f->scratch.len > PERFSINK_KIT_Z_PAYLOAD_MAX)
		return -EIO; /* impossible by the size of PERFSINK_KIT_Z_GROUP_MAX */
	hdr.type = PERFSINK_RECORD_COMPRESSED;
	hdr.misc = 0;
	hdr.size = (uint16_t)(PERFSINK_KIT_REC_HDR + f->scratch.len);
	err = perfsink_kit_buf_append(out, &hdr, sizeof(hdr));
	if (!err)
		err = perfsink_kit_buf_append(out, f->scratch.data, f->scratch.len);
	if (err)
		return err;
	f->out_bytes += hdr.size;
	f->records++;
	f->group = 0;
	f->open = !end;
	perfsink_kit_buf_reset(&f->scratch);
	return 0;
}

int perfsink_kit_zframe_put(struct perfsink_kit_zframe *f, struct perfsink_kit_buf *out,
			    const void *data, size_t len, enum perfsink_kit_zmode mode)
{
	const uint8_t *p = data;
	int err;

	if (mode == PERFSINK_KIT_Z_END && !len && !f->group && f->open)
		return -EINVAL;
	while (len) {
		size_t n;

		/* Emit a full group only now that more input exists, so the
		 * caller's mode always applies to a non-empty group. */
		if (f->group == PERFSINK_KIT_Z_GROUP_MAX) {
			err = frame_emit(f, out, 0);
			if (err)
				return err;
		}
		n = PERFSINK_KIT_Z_GROUP_MAX - f->group;
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
	if (mode != PERFSINK_KIT_Z_KEEP && f->group)
		return frame_emit(f, out, mode == PERFSINK_KIT_Z_END);
	return 0;
}

/* End of the chunk of whole records that starts at off (see the header). */
static size_t chunk_end(const uint8_t *data, size_t off, size_t body, size_t chunk_max)
{
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec r;
	size_t end = off;

	perfsink_kit_rec_iter_init(&it, data, body);
	it.off = off;
	while (perfsink_kit_rec_next(&it, &r) && (end == off || end - off + r.size <= chunk_max))
		end = it.off;
	return end == off ? body : end; /* malformed: keep the rest as it is */
}

/* One chunk -> one independent frame, or kept raw when it does not shrink. */
static int chunk_compress(struct perfsink_kit_zframe *f, struct perfsink_kit_buf *out,
			  const uint8_t *d, size_t n)
{
	size_t at = out->len;
	int err;

	if (n > PERFSINK_KIT_Z_GROUP_MAX) /* would take two records, not independent */
		return perfsink_kit_buf_append(out, d, n);
	err = perfsink_kit_zframe_put(f, out, d, n, PERFSINK_KIT_Z_END);
	if (err == -ENOMEM)
		return err;
	if (err == 0 && out->len - at < n)
		return 0;
	out->len = at;
	if (err && perfsink_kit_zframe_reset(f) < 0)
		return -EIO;
	return perfsink_kit_buf_append(out, d, n);
}

int perfsink_kit_zframe_records(struct perfsink_kit_zframe *f, struct perfsink_kit_buf *out,
				const uint8_t *data, size_t len, size_t tail, size_t chunk_max)
{
	size_t body = tail <= len ? len - tail : len, off = 0;
	int rc = 0;

	while (off < body && rc == 0) {
		size_t end = chunk_end(data, off, body, chunk_max);

		rc = chunk_compress(f, out, data + off, end - off);
		off = end;
	}
	if (rc == 0)
		rc = perfsink_kit_buf_append(out, data + body, len - body);
	return rc;
}
#else /* !HAVE_ZSTD: the kit was built without libzstd */

int perfsink_kit_zframe_init(struct perfsink_kit_zframe *f, int level)
{
	(void)level;
	memset(f, 0, sizeof(*f));
	return -ENOTSUP;
}

void perfsink_kit_zframe_fini(struct perfsink_kit_zframe *f)
{
	perfsink_kit_buf_free(&f->scratch);
}

int perfsink_kit_zframe_reset(struct perfsink_kit_zframe *f)
{
	(void)f;
	return -ENOTSUP;
}

int perfsink_kit_zframe_put(struct perfsink_kit_zframe *f, struct perfsink_kit_buf *out,
			    const void *data, size_t len, enum perfsink_kit_zmode mode)
{
	(void)f, (void)out, (void)data, (void)len, (void)mode;
	return -ENOTSUP;
}

int perfsink_kit_zframe_records(struct perfsink_kit_zframe *f, struct perfsink_kit_buf *out,
				const uint8_t *data, size_t len, size_t tail, size_t chunk_max)
{
	(void)f, (void)out, (void)data, (void)len, (void)tail, (void)chunk_max;
	return -ENOTSUP;
}
#endif
