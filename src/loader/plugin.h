/*
 * Loading sink plugins with dlopen.  A plugin is found by name in, in order:
 * the --plugin-dir / plugin_dir directory, the build tree when perfsink runs
 * from it (<exe dir>/../plugins/NAME/.libs/NAME.so), and $(pkglibdir).
 * A name containing '/' is a path.  An alias ("file") loads the first of
 * its sinks (uring_file, then aio_file) that loads and whose ops->available
 * says it works here; plugin->note then says which and why.  Refused: missing file, a file that
 * plugin_trust.h does not trust (owner, group/world-writable file or
 * directory), a missing entry symbol, an ABI mismatch.
 */
#ifndef PS_PLUGIN_H
#define PS_PLUGIN_H
#include <perfsink/sink.h>

struct plugin {
	char *name;  /* as requested */
	char *path;  /* resolved file */
	void *dl;
	const struct perfsink_sink_ops *ops;
	char *note;  /* an alias: "uring_file for plugin = file[; why not the first]"; else NULL */
};

/*
 * dlopen (RTLD_NOW | RTLD_LOCAL) and check the plugin.  Returns 0, or with a
 * one-line reason in err: -ENOENT no file (err lists where it looked),
 * -EPERM an untrusted file (plugin_trust.h), -EPROTO abi_major differs, abi_minor is newer
 * than the host's or struct_size is too small, -EINVAL anything else (not a
 * regular file, dlopen error, no entry symbol, entry returned NULL, no name,
 * no open/start/write/barrier/close, no keys table, a key with a bad type,
 * an ENUM without choices, a key named "plugin" or "on_error", or
 * PERFSINK_SINK_WRITES_FILES without a "path" key), -ENOMEM.
 */
int plugin_load(const char *name, const char *extra_dir, struct plugin **out,
		char *err, size_t errlen);
void plugin_unload(struct plugin *p);
/* What the plugin says of itself, for `perfsink sinks` and `check` (never its ops). */
static inline const char *plugin_sink_name(const struct plugin *p)
{
	return p->ops->name;
}
static inline const char *plugin_description(const struct plugin *p)
{
	return p->ops->description;
}
/* Its key table, ended by a key with no name. */
static inline const struct perfsink_key *plugin_keys(const struct plugin *p)
{
	return p->ops->keys;
}
/*
 * Names of the plugins in the search path (NAME of NAME.so), sorted, without
 * duplicates and without loading them; for `perfsink sinks`.  The caller
 * frees each name and the array.
 */
int plugin_list(const char *extra_dir, char ***names, unsigned *n);

#endif
