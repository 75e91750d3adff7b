/*
 * The INI config (inih): [record] holds recording options (the long option
 * names), each [sink.NAME] section is one sink instance with
 * plugin = NAME|PATH, on_error = stop|detach, and the plugin's own keys.
 * Everything is validated here, before any event is opened; an error is one
 * line "FILE:LINE: ..." and the caller exits 2.
 *
 * Syntax (inih 55 driven with fixed options, see config_file.c):
 *   - lines of at most 4096 characters; a longer one is an error, never cut;
 *   - '#' or ';' starts a comment only as the first character of a line:
 *     "url = http://h/a;b" keeps its ';', and quotes are data;
 *   - "key = value" only ("key: value" is refused), no continuation lines;
 *   - '_' and '-' are the same in key names; instance names are letters,
 *     digits, '_' and '-'; a section name is at most 49 characters;
 *   - an empty section, an unknown section or key, a key set twice and a
 *     duplicate section are errors; CRLF line ends and a UTF-8 BOM are fine;
 *   - at most CONFIG_MAX_SINKS [sink.NAME] sections; reading is linear in
 *     the number of sections, so a huge file is refused quickly.
 * Not thread-safe: inih's options are process globals set by config_load().
 */
#ifndef PS_CONFIG_FILE_H
#define PS_CONFIG_FILE_H
#include <perfsink/sink.h>

struct plugin;
struct record_opts;

enum on_error { ON_ERROR_STOP = 0, ON_ERROR_DETACH };

/*
 * At most this many [sink.NAME] sections in one config (each sink holds
 * files, threads and buffers); more is an error naming the first one over.
 */
#define CONFIG_MAX_SINKS 64

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

struct config {
	char *path;                   /* NULL: the embedded default */
	struct sink_conf *sinks;
	unsigned nr_sinks;
};

/* Embedded default: one aio_file sink writing ./perf.data. */
extern const char config_default_text[];

/*
 * Load path (NULL: the embedded default) and apply [record] to o as it is
 * read; it ends with record_opts_source_begin(o), so the CLI applied after
 * this wins (its -e replaces the events, its -c undoes a freq).  Then load
 * every sink's plugin and
 * check its keys.  Plugins are searched in o->plugin_dir: a --plugin-dir the
 * CLI set on o before this call wins over [record] plugin-dir.
 * Returns 0 or -EINVAL with one "FILE:LINE: ..." line in err; on error c is
 * empty (config_free is still allowed).
 */
int config_load(struct config *c, const char *path, struct record_opts *o,
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
int config_select(struct config *c, const struct record_opts *o, char *err, size_t errlen);
void config_free(struct config *c);

/*
 * Parse one value for key k (type, min/max, choices); 0 or -EINVAL with the
 * reason in err.  v->str is set to text itself (not copied).
 */
int config_parse_value(const struct perfsink_key *k, const char *text,
		       struct perfsink_value *v, char *err, size_t errlen);

#endif
