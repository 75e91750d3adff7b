/* perf's build-id cache directory: see buildid_dir.h. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "base/buildid_dir.h"

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && strchr(" \t\r\n", e[-1]))
		*--e = '\0';
	return s;
}

/* buildid.dir ("[buildid]" section, "dir = PATH") of one perf config file into out. */
static void perfconfig_dir(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "re");
	char line[PATH_MAX + 64];
	bool in_buildid = false;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *l = trim(line), *eq;

		if (*l == '[') {
			in_buildid = !strncasecmp(l, "[buildid]", 9);
		} else if (in_buildid && (eq = strchr(l, '='))) {
			*eq = '\0';
			if (!strcasecmp(trim(l), "dir") && *trim(eq + 1))
				snprintf(out, len, "%s", trim(eq + 1));
		}
	}
	fclose(f);
}

int buildid_cache_dir(char *out, size_t len)
{
	const char *home = getenv("HOME"), *only = getenv("PERF_CONFIG");
	char set[PATH_MAX] = "", user[PATH_MAX];
	int n;

	/* perf's order: $PERF_CONFIG alone, else /etc/perfconfig then ~/.perfconfig. */
	if (only) {
		perfconfig_dir(only, set, sizeof(set));
	} else {
		perfconfig_dir("/etc/perfconfig", set, sizeof(set));
		if (home && home[0] && snprintf(user, sizeof(user), "%s/.perfconfig", home) < (int)sizeof(user))
			perfconfig_dir(user, set, sizeof(set));
	}
	if (set[0])
		n = snprintf(out, len, "%s", set);
	else if (home && home[0])
		n = snprintf(out, len, "%s/.debug", home);
	else
		n = snprintf(out, len, ".debug");
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}
