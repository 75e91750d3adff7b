/* Test sink "plain": writes no files and has a required key. */
#include "plugin_minimal.h"

static const struct perfsink_key keys[] = {
	{ "url", PERFSINK_KEY_STRING, NULL, "required text", 0, 0, NULL },
	{ NULL, 0, NULL, NULL, 0, 0, NULL },
};

static const struct perfsink_sink_ops ops = {
	.abi_major = PERFSINK_ABI_MAJOR,
	.abi_minor = PERFSINK_ABI_MINOR,
	.struct_size = sizeof(struct perfsink_sink_ops),
	.name = "plain",
	.description = "test sink with a required key",
	.keys = keys,
	STUB_OPS,
};

PERFSINK_DEFINE_SINK(ops)
