/*
 * The INI config, parsed with inih.  inih is driven through our own line
 * reader so that we know the line of every error, see section headers (inih
 * hides them and cuts long names), and refuse over-long lines instead of
 * letting inih cut them.  [record] is applied as it is read; sink sections are
 * collected, then each one's plugin is loaded and its keys are checked.
 */
#include <config.h>

#include <errno.h>
#include <ini.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_file.h"
#include "opts.h"
#include "plugin.h"
#include "value_parse.h"

#define CONFIG_MAX_LINE 4096   /* characters of one line, newline excluded */
#define SECTION_NAME_MAX 49    /* inih keeps 50 bytes of a section name */
#define ERR_MAX 1024
#define DEFAULT_FILE_NAME "(built-in default config)"
#define SINK_PREFIX "sink."

const char config_default_text[] =
	"# The built-in config: one file sink with its defaults.\n"
	"[sink.default]\n"
	"plugin = aio_file\n";

struct raw_kv {
	char *key;
	char *value;
	int line;
};

/* One [sink.NAME] section as read, before its plugin is known. */
struct raw_sink {
	char *name;
	int line;
	struct raw_kv *kv;
	unsigned nr_kv;
};

enum section_kind { SEC_NONE, SEC_RECORD, SEC_SINK };

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
	struct raw_kv *rec_kv; /* [record] entries, for duplicate detection */
	unsigned nr_rec_kv;
	struct raw_sink *sinks;
	unsigned nr_sinks;
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

/* '_' and '-' are the same in key names. */
static int key_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char ca = *a == '_' ? '-' : *a, cb = *b == '_' ? '-' : *b;

		if (ca != cb)
			return 0;
	}
	return *a == *b;
}

static const struct raw_kv *kv_find(const struct raw_kv *kv, unsigned n, const char *key)
{
	for (unsigned i = 0; i < n; i++)
		if (key_eq(kv[i].key, key))
			return &kv[i];
	return NULL;
}

static int kv_add(struct raw_kv **kv, unsigned *n, const char *key, const char *value, int line)
{
	struct raw_kv *v = realloc(*kv, (*n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	*kv = v;
	v[*n].line = line;
	v[*n].key = strdup(key);
	v[*n].value = strdup(value);
	(*n)++;
	return v[*n - 1].key && v[*n - 1].value ? 0 : -ENOMEM;
}

static void kv_free(struct raw_kv *kv, unsigned n)
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

static void sink_section_begin(struct cfg_parse *st, const char *name)
{
	struct raw_sink *s;

	if (!instance_name_ok(name)) {
		cfg_error(st, st->lineno, "section [%s]: bad instance name '%s'; use letters, "
			  "digits, '_' and '-'", st->sec_name, name);
		return;
	}
	for (unsigned i = 0; i < st->nr_sinks; i++) {
		if (!strcmp(st->sinks[i].name, name)) {
			cfg_error(st, st->lineno, "duplicate section [%s] (first at line %d)",
				  st->sec_name, st->sinks[i].line);
			return;
		}
	}
	s = realloc(st->sinks, (st->nr_sinks + 1) * sizeof(*s));
	if (!s || !(s[st->nr_sinks].name = strdup(name))) {
		if (s)
			st->sinks = s;
		cfg_error(st, st->lineno, "out of memory");
		return;
	}
	st->sinks = s;
	s[st->nr_sinks].line = st->lineno;
	s[st->nr_sinks].kv = NULL;
	s[st->nr_sinks].nr_kv = 0;
	st->nr_sinks++;
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
	struct raw_kv **kv = &st->rec_kv;
	unsigned *nr = &st->nr_rec_kv;
	const struct raw_kv *dup;

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
	dup = kv_find(*kv, *nr, key);
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

/* ---------------------------------------------------------- key values */

static void range_text(char *buf, size_t len, int64_t min, int64_t max, const char *unit)
{
	if (max)
		snprintf(buf, len, "from %" PRId64 " to %" PRId64 "%s", min, max, unit);
	else
		snprintf(buf, len, "from %" PRId64 "%s", min, unit);
}

static int unsigned_in_range(const struct perfsink_key *k, const char *text, uint64_t v,
			     const char *unit, struct perfsink_value *out, char *err, size_t errlen)
{
	char range[96];

	if (v > INT64_MAX || (int64_t)v < k->min || (k->max && (int64_t)v > k->max)) {
		range_text(range, sizeof(range), k->min, k->max, unit);
		snprintf(err, errlen, "'%s' is out of range; accepted: %s", text, range);
		return -EINVAL;
	}
	out->num = (int64_t)v;
	return 0;
}

static void choices_text(char *buf, size_t len, const char *choices)
{
	size_t j = 0;

	for (const char *c = choices; *c && j + 3 < len; c++) {
		if (*c == '|') {
			buf[j++] = ',';
			buf[j++] = ' ';
		} else {
			buf[j++] = *c;
		}
	}
	buf[j] = '\0';
}

int config_parse_value(const struct perfsink_key *k, const char *text,
		       struct perfsink_value *v, char *err, size_t errlen)
{
	char buf[256];
	uint64_t u;
	bool b;
	int idx;

	v->str = text;
	v->num = 0;
	switch (k->type) {
	case PERFSINK_KEY_STRING:
		return 0;
	case PERFSINK_KEY_PATH:
		if (*text)
			return 0;
		snprintf(err, errlen, "empty path");
		return -EINVAL;
	case PERFSINK_KEY_INT:
		if (!parse_int(text, k->min, k->max ? k->max : INT64_MAX, &v->num))
			return 0;
		range_text(buf, sizeof(buf), k->min, k->max, "");
		snprintf(err, errlen, "'%s' is not an integer %s (decimal or 0x hex)", text, buf);
		return -EINVAL;
	case PERFSINK_KEY_SIZE:
		if (!parse_size(text, &u))
			return unsigned_in_range(k, text, u, " bytes", v, err, errlen);
		snprintf(err, errlen, "'%s' is not a size; give bytes with an optional K, M, G or "
			 "T suffix (e.g. 4096, 16K, 2M)", text);
		return -EINVAL;
	case PERFSINK_KEY_DURATION:
		if (!parse_duration_ms(text, &u))
			return unsigned_in_range(k, text, u, " ms", v, err, errlen);
		snprintf(err, errlen, "'%s' is not a duration; give a number with an optional "
			 "unit ms, s, m or h (e.g. 250ms, 10s, 1.5m; no unit: seconds)", text);
		return -EINVAL;
	case PERFSINK_KEY_BOOL:
		if (!parse_bool(text, &b)) {
			v->num = b;
			return 0;
		}
		snprintf(err, errlen, "'%s' is not a boolean; accepted: true, false, yes, no, "
			 "on, off, 1, 0", text);
		return -EINVAL;
	case PERFSINK_KEY_ENUM:
		idx = parse_enum(text, k->choices);
		if (idx >= 0) {
			v->num = idx;
			return 0;
		}
		choices_text(buf, sizeof(buf), k->choices);
		snprintf(err, errlen, "'%s' is not accepted; accepted: %s", text, buf);
		return -EINVAL;
	}
	snprintf(err, errlen, "key type %d is unknown", (int)k->type);
	return -EINVAL;
}

/* ------------------------------------------------------------ sinks */

static unsigned keys_count(const struct perfsink_key *keys)
{
	unsigned n = 0;

	while (keys[n].name)
		n++;
	return n;
}

static void sink_conf_clear(struct sink_conf *s)
{
	for (unsigned i = 0; s->values && i < s->nr_values; i++)
		free((char *)s->values[i].str);
	free(s->values);
	free(s->name);
	free(s->where);
	plugin_unload(s->plugin);
	memset(s, 0, sizeof(*s));
}

/* Store text as value i of s (copied). */
static int sink_value_set(struct sink_conf *s, unsigned i, const char *text, int set,
			  char *why, size_t whylen)
{
	const struct perfsink_key *k = &s->plugin->ops->keys[i];
	struct perfsink_value v;
	char *copy;

	if (config_parse_value(k, text, &v, why, whylen))
		return -EINVAL;
	copy = strdup(text);
	if (!copy) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	free((char *)s->values[i].str);
	s->values[i].str = copy;
	s->values[i].num = v.num;
	s->values[i].set = set;
	return 0;
}

/* A new instance of plugin p with every key at its default; takes p. */
static int sink_conf_init(struct sink_conf *s, const char *name, struct plugin *p,
			  const char *where, char *why, size_t whylen)
{
	memset(s, 0, sizeof(*s));
	s->plugin = p;
	s->name = strdup(name);
	s->where = strdup(where);
	s->nr_values = keys_count(p->ops->keys);
	s->values = calloc(s->nr_values + 1, sizeof(*s->values));
	if (!s->name || !s->where || !s->values) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	for (unsigned i = 0; i < s->nr_values; i++) {
		const struct perfsink_key *k = &p->ops->keys[i];

		if (k->def && sink_value_set(s, i, k->def, 0, why, whylen)) {
			char inner[128];

			snprintf(inner, sizeof(inner), "%.127s", why);
			snprintf(why, whylen, "key '%s': plugin %s has a bad default: %s",
				 k->name, p->ops->name, inner);
			return -EINVAL;
		}
	}
	return 0;
}

/* Name of the first required key still unset, or NULL. */
static const char *sink_missing_key(const struct sink_conf *s)
{
	for (unsigned i = 0; i < s->nr_values; i++)
		if (!s->values[i].str)
			return s->plugin->ops->keys[i].name;
	return NULL;
}

static int key_index(const struct perfsink_key *keys, const char *name)
{
	for (int i = 0; keys[i].name; i++)
		if (key_eq(keys[i].name, name))
			return i;
	return -1;
}

static void keys_text(char *buf, size_t len, const struct perfsink_key *keys)
{
	snprintf(buf, len, "plugin, on_error");
	for (unsigned i = 0; keys[i].name; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), ", %s", keys[i].name);
}

/* One user-set key of a sink section. */
static int sink_key_apply(struct cfg_parse *st, struct sink_conf *s, const struct raw_kv *kv)
{
	const char *what = st->sec_name;
	char why[ERR_MAX / 2];
	int i, oe;

	if (key_eq(kv->key, "plugin"))
		return 0;
	if (key_eq(kv->key, "on_error")) {
		oe = parse_enum(kv->value, "stop|detach");
		if (oe < 0) {
			cfg_error(st, kv->line, "[%s], key '%s': '%s' is not accepted; accepted: "
				  "stop, detach", what, kv->key, kv->value);
			return -EINVAL;
		}
		s->on_error = oe ? ON_ERROR_DETACH : ON_ERROR_STOP;
		return 0;
	}
	i = key_index(s->plugin->ops->keys, kv->key);
	if (i < 0) {
		keys_text(why, sizeof(why), s->plugin->ops->keys);
		cfg_error(st, kv->line, "[%s], key '%s': unknown key for plugin %s; accepted: %s",
			  what, kv->key, s->plugin->ops->name, why);
		return -EINVAL;
	}
	if (sink_value_set(s, (unsigned)i, kv->value, 1, why, sizeof(why))) {
		cfg_error(st, kv->line, "[%s], key '%s': %s", what, kv->key, why);
		return -EINVAL;
	}
	return 0;
}

/* Load the plugin of one raw section and check all its keys. */
static int sink_resolve(struct cfg_parse *st, const struct raw_sink *r, struct sink_conf *s)
{
	const struct raw_kv *pk = kv_find(r->kv, r->nr_kv, "plugin");
	char why[ERR_MAX / 2], where[ERR_MAX / 2];
	struct plugin *p;
	const char *missing;

	snprintf(st->sec_name, sizeof(st->sec_name), SINK_PREFIX "%s", r->name);
	if (!pk) {
		cfg_error(st, r->line, "[%s], key 'plugin': missing; give a plugin name (e.g. "
			  "aio_file) or a path to a .so", st->sec_name);
		return -EINVAL;
	}
	if (plugin_load(pk->value, st->o->plugin_dir, &p, why, sizeof(why))) {
		cfg_error(st, pk->line, "[%s], key 'plugin': %s", st->sec_name, why);
		return -EINVAL;
	}
	snprintf(where, sizeof(where), "%s:%d", st->file, r->line);
	if (sink_conf_init(s, r->name, p, where, why, sizeof(why))) {
		cfg_error(st, pk->line, "[%s], %s", st->sec_name, why);
		return -EINVAL;
	}
	for (unsigned i = 0; i < r->nr_kv; i++)
		if (sink_key_apply(st, s, &r->kv[i]))
			return -EINVAL;
	missing = sink_missing_key(s);
	if (missing) {
		cfg_error(st, r->line, "[%s], key '%s': missing; plugin %s requires it",
			  st->sec_name, missing, p->ops->name);
		return -EINVAL;
	}
	return 0;
}

static int sinks_resolve(struct cfg_parse *st, struct config *c)
{
	c->sinks = calloc(st->nr_sinks + 1, sizeof(*c->sinks));
	if (!c->sinks) {
		cfg_error(st, 0, "out of memory");
		return -ENOMEM;
	}
	for (unsigned i = 0; i < st->nr_sinks; i++) {
		c->nr_sinks++;
		if (sink_resolve(st, &st->sinks[i], &c->sinks[i]))
			return -EINVAL;
	}
	return 0;
}

static void cfg_parse_free(struct cfg_parse *st)
{
	for (unsigned i = 0; i < st->nr_sinks; i++) {
		free(st->sinks[i].name);
		kv_free(st->sinks[i].kv, st->sinks[i].nr_kv);
	}
	free(st->sinks);
	kv_free(st->rec_kv, st->nr_rec_kv);
	free(st->buf);
	if (st->fp)
		fclose(st->fp);
}

static FILE *cfg_open(const char *path)
{
	if (!path)
		return fmemopen((void *)config_default_text, strlen(config_default_text), "r");
	return fopen(path, "r");
}

int config_load(struct config *c, const char *path, struct record_opts *o,
		char *err, size_t errlen)
{
	struct cfg_parse st = { .file = path ? path : DEFAULT_FILE_NAME, .o = o };
	char *cli_plugin_dir = o->plugin_dir;
	int ret;

	memset(c, 0, sizeof(*c));
	st.fp = cfg_open(path);
	if (!st.fp) {
		snprintf(err, errlen, "%s: cannot open config: %s", st.file, strerror(errno));
		return -EINVAL;
	}
	/* a --plugin-dir the CLI set before us wins over [record] plugin-dir */
	o->plugin_dir = NULL;
	ret = cfg_parse_run(&st);
	record_opts_source_begin(o); /* what comes next (the CLI) wins */
	if (cli_plugin_dir) {
		free(o->plugin_dir);
		o->plugin_dir = cli_plugin_dir;
	}
	if (!ret)
		ret = sinks_resolve(&st, c);
	if (!ret && path && !(c->path = strdup(path))) {
		cfg_error(&st, 0, "out of memory");
		ret = -ENOMEM;
	}
	if (ret) {
		snprintf(err, errlen, "%s", st.err);
		config_free(c);
	}
	cfg_parse_free(&st);
	return ret ? -EINVAL : 0;
}

/* --------------------------------------------------------- selection */

static struct sink_conf *sink_by_name(struct config *c, const char *name)
{
	for (unsigned i = 0; i < c->nr_sinks; i++)
		if (c->sinks[i].name && !strcmp(c->sinks[i].name, name))
			return &c->sinks[i];
	return NULL;
}

/* --sink NAME that is not an instance: a default instance of plugin NAME. */
static int sink_from_plugin(const char *name, const char *plugin_dir, struct sink_conf *s,
			    char *err, size_t errlen)
{
	char why[ERR_MAX / 2];
	struct plugin *p;
	const char *missing;
	int ret;

	ret = plugin_load(name, plugin_dir, &p, why, sizeof(why));
	if (ret == -ENOENT && !strchr(name, '/')) {
		snprintf(err, errlen, "--sink '%s': no such sink instance or plugin", name);
		return -EINVAL;
	}
	if (ret) {
		snprintf(err, errlen, "--sink '%s': %s", name, why);
		return -EINVAL;
	}
	if (sink_conf_init(s, p->ops->name, p, "--sink", why, sizeof(why))) {
		snprintf(err, errlen, "--sink '%s': %s", name, why);
		return -EINVAL;
	}
	missing = sink_missing_key(s);
	if (missing) {
		snprintf(err, errlen, "--sink '%s': plugin %s requires key '%s'; configure it in "
			 "a [sink.NAME] section", name, p->ops->name, missing);
		return -EINVAL;
	}
	return 0;
}

static int name_seen(char *const *names, unsigned n, const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return 1;
	return 0;
}

/* Replace c->sinks by the instances named in o->sinks, in that order. */
static int sinks_select(struct config *c, const struct record_opts *o, char *err, size_t errlen)
{
	struct sink_conf *sel = calloc(o->nr_sinks + 1, sizeof(*sel));
	unsigned n = 0;
	int ret = 0;

	if (!sel)
		return -ENOMEM;
	for (unsigned i = 0; !ret && i < o->nr_sinks; i++) {
		struct sink_conf *s = sink_by_name(c, o->sinks[i]);

		if (name_seen(o->sinks, i, o->sinks[i]))
			continue; /* --sink x --sink x */
		if (s) {
			sel[n] = *s;
			memset(s, 0, sizeof(*s)); /* moved */
		} else {
			ret = sink_from_plugin(o->sinks[i], o->plugin_dir, &sel[n], err, errlen);
		}
		n++;
		for (unsigned j = 0; !ret && j + 1 < n; j++) {
			if (!strcmp(sel[j].name, sel[n - 1].name)) {
				snprintf(err, errlen, "--sink '%s': a sink instance named '%s' is "
					 "already selected", o->sinks[i], sel[n - 1].name);
				ret = -EINVAL;
			}
		}
	}
	for (unsigned i = 0; i < c->nr_sinks; i++)
		sink_conf_clear(&c->sinks[i]);
	free(c->sinks);
	c->sinks = sel;
	c->nr_sinks = n;
	return ret;
}

static int output_apply(struct config *c, const char *output, char *err, size_t errlen)
{
	struct sink_conf *target = NULL;
	char names[ERR_MAX / 2] = "", why[ERR_MAX / 2];
	unsigned nfile = 0;
	int k;

	for (unsigned i = 0; i < c->nr_sinks; i++) {
		if (!(c->sinks[i].plugin->ops->flags & PERFSINK_SINK_WRITES_FILES))
			continue;
		target = &c->sinks[i];
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 nfile++ ? ", " : "", target->name);
	}
	if (nfile != 1) {
		if (nfile)
			snprintf(err, errlen, "-o '%s': several selected sinks write files (%s); set "
				 "'path' in their sections or select one with --sink", output, names);
		else
			snprintf(err, errlen, "-o '%s': no selected sink writes files", output);
		return -EINVAL;
	}
	k = key_index(target->plugin->ops->keys, "path");
	if (sink_value_set(target, (unsigned)k, output, 1, why, sizeof(why))) {
		snprintf(err, errlen, "-o '%s': %s", output, why);
		return -EINVAL;
	}
	return 0;
}

int config_select(struct config *c, const struct record_opts *o, char *err, size_t errlen)
{
	int ret = 0;

	if (o->nr_sinks)
		ret = sinks_select(c, o, err, errlen);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (!ret && !c->nr_sinks) {
		snprintf(err, errlen, "no sink configured; add a [sink.NAME] section");
		ret = -EINVAL;
	}
	if (!ret && o->output)
		ret = output_apply(c, o->output, err, errlen);
	return ret ? -EINVAL : 0;
}

void config_free(struct config *c)
{
	for (unsigned i = 0; c->sinks && i < c->nr_sinks; i++)
		sink_conf_clear(&c->sinks[i]);
	free(c->sinks);
	free(c->path);
	memset(c, 0, sizeof(*c));
}
