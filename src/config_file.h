/*
 * The INI config (inih): [record] holds recording options (the long option
 * names), each [sink.NAME] section is one sink instance with
 * plugin = NAME|PATH, on_error = stop|detach, and the plugin's own keys.
 * Everything is validated here, before any event is opened; an error is one
 * line "FILE:LINE: ..." and the caller exits 2.
 */
#ifndef PS_CONFIG_FILE_H
#define PS_CONFIG_FILE_H
#include <perfsink/sink.h>

struct plugin;
struct record_opts;

enum on_error { ON_ERROR_STOP = 0, ON_ERROR_DETACH };

struct sink_conf {
	char *name;                   /* instance name */
	struct plugin *plugin;
	struct perfsink_value *values; /* one per plugin key */
	unsigned nr_values;
	enum on_error on_error;
	char *where;                  /* "FILE:LINE" of the section, for messages */
};

struct config {
	char *path;                   /* NULL: the embedded default */
	struct sink_conf *sinks;
	unsigned nr_sinks;
};

/* Embedded default: one aio_file sink writing ./perf.data. */
extern const char config_default_text[];

/*
 * Load path (NULL: embedded default) and apply [record] to o (values the
 * CLI set explicitly win: apply the CLI after this).  Then keep only the
 * sinks named in o->sinks, if any (an unknown name that is a plugin gives a
 * default instance of it), and apply -o to the one sink that writes files.
 * Returns 0 or -EINVAL with the message in err.
 */
int config_load(struct config *c, const char *path, struct record_opts *o,
		char *err, size_t errlen);
/* Second half, after the CLI: sink selection and -o. */
int config_select(struct config *c, const struct record_opts *o, char *err, size_t errlen);
void config_free(struct config *c);

/* Parse one value for key k; 0 or -EINVAL with reason in err. */
int config_parse_value(const struct perfsink_key *k, const char *text,
		       struct perfsink_value *v, char *err, size_t errlen);

#endif
