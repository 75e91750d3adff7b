/*
 * Where perf's build-id cache is: see kit.h.  The same rule as
 * src/base/buildid_dir.c (buildid_cache_dir), by which the engine fills that
 * cache while recording (probe/buildid_cache.c) and fetch reads it; the kit
 * may not include src/, so the rule is written twice and
 * tests/unit/test_buildid_cache.c checks that the two give the same
 * directory in every case.
 */
#include <perfsink/kit.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

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

/*
 * One perf config file, opened for its buildid.dir: a regular file owned by
 * root or the effective uid, as perf reads ~/.perfconfig ("File %s not
 * owned by current user or root, ignoring it"): under root, HOME may be
 * another user's (sudo -E), whose config must not choose where root
 * writes.  NULL when absent or refused (*owner: the other owner, else -1).
 */
static FILE *perfconfig_open(const char *path, long *owner)
{
	/* O_NONBLOCK: a FIFO planted there must not hang the open. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	FILE *f;

	*owner = -1;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		*owner = (long)st.st_uid;
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f)
		close(fd);
	return f;
}

/*
 * buildid.dir ("[buildid]" section, "dir = PATH") of one perf config file
 * into out; *owner as perfconfig_open says.
 */
static void perfconfig_dir(const char *path, char *out, size_t len, long *owner)
{
	FILE *f = perfconfig_open(path, owner);
	char line[PATH_MAX + 64];
	int in_buildid = 0;

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

int perfsink_kit_buildid_cache_dir(char *out, size_t len)
{
	const char *home = getenv("HOME"), *only = getenv("PERF_CONFIG");
	char set[PATH_MAX] = "", user[PATH_MAX];
	long owner;
	int n;

	/* perf's order: $PERF_CONFIG alone, else /etc/perfconfig then ~/.perfconfig. */
	if (only) {
		perfconfig_dir(only, set, sizeof(set), &owner);
	} else {
		perfconfig_dir("/etc/perfconfig", set, sizeof(set), &owner);
		if (home && home[0] && snprintf(user, sizeof(user), "%s/.perfconfig", home) < (int)sizeof(user))
			perfconfig_dir(user, set, sizeof(set), &owner);
	}
	if (set[0])
		n = snprintf(out, len, "%s", set);
	else if (home && home[0])
		n = snprintf(out, len, "%s/.debug", home);
	else
		n = snprintf(out, len, ".debug");
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}
