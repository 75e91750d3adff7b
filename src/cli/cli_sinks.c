/* perfsink sinks: every plugin in the search path, its description and keys. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "engine/engine.h"
#include "base/log.h"
#include "loader/plugin.h"

static void print_key(const struct perfsink_key *k)
{
	static const char *const types[] = { "", "string", "int", "size", "bool", "enum", "duration", "path" };
	const char *type = k->type < sizeof(types) / sizeof(types[0]) ? types[k->type] : "?";
	printf("    %-18s %-8s %-14s %s", k->name, type, k->def ? k->def : "(required)",
	       k->description ? k->description : "");
	if (k->type == PERFSINK_KEY_ENUM && k->choices)
		printf(" [%s]", k->choices);
	else if ((k->type == PERFSINK_KEY_INT || k->type == PERFSINK_KEY_SIZE) && k->max)
		printf(" [%lld..%lld]", (long long)k->min, (long long)k->max);
	else if ((k->type == PERFSINK_KEY_INT || k->type == PERFSINK_KEY_SIZE) && k->min)
		printf(" [%lld..]", (long long)k->min);
	putchar('\n');
}

int cmd_sinks(int argc, char **argv)
{
	const char *dir = NULL;
	if (argc > 2 && !strcmp(argv[1], "--plugin-dir"))
		dir = argv[2];
	else if (argc > 1) {
		fputs("usage: perfsink sinks [--plugin-dir DIR]\n", argc > 1 && !strcmp(argv[1], "--help") ? stdout : stderr);
		return argc > 1 && !strcmp(argv[1], "--help") ? 0 : EXIT_BAD_INPUT;
	}
	char **names = NULL;
	unsigned n = 0;
	int r = plugin_list(dir, &names, &n);
	if (r < 0) {
		pr_err("sinks: cannot list plugins: %s", strerror(-r));
		return 1;
	}
	printf("Sinks (each [sink.NAME] section sets plugin = one of these, or file: uring_file\n"
	       "where io_uring works, else aio_file; and may set on_error = stop|detach and\n"
	       "rotate = true|false):\n");
	int code = 0;
	for (unsigned i = 0; i < n; i++) {
		struct plugin *p;
		char err[512];
		if (plugin_load(names[i], dir, &p, err, sizeof(err)) < 0) {
			printf("\n  %s: cannot load: %s\n", names[i], err);
			code = 1;
		} else {
			printf("\n  %s - %s\n    %s\n", plugin_sink_name(p), plugin_description(p), p->path);
			for (const struct perfsink_key *k = plugin_keys(p); k && k->name; k++)
				print_key(k);
			plugin_unload(p);
		}
		free(names[i]);
	}
	free(names);
	return code;
}

