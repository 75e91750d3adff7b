/* One sink instance's values: defaults first, then the user's. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_file.h"
#include "loader/bind_priv.h"
#include "loader/plugin.h"

static unsigned keys_count(const struct perfsink_key *keys)
{
	unsigned n = 0;

	while (keys[n].name)
		n++;
	return n;
}

void sink_conf_clear(struct sink_conf *s)
{
	for (unsigned i = 0; s->values && i < s->nr_values; i++)
		free((char *)s->values[i].str);
	for (unsigned i = 0; s->origins && i < s->nr_values; i++)
		free(s->origins[i]);
	free(s->values);
	free(s->origins);
	free(s->name);
	free(s->where);
	plugin_unload(s->plugin);
	memset(s, 0, sizeof(*s));
}

/* Store text as value i of s (copied). */
int sink_value_set(struct sink_conf *s, unsigned i, const char *text, const char *origin,
		   int set, char *why, size_t whylen)
{
	const struct perfsink_key *k = &s->plugin->ops->keys[i];
	struct perfsink_value v;
	char *copy, *from;

	if (config_parse_value(k, text, &v, why, whylen))
		return -EINVAL;
	copy = strdup(text);
	from = strdup(origin);
	if (!copy || !from) {
		free(copy);
		free(from);
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	free((char *)s->values[i].str);
	free(s->origins[i]);
	s->origins[i] = from;
	s->values[i].str = copy;
	s->values[i].num = v.num;
	s->values[i].set = set;
	return 0;
}

/* A new instance of plugin p with every key at its default; takes p. */
int sink_conf_init(struct sink_conf *s, const char *name, struct plugin *p,
			  const char *where, char *why, size_t whylen)
{
	memset(s, 0, sizeof(*s));
	s->plugin = p;
	s->name = strdup(name);
	s->where = strdup(where);
	s->nr_values = keys_count(p->ops->keys);
	s->values = calloc(s->nr_values + 1, sizeof(*s->values));
	s->origins = calloc(s->nr_values + 1, sizeof(*s->origins));
	if (!s->name || !s->where || !s->values || !s->origins) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	for (unsigned i = 0; i < s->nr_values; i++) {
		const struct perfsink_key *k = &p->ops->keys[i];

		if (k->def && sink_value_set(s, i, k->def, where, 0, why, whylen)) {
			char inner[128];

			snprintf(inner, sizeof(inner), "%.127s", why);
			snprintf(why, whylen, "key '%s': plugin %s has a bad default: %s",
				 k->name, p->ops->name, inner);
			return -EINVAL;
		}
		/* a required key not set yet: the section is where it is missing */
		if (!s->origins[i] && !(s->origins[i] = strdup(where))) {
			snprintf(why, whylen, "out of memory");
			return -ENOMEM;
		}
	}
	return 0;
}


/* Name of the first required key still unset, or NULL. */
const char *sink_missing_key(const struct sink_conf *s)
{
	for (unsigned i = 0; i < s->nr_values; i++)
		if (!s->values[i].str)
			return s->plugin->ops->keys[i].name;
	return NULL;
}
