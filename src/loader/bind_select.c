/* Which sink instances run (--sink) and where the one file sink writes (-o). */
#include <config.h>

#include <errno.h>
#include <limits.h>
#include <libgen.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_file.h"
#include "loader/bind_priv.h"
#include "config/opts.h"
#include "loader/plugin.h"

static struct sink_conf *sink_by_name(struct bound_sinks *b, const char *name)
{
	for (unsigned i = 0; i < b->nr_sinks; i++)
		if (b->sinks[i].name && !strcmp(b->sinks[i].name, name))
			return &b->sinks[i];
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

/* Replace b->sinks by the instances named in o->sinks, in that order. */
static int sinks_select(struct bound_sinks *b, const struct record_opts *o, char *err, size_t errlen)
{
	struct sink_conf *sel = calloc(o->nr_sinks + 1, sizeof(*sel));
	unsigned n = 0;
	int ret = 0;

	if (!sel)
		return -ENOMEM;
	for (unsigned i = 0; !ret && i < o->nr_sinks; i++) {
		struct sink_conf *s = sink_by_name(b, o->sinks[i]);

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
	for (unsigned i = 0; i < b->nr_sinks; i++)
		sink_conf_clear(&b->sinks[i]);
	free(b->sinks);
	b->sinks = sel;
	b->nr_sinks = n;
	return ret;
}

/*
 * -o -: the file sink -o would set becomes an instance of the pipe sink
 * (perf's pipe format on standard output), with the same name and
 * on_error, as perf record -o - writes its pipe format to stdout.
 */
static int output_to_pipe(struct sink_conf *target, const char *plugin_dir, char *err,
			  size_t errlen)
{
	char why[ERR_MAX / 2];
	struct sink_conf s;
	struct plugin *p;

	if (plugin_load("pipe", plugin_dir, &p, why, sizeof(why))) {
		snprintf(err, errlen, "-o -: the pipe sink writes to standard output: %s", why);
		return -EINVAL;
	}
	if (sink_conf_init(&s, target->name, p, "-o -", why, sizeof(why))) {
		snprintf(err, errlen, "-o -: %s", why);
		sink_conf_clear(&s); /* unloads p */
		return -EINVAL;
	}
	s.on_error = target->on_error;
	s.no_rotate = target->no_rotate;
	sink_conf_clear(target);
	*target = s;
	return 0;
}

static int output_apply(struct bound_sinks *b, const char *output, const char *plugin_dir,
			char *err, size_t errlen)
{
	struct sink_conf *target = NULL;
	char names[ERR_MAX / 2] = "", why[ERR_MAX / 2];
	unsigned nfile = 0;
	int k;

	for (unsigned i = 0; i < b->nr_sinks; i++) {
		if (!(b->sinks[i].plugin->ops->flags & PERFSINK_SINK_WRITES_FILES))
			continue;
		target = &b->sinks[i];
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
	if (!strcmp(output, "-"))
		return output_to_pipe(target, plugin_dir, err, errlen);
	k = key_index(target->plugin->ops->keys, "path");
	if (sink_value_set(target, (unsigned)k, output, "-o", 1, why, sizeof(why))) {
		snprintf(err, errlen, "-o '%s': %s", output, why);
		return -EINVAL;
	}
	return 0;
}

/*
 * path as an absolute name with its directory resolved (the file itself may
 * not exist yet), so "./a.data", "a.data" and "sub/../a.data" compare
 * equal; "" when it cannot be resolved (a sink reports that itself).
 */
static void path_resolve(const char *path, char *out, size_t len)
{
	char dir[PATH_MAX], base[PATH_MAX], real[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", path);
	snprintf(base, sizeof(base), "%s", path);
	out[0] = '\0';
	if (realpath(path, real))
		snprintf(out, len, "%s", real);
	else if (realpath(dirname(dir), real) &&
		 snprintf(out, len, "%s/%s", strcmp(real, "/") ? real : "", basename(base)) >= (int)len)
		out[0] = '\0';
}

static const char *file_path(const struct sink_conf *s)
{
	int k;

	if (!(s->plugin->ops->flags & PERFSINK_SINK_WRITES_FILES))
		return NULL;
	k = key_index(s->plugin->ops->keys, "path");
	return k < 0 ? NULL : s->values[k].str;
}

/* Two sinks writing one file would destroy each other's output. */
static int paths_distinct(const struct bound_sinks *b, char *err, size_t errlen)
{
	char (*real)[PATH_MAX] = calloc(b->nr_sinks + 1, sizeof(*real));

	if (!real)
		return -ENOMEM;
	for (unsigned i = 0; i < b->nr_sinks; i++) {
		const char *p = file_path(&b->sinks[i]);

		if (p)
			path_resolve(p, real[i], sizeof(real[i]));
		for (unsigned j = 0; real[i][0] && j < i; j++) {
			if (strcmp(real[i], real[j]))
				continue;
			snprintf(err, errlen, "%s: [sink.%s] writes the same file as [sink.%s] (%s): %s",
				 b->sinks[i].where, b->sinks[i].name, b->sinks[j].name,
				 b->sinks[j].where, real[i]);
			free(real);
			return -EINVAL;
		}
	}
	free(real);
	return 0;
}

/* The one selected sink that writes files, or NULL (none or several). */
static struct sink_conf *file_sink(struct bound_sinks *b)
{
	struct sink_conf *found = NULL;

	for (unsigned i = 0; i < b->nr_sinks; i++) {
		if (!(b->sinks[i].plugin->ops->flags & PERFSINK_SINK_WRITES_FILES))
			continue;
		if (found)
			return NULL;
		found = &b->sinks[i];
	}
	return found;
}

/*
 * -z LEVEL, as perf record -z writes a COMPRESSED perf.data: the file sink
 * compresses at LEVEL.  The built-in aio_file sink (no --sink) gives way to
 * a zstd one writing its path; a sink named with --sink must be zstd.
 */
static int compression_apply(struct bound_sinks *b, const struct record_opts *o,
			     char *err, size_t errlen)
{
	struct sink_conf *s = file_sink(b), z;
	char level[8], why[ERR_MAX / 2];
	int k;

	if (!s) {
		snprintf(err, errlen, "-z: it compresses the one file output, and %s", b->nr_sinks
			 ? "several selected sinks write files; select one with --sink"
			 : "no selected sink writes files");
		return -EINVAL;
	}
	if (strcmp(s->plugin->ops->name, "zstd")) {
		if (o->nr_sinks) {
			snprintf(err, errlen, "-z: sink '%s' (plugin %s) does not compress; select "
				 "a zstd sink (--sink zstd)", s->name, s->plugin->ops->name);
			return -EINVAL;
		}
		if (sink_from_plugin("zstd", o->plugin_dir, &z, err, errlen))
			return -EINVAL;
		k = key_index(s->plugin->ops->keys, "path");
		if (k >= 0 && s->values[k].str &&
		    sink_value_set(&z, (unsigned)key_index(z.plugin->ops->keys, "path"),
				   s->values[k].str, s->origins[k], 1, why, sizeof(why))) {
			snprintf(err, errlen, "-z: %s", why);
			sink_conf_clear(&z);
			return -EINVAL;
		}
		sink_conf_clear(s);
		*s = z;
	}
	snprintf(level, sizeof(level), "%d", o->pf.compression_level);
	k = key_index(s->plugin->ops->keys, "level");
	if (k < 0 || sink_value_set(s, (unsigned)k, level, "-z", 1, why, sizeof(why))) {
		snprintf(err, errlen, "-z %s: %s", level, k < 0 ? "the zstd sink has no level" : why);
		return -EINVAL;
	}
	return 0;
}

const char *bind_output_path(const struct bound_sinks *b)
{
	struct sink_conf *s = file_sink((struct bound_sinks *)b);

	return s ? file_path(s) : NULL;
}

int bind_select(struct bound_sinks *b, const struct record_opts *o, char *err, size_t errlen)
{
	int ret = 0;

	if (o->nr_sinks)
		ret = sinks_select(b, o, err, errlen);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (!ret && !b->nr_sinks) {
		snprintf(err, errlen, "no sink configured; add a [sink.NAME] section");
		ret = -EINVAL;
	}
	if (!ret && o->pf.compression_level)
		ret = compression_apply(b, o, err, errlen);
	if (!ret && o->output)
		ret = output_apply(b, o->output, o->plugin_dir, err, errlen);
	if (!ret)
		ret = paths_distinct(b, err, errlen);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	return ret ? -EINVAL : 0;
}

