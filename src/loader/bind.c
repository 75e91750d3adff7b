/*
 * The config's sink sections bound to their plugins: each section's plugin
 * is loaded, then every key of the section is checked against its key table.
 * Messages name the config's FILE:LINE, as config_load does for the file.
 */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_file.h"
#include "config/value_parse.h"
#include "loader/bind_priv.h"
#include "loader/plugin.h"

#define SINK_PREFIX "sink."

/* One section being bound: where its messages point. */
struct bind_ctx {
	const char *file;
	char sec_name[64];     /* "sink.NAME" */
	char *err;
	size_t errlen;
};

static void __attribute__((format(printf, 3, 4)))
bind_error(struct bind_ctx *bc, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(bc->err, bc->errlen, "%s:%d: ", bc->file, line);
	if (n < 0 || (size_t)n >= bc->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(bc->err + n, bc->errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

static void keys_text(char *buf, size_t len, const struct perfsink_key *keys)
{
	snprintf(buf, len, "plugin, on_error, rotate");
	for (unsigned i = 0; keys[i].name; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), ", %s", keys[i].name);
}

/* One user-set key of a sink section. */
static int sink_key_apply(struct bind_ctx *bc, struct sink_conf *s, const struct config_kv *kv)
{
	const char *what = bc->sec_name;
	char why[ERR_MAX / 2], where[ERR_MAX / 2];
	int i, oe;

	if (key_eq(kv->key, "plugin"))
		return 0;
	if (key_eq(kv->key, "on_error")) {
		oe = parse_enum(kv->value, "stop|detach");
		if (oe < 0) {
			bind_error(bc, kv->line, "[%s], key '%s': '%s' is not accepted; accepted: "
				   "stop, detach", what, kv->key, kv->value);
			return -EINVAL;
		}
		s->on_error = oe ? ON_ERROR_DETACH : ON_ERROR_STOP;
		return 0;
	}
	if (key_eq(kv->key, "rotate")) {
		bool b;
		if (parse_bool(kv->value, &b)) {
			bind_error(bc, kv->line, "[%s], key '%s': '%s' is not a boolean; accepted: "
				   "true, false, yes, no, on, off, 1, 0", what, kv->key, kv->value);
			return -EINVAL;
		}
		s->no_rotate = !b;
		return 0;
	}
	i = key_index(s->plugin->ops->keys, kv->key);
	if (i < 0) {
		keys_text(why, sizeof(why), s->plugin->ops->keys);
		bind_error(bc, kv->line, "[%s], key '%s': unknown key for plugin %s; accepted: %s",
			   what, kv->key, s->plugin->ops->name, why);
		return -EINVAL;
	}
	snprintf(where, sizeof(where), "%s:%d", bc->file, kv->line);
	if (sink_value_set(s, (unsigned)i, kv->value, where, 1, why, sizeof(why))) {
		bind_error(bc, kv->line, "[%s], key '%s': %s", what, kv->key, why);
		return -EINVAL;
	}
	return 0;
}

/* Load the plugin of one section and check all its keys. */
static int section_bind(struct bind_ctx *bc, const struct config_section *r, const char *plugin_dir,
			struct sink_conf *s)
{
	const struct config_kv *pk = config_kv_find(r->kv, r->nr_kv, "plugin");
	char why[ERR_MAX / 2], where[ERR_MAX / 2];
	struct plugin *p;
	const char *missing;

	snprintf(bc->sec_name, sizeof(bc->sec_name), SINK_PREFIX "%s", r->name);
	if (!pk) {
		bind_error(bc, r->line, "[%s], key 'plugin': missing; give a plugin name (e.g. "
			   "aio_file) or a path to a .so", bc->sec_name);
		return -EINVAL;
	}
	if (plugin_load(pk->value, plugin_dir, &p, why, sizeof(why))) {
		bind_error(bc, pk->line, "[%s], key 'plugin': %s", bc->sec_name, why);
		return -EINVAL;
	}
	snprintf(where, sizeof(where), "%s:%d", bc->file, r->line);
	if (sink_conf_init(s, r->name, p, where, why, sizeof(why))) {
		bind_error(bc, pk->line, "[%s], %s", bc->sec_name, why);
		return -EINVAL;
	}
	for (unsigned i = 0; i < r->nr_kv; i++)
		if (sink_key_apply(bc, s, &r->kv[i]))
			return -EINVAL;
	missing = sink_missing_key(s);
	if (missing) {
		bind_error(bc, r->line, "[%s], key '%s': missing; plugin %s requires it",
			   bc->sec_name, missing, p->ops->name);
		return -EINVAL;
	}
	return 0;
}

int bind_load(struct bound_sinks *b, const struct config *c, const char *plugin_dir,
	      char *err, size_t errlen)
{
	struct bind_ctx bc = { .file = c->file, .err = err, .errlen = errlen };

	memset(b, 0, sizeof(*b));
	b->sinks = calloc(c->nr_sections + 1, sizeof(*b->sinks));
	if (!b->sinks) {
		bind_error(&bc, 0, "out of memory");
		return -EINVAL;
	}
	for (unsigned i = 0; i < c->nr_sections; i++) {
		b->nr_sinks++;
		if (section_bind(&bc, &c->sections[i], plugin_dir, &b->sinks[i])) {
			bind_free(b);
			return -EINVAL;
		}
	}
	return 0;
}

void bind_free(struct bound_sinks *b)
{
	for (unsigned i = 0; b->sinks && i < b->nr_sinks; i++)
		sink_conf_clear(&b->sinks[i]);
	free(b->sinks);
	memset(b, 0, sizeof(*b));
}
