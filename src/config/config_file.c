/*
 * The INI config, parsed with inih.  inih is driven through our own line
 * reader so that we know the line of every error, see section headers (inih
 * hides them and cuts long names), and refuse over-long lines instead of
 * letting inih cut them.  [record] is applied as it is read; sink sections are
 * kept as read (loader/bind.c loads their plugins and checks their keys).
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfsink/kit.h>

#include "config/config_file.h"
#include "config/opts.h"
#include "config/config_priv.h"
#include "config/value_parse.h"

#define CONFIG_MAX_LINE 4096   /* characters of one line, newline excluded */
#define SECTION_NAME_MAX 49    /* inih keeps 50 bytes of a section name */
#define DEFAULT_FILE_NAME "(built-in default config)"
#define SINK_PREFIX "sink."

const char config_default_text[] =
	"# The built-in config: one file sink with its defaults: uring_file where\n"
	"# io_uring works, aio_file elsewhere (docs/BENCHMARKS.md, issue 30).\n"
	"[sink.default]\n"
	"plugin = file\n";

enum section_kind { SEC_NONE, SEC_RECORD, SEC_SINK };

/* Names of the [sink.NAME] sections read so far: indexes into sinks, by hash. */
struct name_index {
	unsigned *slot; /* index + 1; 0 is free */
	size_t cap;     /* a power of two, at most half full */
};

struct cfg_parse {
	const char *file;
	FILE *fp;
	char *buf;
	size_t cap;
	int lineno;
	int failed;            /* an error is in err (only the first is kept) */
	char err[ERR_MAX];
	struct record_opts *o;
	enum section_kind sec;
	char sec_name[SECTION_NAME_MAX + 1];
	int sec_line;
	unsigned sec_entries;
	int record_line;       /* line of [record], 0 if not seen */
	struct config_kv *rec_kv; /* [record] entries, for duplicate detection */
	unsigned nr_rec_kv;
	struct config_section *sinks;
	unsigned nr_sinks, cap_sinks;
	struct name_index names;
};

static void __attribute__((format(printf, 3, 4)))
cfg_error(struct cfg_parse *st, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (st->failed)
		return;
	st->failed = 1;
	n = snprintf(st->err, sizeof(st->err), "%s:%d: ", st->file, line);
	if (n < 0 || (size_t)n >= sizeof(st->err))
		return;
	va_start(ap, fmt);
	vsnprintf(st->err + n, sizeof(st->err) - (size_t)n, fmt, ap);
	va_end(ap);
}


const struct config_kv *config_kv_find(const struct config_kv *kv, unsigned n, const char *key)
{
	for (unsigned i = 0; i < n; i++)
		if (key_eq(kv[i].key, key))
			return &kv[i];
	return NULL;
}

static int kv_add(struct config_kv **kv, unsigned *n, const char *key, const char *value, int line)
{
	struct config_kv *v = realloc(*kv, (*n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	*kv = v;
	v[*n].line = line;
	v[*n].key = strdup(key);
	v[*n].value = strdup(value);
	(*n)++;
	return v[*n - 1].key && v[*n - 1].value ? 0 : -ENOMEM;
}

static void kv_free(struct config_kv *kv, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}

/* ------------------------------------------------------------- sections */

static void section_end(struct cfg_parse *st)
{
	if (st->sec != SEC_NONE && !st->sec_entries)
		cfg_error(st, st->sec_line, "section [%s] is empty%s", st->sec_name,
			  st->sec == SEC_SINK ? "; it needs at least 'plugin = NAME'" : "");
}

static int instance_name_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') &&
		    !(*s >= '0' && *s <= '9') && *s != '_' && *s != '-')
			return 0;
	return 1;
}

static size_t name_hash(const char *s)
{
	size_t h = 1469598103934665603ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* Slot of name in st->names: where it is, or the free slot where it goes. */
static unsigned *name_slot(struct cfg_parse *st, const char *name)
{
	size_t mask = st->names.cap - 1, i = name_hash(name) & mask;

	while (st->names.slot[i] && strcmp(st->sinks[st->names.slot[i] - 1].name, name))
		i = (i + 1) & mask;
	return &st->names.slot[i];
}

/* Room for one more name, keeping the table at most half full. */
static int names_grow(struct cfg_parse *st)
{
	struct name_index old = st->names;

	if ((st->nr_sinks + 1) * 2 <= old.cap)
		return 0;
	st->names.cap = old.cap ? old.cap * 2 : 64;
	st->names.slot = calloc(st->names.cap, sizeof(*st->names.slot));
	if (!st->names.slot) {
		st->names = old;
		return -ENOMEM;
	}
	for (size_t i = 0; i < old.cap; i++)
		if (old.slot[i])
			*name_slot(st, st->sinks[old.slot[i] - 1].name) = old.slot[i];
	free(old.slot);
	return 0;
}

static int sinks_grow(struct cfg_parse *st)
{
	struct config_section *s;
	unsigned cap = st->cap_sinks ? st->cap_sinks * 2 : 8;

	if (st->nr_sinks < st->cap_sinks)
		return 0;
	s = realloc(st->sinks, cap * sizeof(*s));
	if (!s)
		return -ENOMEM;
	st->sinks = s;
	st->cap_sinks = cap;
	return 0;
}

/* Linear in the number of sections: a config of 100000 is read in well under a second. */
static void sink_section_begin(struct cfg_parse *st, const char *name)
{
	struct config_section *s;
	unsigned *slot;

	if (!instance_name_ok(name)) {
		cfg_error(st, st->lineno, "section [%s]: bad instance name '%s'; use letters, "
			  "digits, '_' and '-'", st->sec_name, name);
		return;
	}
	if (names_grow(st) || sinks_grow(st)) {
		cfg_error(st, st->lineno, "out of memory");
		return;
	}
	slot = name_slot(st, name);
	if (*slot) {
		cfg_error(st, st->lineno, "duplicate section [%s] (first at line %d)",
			  st->sec_name, st->sinks[*slot - 1].line);
		return;
	}
	s = &st->sinks[st->nr_sinks];
	*s = (struct config_section){ .name = strdup(name), .line = st->lineno };
	if (!s->name) {
		cfg_error(st, st->lineno, "out of memory");
		return;
	}
	*slot = ++st->nr_sinks;
	st->sec = SEC_SINK;
}

/* A "[...]" line; inih sees it too but tells us nothing about it. */
static void section_begin(struct cfg_parse *st, const char *line)
{
	const char *close = strchr(line, ']');
	size_t len;

	section_end(st);
	if (!close) {
		cfg_error(st, st->lineno, "section header without ']'");
		return;
	}
	if (close[1 + strspn(close + 1, " \t")]) {
		cfg_error(st, st->lineno, "unexpected text after ']'");
		return;
	}
	len = (size_t)(close - line - 1);
	if (len > SECTION_NAME_MAX) {
		cfg_error(st, st->lineno, "section name too long (%zu characters, at most %d)",
			  len, SECTION_NAME_MAX);
		return;
	}
	memcpy(st->sec_name, line + 1, len);
	st->sec_name[len] = '\0';
	st->sec_line = st->lineno;
	st->sec_entries = 0;
	if (!strcmp(st->sec_name, "record")) {
		if (st->record_line)
			cfg_error(st, st->lineno, "duplicate section [record] (first at line %d)",
				  st->record_line);
		st->record_line = st->lineno;
		st->sec = SEC_RECORD;
	} else if (!strncmp(st->sec_name, SINK_PREFIX, strlen(SINK_PREFIX))) {
		sink_section_begin(st, st->sec_name + strlen(SINK_PREFIX));
	} else {
		cfg_error(st, st->lineno, "unknown section [%s]; accepted: [record], [sink.NAME]",
			  st->sec_name);
	}
}

/* ---------------------------------------------------------- inih glue */

/* Checks inih cannot do, on one line without its newline; sets st's error. */
static void line_check(struct cfg_parse *st, const char *p)
{
	p += strspn(p, " \t");
	if (*p == '[') {
		section_begin(st, p);
		return;
	}
	/* inih also splits at ':'; "url: http://x" must not become a key "url" */
	if (*p && !strchr("#;", *p) && p[strcspn(p, "=:")] == ':')
		cfg_error(st, st->lineno, "expected 'key = value'; ':' does not separate a key "
			  "from its value");
}

/* fgets for inih: counts lines, refuses long ones, tracks sections. */
static char *cfg_reader(char *str, int num, void *stream)
{
	struct cfg_parse *st = stream;
	char *line;
	ssize_t len;

	if (st->failed)
		return NULL;
	len = getline(&st->buf, &st->cap, st->fp);
	if (len < 0)
		return NULL;
	st->lineno++;
	line = st->buf;
	if (st->lineno == 1 && len >= 3 && !memcmp(line, "\xef\xbb\xbf", 3)) {
		line += 3; /* UTF-8 byte order mark */
		len -= 3;
	}
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = '\0';
	if (len > CONFIG_MAX_LINE || len + 2 > num) {
		cfg_error(st, st->lineno, "line too long (%zd characters, at most %d)",
			  len, CONFIG_MAX_LINE);
		return NULL;
	}
	if (strlen(line) != (size_t)len) {
		cfg_error(st, st->lineno, "NUL byte in line");
		return NULL;
	}
	line_check(st, line);
	if (st->failed)
		return NULL;
	memcpy(str, line, (size_t)len);
	str[len] = '\n';
	str[len + 1] = '\0';
	return str;
}

static int record_entry(struct cfg_parse *st, const char *key, const char *value)
{
	char why[ERR_MAX / 2];
	int ret;

	ret = record_opt_set(st->o, key, value, why, sizeof(why));
	if (ret == -ENOENT) {
		char names[512] = "";

		for (unsigned i = 0; record_opt_names[i]; i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 i ? ", " : "", record_opt_names[i]);
		cfg_error(st, st->lineno, "[record], key '%s': unknown key; accepted: %s", key, names);
	} else if (ret) {
		cfg_error(st, st->lineno, "[record], key '%s': %s", key, why);
	}
	return ret;
}

static int cfg_handler(void *user, const char *section, const char *key, const char *value)
{
	struct cfg_parse *st = user;
	struct config_kv **kv = &st->rec_kv;
	unsigned *nr = &st->nr_rec_kv;
	const struct config_kv *dup;

	(void)section; /* inih cuts long names; ours is in st->sec_name */
	if (st->sec == SEC_NONE) {
		cfg_error(st, st->lineno, "key '%s' outside any section; put it under [record] "
			  "or [sink.NAME]", key);
		return 0;
	}
	if (!*key) {
		cfg_error(st, st->lineno, "[%s]: empty key name", st->sec_name);
		return 0;
	}
	if (st->sec == SEC_SINK) {
		kv = &st->sinks[st->nr_sinks - 1].kv;
		nr = &st->sinks[st->nr_sinks - 1].nr_kv;
	}
	dup = config_kv_find(*kv, *nr, key);
	if (dup) {
		cfg_error(st, st->lineno, "[%s], key '%s': set twice (first at line %d)",
			  st->sec_name, key, dup->line);
		return 0;
	}
	st->sec_entries++;
	if (kv_add(kv, nr, key, value, st->lineno)) {
		cfg_error(st, st->lineno, "out of memory");
		return 0;
	}
	if (st->sec == SEC_RECORD && record_entry(st, key, value))
		return 0;
	return 1;
}

/* inih's options are process globals; set them for our syntax each time. */
static void inih_configure(void)
{
	ini_max_line = CONFIG_MAX_LINE + 2; /* room for '\n' and NUL */
	ini_use_stack = 1;
	ini_allow_realloc = 0;
	ini_allow_multiline = 0;
	ini_allow_inline_comments = 0; /* a ';' in a URL is data */
	ini_allow_no_value = 0;
	ini_allow_bom = 0; /* cfg_reader drops it */
	ini_stop_on_first_error = 1;
}

static int cfg_parse_run(struct cfg_parse *st)
{
	int line;

	inih_configure();
	line = ini_parse_stream(cfg_reader, st, cfg_handler, st);
	if (!st->failed && line > 0)
		cfg_error(st, line, "syntax error: expected '[section]', 'key = value' or a "
			  "comment ('#' or ';' first on the line)");
	if (!st->failed && line < 0)
		cfg_error(st, st->lineno, "out of memory");
	if (!st->failed && ferror(st->fp))
		cfg_error(st, st->lineno, "read error: %s", strerror(errno));
	section_end(st);
	return st->failed ? -EINVAL : 0;
}

/* ------------------------------------------------------------ sinks */

/* Hand the sink sections to c as read; the loader binds them to plugins. */
static int sections_keep(struct cfg_parse *st, struct config *c)
{
	if (st->nr_sinks > CONFIG_MAX_SINKS) {
		cfg_error(st, st->sinks[CONFIG_MAX_SINKS].line, "[sink.%s]: too many sinks: %u "
			  "[sink.NAME] sections, at most %d", st->sinks[CONFIG_MAX_SINKS].name,
			  st->nr_sinks, CONFIG_MAX_SINKS);
		return -EINVAL;
	}
	c->sections = st->sinks;
	c->nr_sections = st->nr_sinks;
	st->sinks = NULL;
	st->nr_sinks = 0;
	return 0;
}

static void cfg_parse_free(struct cfg_parse *st)
{
	for (unsigned i = 0; i < st->nr_sinks; i++) {
		free(st->sinks[i].name);
		kv_free(st->sinks[i].kv, st->sinks[i].nr_kv);
	}
	free(st->sinks);
	free(st->names.slot);
	kv_free(st->rec_kv, st->nr_rec_kv);
	free(st->buf);
	if (st->fp)
		fclose(st->fp);
}

/* NULL with the reason in why.  A FIFO or a link planted at path is refused, never waited on. */
static FILE *cfg_open(const char *path, char *why, size_t n)
{
	FILE *f;
	int fd;

	if (!path) {
		if (!(f = fmemopen((void *)config_default_text, strlen(config_default_text), "r")))
			snprintf(why, n, "cannot read the built-in config: %s", strerror(errno));
		return f;
	}
	fd = perfsink_kit_input_open(AT_FDCWD, path, "read config", why, n);
	if (fd < 0)
		return NULL;
	if (!(f = fdopen(fd, "r"))) {
		snprintf(why, n, "cannot read config '%s': %s", path, strerror(errno));
		close(fd);
	}
	return f;
}

int config_load(struct config *c, const char *path, struct record_opts *o,
		char *err, size_t errlen)
{
	struct cfg_parse st = { .file = path ? path : DEFAULT_FILE_NAME, .o = o };
	char *cli_plugin_dir = o->plugin_dir;
	int ret;

	memset(c, 0, sizeof(*c));
	st.fp = cfg_open(path, err, errlen);
	if (!st.fp)
		return -EINVAL;
	/* a --plugin-dir the CLI set before us wins over [record] plugin-dir */
	o->plugin_dir = NULL;
	ret = cfg_parse_run(&st);
	record_opts_source_begin(o); /* what comes next (the CLI) wins */
	if (cli_plugin_dir) {
		free(o->plugin_dir);
		o->plugin_dir = cli_plugin_dir;
	}
	if (!ret)
		ret = sections_keep(&st, c);
	if (!ret && path && !(c->path = strdup(path))) {
		cfg_error(&st, 0, "out of memory");
		ret = -ENOMEM;
	}
	c->file = c->path ? c->path : DEFAULT_FILE_NAME;
	if (ret) {
		snprintf(err, errlen, "%s", st.err);
		config_free(c);
	}
	cfg_parse_free(&st);
	return ret ? -EINVAL : 0;
}

void config_free(struct config *c)
{
	for (unsigned i = 0; c->sections && i < c->nr_sections; i++) {
		free(c->sections[i].name);
		kv_free(c->sections[i].kv, c->sections[i].nr_kv);
	}
	free(c->sections);
	free(c->path);
	memset(c, 0, sizeof(*c));
}
