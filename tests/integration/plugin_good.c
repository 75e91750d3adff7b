/* Test sink "good": writes files and has a key of every type, all with defaults. */
#include "plugin_minimal.h"

static const struct perfsink_key keys[] = {
	{ "path", PERFSINK_KEY_PATH, "good.out", "output file", 0, 0, NULL },
	{ "label", PERFSINK_KEY_STRING, "none", "free text", 0, 0, NULL },
	{ "count", PERFSINK_KEY_INT, "3", "small number", 1, 10, NULL },
	{ "buffer_size", PERFSINK_KEY_SIZE, "64K", "bytes", 4096, 1 << 30, NULL },
	{ "compress", PERFSINK_KEY_BOOL, "no", "a flag", 0, 0, NULL },
	{ "mode", PERFSINK_KEY_ENUM, "safe", "a choice", 0, 0, "fast|safe|off" },
	{ "timeout", PERFSINK_KEY_DURATION, "10s", "a duration", 100, 3600000, NULL },
	{ NULL, 0, NULL, NULL, 0, 0, NULL },
};

static const struct perfsink_sink_ops ops = {
	.abi_major = PERFSINK_ABI_MAJOR,
	.abi_minor = PERFSINK_ABI_MINOR,
	.struct_size = sizeof(struct perfsink_sink_ops),
	.flags = PERFSINK_SINK_WRITES_FILES,
	.name = "good",
	.description = "test sink with one key of every type",
	.keys = keys,
	STUB_OPS,
};

PERFSINK_DEFINE_SINK(ops)
