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

/* path, fsync and direct are the kit's file sink's; cblocks the AIO writer's. */
#define AIO_FILE_KEYS(KEY, ONLY)                                                          \
	ONLY(KEY_PATH, "path", PERFSINK_KEY_PATH, "perf.data", 0, 0, NULL,                \
	     "output file (perf.data format); -o sets it")                                \
	KEY(KEY_CBLOCKS, "cblocks", PERFSINK_KEY_INT, "0", 0, 1024, NULL,                 \
	    "AIO control blocks in flight; 0 = one per pooled buffer",                    \
	    struct perfsink_kit_aiow_conf, cblocks)                                       \
	ONLY(KEY_FSYNC, "fsync", PERFSINK_KEY_BOOL, "false", 0, 0, NULL,                 \
	     "fdatasync the file before it is closed")                                    \
	ONLY(KEY_DIRECT, "direct", PERFSINK_KEY_BOOL, "false", 0, 0, NULL,               \
	     "write records with O_DIRECT where the file system supports it")
PERFSINK_KIT_KEYS(AIO_FILE_KEYS, aio_file_keys, aio_file_map);

static const struct perfsink_kit_fsink_keys aio_file_fkeys = { KEY_PATH, KEY_FSYNC, KEY_DIRECT };

static int aio_file_open(const struct perfsink_instance *inst, void **ctx)
{
	struct perfsink_kit_aiow_conf *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	return perfsink_kit_fsink_open_keys(inst, aio_file_keys, aio_file_map, &aio_file_fkeys,
					    &perfsink_kit_aiow_writer_ops, c,
					    (struct perfsink_kit_fsink **)ctx);
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
