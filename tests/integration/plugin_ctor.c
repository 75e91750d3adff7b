/*
 * Test sink "ctor": a plugin whose own code misbehaves while it is loaded,
 * as the environment asks (issue 27, item 17).  PLUGIN_CTOR says what its
 * constructor does: "segv", "abort", "_exit" (status 0), "exit" (status 0);
 * "entry-segv" crashes in perfsink_sink_entry instead.  With
 * PLUGIN_CTOR_PID set, only the process of that pid misbehaves (perfsink
 * itself, not a child that loads the plugin first).  Unset: a do-nothing
 * sink that loads.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "plugin_minimal.h"

static const struct perfsink_key keys[] = {
	{ NULL, 0, NULL, NULL, 0, 0, NULL },
};

static const struct perfsink_sink_ops ops = {
	.abi_major = PERFSINK_ABI_MAJOR,
	.abi_minor = PERFSINK_ABI_MINOR,
	.struct_size = sizeof(struct perfsink_sink_ops),
	.name = "ctor",
	.description = "test sink that misbehaves while it is loaded",
	.keys = keys,
	STUB_OPS,
};

/* What this process was asked to do, or NULL. */
static const char *asked(void)
{
	const char *what = getenv("PLUGIN_CTOR"), *pid = getenv("PLUGIN_CTOR_PID");

	if (pid && atol(pid) != (long)getpid())
		return NULL;
	return what;
}

static void crash(void)
{
	*(volatile int *)(uintptr_t)8 = 1;
}

__attribute__((constructor)) static void ctor(void)
{
	const char *what = asked();

	if (!what)
		return;
	if (!strcmp(what, "segv"))
		crash();
	else if (!strcmp(what, "abort"))
		abort();
	else if (!strcmp(what, "_exit"))
		_exit(0);
	else if (!strcmp(what, "exit"))
		exit(0);
}

__attribute__((visibility("default"))) const struct perfsink_sink_ops *perfsink_sink_entry(void);
const struct perfsink_sink_ops *perfsink_sink_entry(void)
{
	const char *what = asked();

	if (what && !strcmp(what, "entry-segv"))
		crash();
	return &ops;
}
