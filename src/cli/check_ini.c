/*
 * What `perfsink check` prints: the resolved configuration as an INI file
 * that `perfsink record --config` reads back.  Where a value came from
 * (FILE:LINE, an option, "default") is a comment line above it: the config
 * takes no comment after a value, where it would be part of the value.
 * Values that may be credentials are commented out, not shown.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "cli/check_ini.h"
#include "loader/plugin.h"

/* Printed from the resolved options below, not from the text they were set from. */
static const char *const resolved[] = {
	"event", "filter", "exclude-perf", "freq", "count", "call-graph", "mmap-pages", "aio",
	"output", NULL,
};

static bool is_resolved(const char *name)
{
	for (unsigned i = 0; resolved[i]; i++)
		if (!strcmp(resolved[i], name))
			return true;
	return false;
}

/* A tracepoint filter belongs to its -e: [record] has one event line, so one filter. */
static void print_filters(const struct record_opts *o)
{
	const char *f = record_opt_text(o, "filter"), *x = record_opt_text(o, "exclude-perf");

	if (!f && !x)
		return;
	if (o->nr_events > 1) {
		printf("# filter, exclude-perf: given for one of several -e; [record] has one event line\n");
		return;
	}
	if (f)
		printf("filter = %s\n", f);
	if (x)
		printf("exclude-perf = %s\n", x);
}

static void print_record(const struct record_opts *o)
{
	static const char *const cg[] = { "no", "fp", "dwarf" };

	printf("[record]\nevent = ");
	for (unsigned i = 0; i < o->nr_events; i++)
		printf("%s%s", i ? "," : "", o->events[i]);
	putchar('\n');
	print_filters(o);
	if (o->period)
		printf("count = %llu\n", (unsigned long long)o->period);
	else if (o->pf.freq_max)
		printf("freq = max\n");
	else
		printf("freq = %llu\n", (unsigned long long)o->freq);
	printf("call-graph = %s", cg[o->callgraph]);
	if (o->callgraph == CG_DWARF)
		printf(",%u", o->dwarf_stack);
	printf("\nmmap-pages = %u\naio = %u\n", o->mmap_pages, o->aio);
	/* The rest as given (the target after the command line replaced the config's). */
	for (unsigned i = 0; record_opt_names[i]; i++) {
		const char *v = record_opt_text(o, record_opt_names[i]);

		if (v && !is_resolved(record_opt_names[i]))
			printf("%s = %s\n", record_opt_names[i], v);
	}
	if (o->output)
		printf("# output (-o %s): the path of the sink that writes files, below\n", o->output);
	if (o->argv) {
		printf("# command:");
		for (char **a = o->argv; *a; a++)
			printf(" %s", *a);
		putchar('\n');
	}
}

/* Keys whose value itself may be a credential (a key naming a file is not). */
static bool secret(const char *key)
{
	size_t n = strlen(key);

	if (n > 5 && !strcmp(key + n - 5, "_file"))
		return false;
	return strstr(key, "header") || strstr(key, "password") || strstr(key, "token") ||
	       strstr(key, "secret");
}

static void print_sink(const struct sink_conf *c)
{
	const struct plugin *p = c->plugin;
	const struct perfsink_key *k = plugin_keys(p);

	printf("\n# %s\n[sink.%s]\n", c->where, c->name);
	if (p->note)
		printf("# %s: %s\n", p->note, p->path);
	else
		printf("# %s\n", p->path);
	printf("plugin = %s\non_error = %s\nrotate = %s\n", p->name,
	       c->on_error == ON_ERROR_DETACH ? "detach" : "stop", c->no_rotate ? "false" : "true");
	for (unsigned v = 0; k && k[v].name && v < c->nr_values; v++) {
		const char *origin = c->values[v].set ? c->origins[v] : "default";

		if (secret(k[v].name) && c->values[v].str[0])
			printf("# %s: set (%s), not shown\n", k[v].name, origin);
		else
			printf("# %s\n%s = %s\n", origin, k[v].name, c->values[v].str);
	}
}

void check_ini_print(const struct record_opts *o, const struct bound_sinks *b)
{
	printf("# perfsink check: the resolved configuration; perfsink record --config reads it\n");
	print_record(o);
	for (unsigned i = 0; i < b->nr_sinks; i++)
		print_sink(&b->sinks[i]);
}
