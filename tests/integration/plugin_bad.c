/*
 * Test sinks the loader must refuse, one per BAD_* macro: built several
 * times from this file with a different -D each.
 */
#include "plugin_minimal.h"

static const struct perfsink_key keys[] = {
#ifdef BAD_KEY
	{ "level", PERFSINK_KEY_ENUM, "low", "an enum without choices", 0, 0, NULL },
#endif
	{ NULL, 0, NULL, NULL, 0, 0, NULL },
};

static const struct perfsink_sink_ops ops = {
#ifdef BAD_MAJOR
	.abi_major = PERFSINK_ABI_MAJOR + 1,
#else
	.abi_major = PERFSINK_ABI_MAJOR,
#endif
#ifdef BAD_MINOR
	.abi_minor = PERFSINK_ABI_MINOR + 1,
#else
	.abi_minor = PERFSINK_ABI_MINOR,
#endif
#ifdef BAD_SIZE
	.struct_size = 16,
#else
	.struct_size = sizeof(struct perfsink_sink_ops),
#endif
#ifndef BAD_NONAME
	.name = "bad",
#endif
#ifdef BAD_NOPATH
	.flags = PERFSINK_SINK_WRITES_FILES,
#endif
	.description = "test sink the loader refuses",
	.keys = keys,
	STUB_OPS,
};

#if defined(BAD_NULL)
__attribute__((visibility("default")))
const struct perfsink_sink_ops *perfsink_sink_entry(void);
const struct perfsink_sink_ops *perfsink_sink_entry(void)
{
	return ops.name ? NULL : &ops;
}
#elif defined(BAD_NOSYM)
/* exported, but not under the name the loader looks for */
__attribute__((visibility("default")))
const struct perfsink_sink_ops *perfsink_sink_entry_v0(void);
const struct perfsink_sink_ops *perfsink_sink_entry_v0(void)
{
	return &ops;
}
#else
PERFSINK_DEFINE_SINK(ops)
#endif
