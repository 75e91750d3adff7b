/*
 * Binding the config's sink sections to their plugins: load each section's
 * plugin (loader/plugin.h), check its keys against the plugin's key table and
 * parse its values; then select the instances the CLI names (--sink) and
 * apply -o.  Errors are one line in err, "FILE:LINE: ..." for a section
 * (the same lines config_load gives for the file itself), "--sink '...': ..."
 * or "-o '...': ..." for the command line; the caller exits 2.
 */
#ifndef PS_BIND_H
#define PS_BIND_H
#include <stddef.h>
#include <perfsink/sink.h>

struct config;
struct plugin;
struct record_opts;

enum on_error { ON_ERROR_STOP = 0, ON_ERROR_DETACH };

/* One sink instance: a section (or --sink NAME) bound to its plugin. */
struct sink_conf {
	char *name;                   /* instance name */
	struct plugin *plugin;
	struct perfsink_value *values; /* one per plugin key */
	unsigned nr_values;
	enum on_error on_error;
	int no_rotate;                /* rotate = false: one output for the whole run */
	char *where;                  /* "FILE:LINE" of the section, for messages */
	/*
	 * Per value: "FILE:LINE" of the line that set it, where for a default,
	 * the option ("-o") when the CLI set it.  Never NULL after init.
	 */
	char **origins;
};

/* The sink instances of a run; owns their plugins. */
struct bound_sinks {
	struct sink_conf *sinks;
	unsigned nr_sinks;
};

/*
 * Load the plugin of every section of c (searched in plugin_dir first, see
 * plugin.h) and check all its keys.  Returns 0 or -EINVAL with one
 * "FILE:LINE: ..." line in err; on error b is empty (bind_free is still
 * allowed).
 */
int bind_load(struct bound_sinks *b, const struct config *c, const char *plugin_dir,
	      char *err, size_t errlen);
/*
 * Second half, after the CLI: keep only the instances named in o->sinks, in
 * that order (a name that is no instance but a plugin gives a default
 * instance of it, named after ops->name); then, if o->output is set, set the
 * "path" key of the one selected instance whose plugin has
 * PERFSINK_SINK_WRITES_FILES (none or several: an error).  No sink left is an
 * error, and so are two selected sinks whose "path" (resolved: directory
 * real path + file name) is the same file.  Returns 0 or -EINVAL with one line in err ("--sink 'x': ...").
 */
int bind_select(struct bound_sinks *b, const struct record_opts *o, char *err, size_t errlen);
/* The path of the one selected sink that writes files; NULL when none or several. */
const char *bind_output_path(const struct bound_sinks *b);
void bind_free(struct bound_sinks *b);

#endif
