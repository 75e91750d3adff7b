/*
 * Loading sink plugins with dlopen.  A plugin is found by name in, in order:
 * the --plugin-dir / plugin_dir directory, the build tree when perfsink runs
 * from it (<exe dir>/../plugins/NAME/.libs/NAME.so), and $(pkglibdir).
 * A name containing '/' is a path.  Refused: missing file, a world-writable
 * file, a missing entry symbol, an ABI mismatch.
 */
#ifndef PS_PLUGIN_H
#define PS_PLUGIN_H
#include <perfsink/sink.h>

struct plugin {
	char *name;  /* as requested */
	char *path;  /* resolved file */
	void *dl;
	const struct perfsink_sink_ops *ops;
};

/* Returns 0 or a negative errno with a one-line reason in err. */
int plugin_load(const char *name, const char *extra_dir, struct plugin **out,
		char *err, size_t errlen);
void plugin_unload(struct plugin *p);
/* Every plugin found in the search path, for `perfsink sinks`. */
int plugin_list(const char *extra_dir, char ***names, unsigned *n);

#endif
