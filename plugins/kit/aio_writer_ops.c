/*
 * The POSIX AIO writer as the file sink's writer ops (kit 1.5, kit.h:
 * perfsink_kit_aiow_writer_ops), so that a file sink written with POSIX
 * AIO needs no thunks of its own.
 */
#include <stdlib.h>
#include <perfsink/kit.h>

static int aiow_begin(void *wctx, const struct perfsink_stream *s)
{
	struct perfsink_kit_aiow_conf *c = wctx;

	c->nr_buffers = s->nr_buffers ? s->nr_buffers : 2;
	return 0;
}

static int aiow_create(void *wctx, int fd, int direct, uint64_t offset,
		       perfsink_kit_aiow_commit_fn on_commit, void *commit_arg, void *done_ctx,
		       void **w)
{
	struct perfsink_kit_aiow_conf *c = wctx;
	unsigned nr_cb = c->cblocks ? c->cblocks : c->nr_buffers;
	struct perfsink_kit_aiow_config cfg = {
		.fd = fd,
		/* With O_DIRECT a buffer can make two writes: a block and its middle. */
		.nr_cb = direct && !c->cblocks ? 2 * nr_cb : nr_cb,
		.offset = offset,
		.on_commit = on_commit,
		.commit_arg = commit_arg,
		.done_ctx = done_ctx,
	};
	return perfsink_kit_aiow_create(&cfg, (struct perfsink_kit_aiow **)w);
}

static int aiow_write(void *w, const void *data, size_t len, perfsink_kit_aiow_done_fn done,
		      void *arg)
{
	return perfsink_kit_aiow_write(w, data, len, done, arg);
}

static int aiow_drain(void *w) { return perfsink_kit_aiow_drain(w); }
static uint64_t aiow_offset(void *w) { return perfsink_kit_aiow_offset(w); }
static uint64_t aiow_committed(void *w) { return perfsink_kit_aiow_committed(w); }
static void aiow_stats(void *w, struct perfsink_kit_aiow_stats *out) { perfsink_kit_aiow_stats(w, out); }
static void aiow_destroy(void *w) { perfsink_kit_aiow_destroy(w); }
static void aiow_fini(void *wctx) { free(wctx); }

const struct perfsink_kit_writer_ops perfsink_kit_aiow_writer_ops = {
	.create = aiow_create,
	.write = aiow_write,
	.drain = aiow_drain,
	.offset = aiow_offset,
	.committed = aiow_committed,
	.stats = aiow_stats,
	.destroy = aiow_destroy,
	.begin = aiow_begin,
	.fini = aiow_fini,
};
