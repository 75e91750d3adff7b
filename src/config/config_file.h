/*
 * The INI config (inih): [record] holds recording options (the long option
 * names), each [sink.NAME] section is one sink instance with
 * plugin = NAME|PATH, on_error = stop|detach, and the plugin's own keys.
 * The file's syntax, sections and [record] are checked here; each sink
 * section is kept as read (plain data: its key = value lines and their
 * lines) for loader/bind.h, which loads its plugin and checks its keys.  All
 * of it happens before any event is opened; an error is one line
 * "FILE:LINE: ..." and the caller exits 2.
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

struct record_opts;

/*
 * At most this many [sink.NAME] sections in one config (each sink holds
 * files, threads and buffers); more is an error naming the first one over.
 */
#define CONFIG_MAX_SINKS 64

/* One "key = value" line of a sink section, as written. */
struct config_kv {
	char *key;
	char *value;
	int line;
};

/* One [sink.NAME] section as read, before its plugin is known. */
struct config_section {
	char *name;                   /* NAME of [sink.NAME] */
	int line;                     /* of the section header */
	struct config_kv *kv;
	unsigned nr_kv;
};

struct config {
	char *path;                   /* NULL: the embedded default */
	const char *file;             /* the FILE of "FILE:LINE" messages (static or path) */
	struct config_section *sections;
	unsigned nr_sections;
};

/* Embedded default: one aio_file sink writing ./perf.data. */
extern const char config_default_text[];

/*
 * Load path (NULL: the embedded default) and apply [record] to o as it is
 * read; it ends with record_opts_source_begin(o), so the CLI applied after
 * this wins (its -e replaces the events, its -c undoes a freq).  The sink
 * sections are kept in c->sections, at most CONFIG_MAX_SINKS of them; their
 * plugins are not loaded here.  A --plugin-dir the CLI set on o before this
 * call wins over [record] plugin-dir (o->plugin_dir is where bind_load looks).
 * Returns 0 or -EINVAL with one "FILE:LINE: ..." line in err; on error c is
 * empty (config_free is still allowed).
 */
int config_load(struct config *c, const char *path, struct record_opts *o,
		char *err, size_t errlen);
void config_free(struct config *c);

/*
 * Parse one value for key k (type, min/max, choices); 0 or -EINVAL with the
 * reason in err.  v->str is set to text itself (not copied).
 */
int config_parse_value(const struct perfsink_key *k, const char *text,
		       struct perfsink_value *v, char *err, size_t errlen);

/* Key names are equal, '-' and '_' alike. */
int key_eq(const char *a, const char *b);
/* Index of key name in keys ('-' and '_' alike), or -1. */
int key_index(const struct perfsink_key *keys, const char *name);
/* The first kv whose key is key ('-' and '_' alike), or NULL. */
const struct config_kv *config_kv_find(const struct config_kv *kv, unsigned n, const char *key);

#endif
