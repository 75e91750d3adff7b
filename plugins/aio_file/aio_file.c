/*
 * aio_file: writes perf.data (file mode) with POSIX AIO, the design of
 * perf record --aio: every buffer becomes one asynchronous write at an
 * explicitly computed offset (perfsink_kit_aiow), its reference dropped
 * when the write has completed.  The file itself (header, data.size
 * checkpoints, O_DIRECT split, full disk, rotation, flight-recorder dumps)
 * is the kit's perf.data file sink (perfsink_kit_fsink, perfsink/kit.h),
 * which uring_file shares.
 *
 * direct is off by default: glibc's POSIX AIO runs the writes of one
 * descriptor one after the other, and a direct write holds its pooled
 * buffer until the disk has the data, so under CPU saturation that cost
 * more samples than the page-cache copy it saves (docs/BENCHMARKS.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <perfsink/sink.h>
#include <perfsink/kit.h>

enum { KEY_PATH, KEY_CBLOCKS, KEY_FSYNC, KEY_DIRECT };

static const struct perfsink_key aio_file_keys[] = {
	[KEY_PATH] = { "path", PERFSINK_KEY_PATH, "perf.data",
		       "output file (perf.data format); -o sets it", 0, 0, NULL },
	[KEY_CBLOCKS] = { "cblocks", PERFSINK_KEY_INT, "0",
			  "AIO control blocks in flight; 0 = one per pooled buffer", 0, 1024, NULL },
	[KEY_FSYNC] = { "fsync", PERFSINK_KEY_BOOL, "false",
			"fdatasync the file before it is closed", 0, 0, NULL },
	[KEY_DIRECT] = { "direct", PERFSINK_KEY_BOOL, "false",
			 "write records with O_DIRECT where the file system supports it", 0, 0, NULL },
	{ NULL, 0, NULL, NULL, 0, 0, NULL },
};

/* The writer's config; path, fsync and direct go to the kit's file sink (aio_file_fkeys). */
struct aio_conf {
	unsigned cblocks;
	unsigned nr_buffers; /* of the current stream (begin) */
};

static const struct perfsink_kit_key_map aio_file_map[] = {
	PERFSINK_KIT_MAP(KEY_CBLOCKS, struct aio_conf, cblocks),
	PERFSINK_KIT_MAP_END,
};

static const struct perfsink_kit_fsink_keys aio_file_fkeys = { KEY_PATH, KEY_FSYNC, KEY_DIRECT };

static int aio_begin(void *wctx, const struct perfsink_stream *s)
{
	struct aio_conf *c = wctx;
	c->nr_buffers = s->nr_buffers ? s->nr_buffers : 2;
	return 0;
}

static int aio_create(void *wctx, int fd, int direct, uint64_t offset,
		      perfsink_kit_aiow_commit_fn on_commit, void *commit_arg, void *done_ctx, void **w)
{
	struct aio_conf *c = wctx;
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

static int aio_write(void *w, const void *data, size_t len, perfsink_kit_aiow_done_fn done, void *arg)
{
	return perfsink_kit_aiow_write(w, data, len, done, arg);
}

static int aio_drain(void *w) { return perfsink_kit_aiow_drain(w); }
static uint64_t aio_offset(void *w) { return perfsink_kit_aiow_offset(w); }
static uint64_t aio_committed(void *w) { return perfsink_kit_aiow_committed(w); }
static void aio_stats(void *w, struct perfsink_kit_aiow_stats *out) { perfsink_kit_aiow_stats(w, out); }
static void aio_destroy(void *w) { perfsink_kit_aiow_destroy(w); }
static void aio_fini(void *wctx) { free(wctx); }

static const struct perfsink_kit_writer_ops aio_writer_ops = {
	.create = aio_create,
	.write = aio_write,
	.drain = aio_drain,
	.offset = aio_offset,
	.committed = aio_committed,
	.stats = aio_stats,
	.destroy = aio_destroy,
	.begin = aio_begin,
	.fini = aio_fini,
};

static int aio_file_open(const struct perfsink_instance *inst, void **ctx)
{
	struct aio_conf *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	return perfsink_kit_fsink_open_keys(inst, aio_file_keys, aio_file_map, &aio_file_fkeys,
					    &aio_writer_ops, c, (struct perfsink_kit_fsink **)ctx);
}

static const struct perfsink_sink_ops aio_file_ops = {
	.abi_major = PERFSINK_ABI_MAJOR,
	.abi_minor = PERFSINK_ABI_MINOR,
	.struct_size = sizeof(struct perfsink_sink_ops),
	.flags = PERFSINK_SINK_WRITES_FILES,
	.name = "aio_file",
	.description = "perf.data file written with POSIX AIO",
	.keys = aio_file_keys,
	.open = aio_file_open,
	.start = perfsink_kit_fsink_start,
	.write = perfsink_kit_fsink_write,
	.barrier = perfsink_kit_fsink_barrier,
	.rotate = perfsink_kit_fsink_rotate,
	.close = perfsink_kit_fsink_close,
	.stats = perfsink_kit_fsink_stats,
};

PERFSINK_DEFINE_SINK(aio_file_ops)
