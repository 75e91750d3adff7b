/*
 * Where perf's build-id cache is: see kit.h.  The one copy of the rule: the
 * engine fills that cache while recording (engine/cache_step.c), fetch
 * fills it from a collector, and the sinks read it (symbols.c, the http
 * sink's symbol shipper), so all find the directory perf report reads.
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

#include "text.h"

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
		char *l = kit_trim(line), *eq;

		if (*l == '[') {
			in_buildid = !strncasecmp(l, "[buildid]", 9);
		} else if (in_buildid && (eq = strchr(l, '='))) {
			*eq = '\0';
			if (!strcasecmp(kit_trim(l), "dir") && *kit_trim(eq + 1))
				snprintf(out, len, "%s", kit_trim(eq + 1));
		}
	}
	fclose(f);
}

/* The first config file refused, for the note. */
static void note_ignored(char *note, size_t nlen, const char *path, long owner)
{
	if (note && nlen && !note[0] && owner >= 0)
		snprintf(note, nlen, "ignoring %s: it belongs to uid %ld, neither root nor uid %u who "
			 "runs this (as perf does)", path, owner, (unsigned)geteuid());
}

int perfsink_kit_buildid_cache_dir_note(char *out, size_t len, char *note, size_t nlen)
{
	const char *home = getenv("HOME"), *only = getenv("PERF_CONFIG");
	char set[PATH_MAX] = "", user[PATH_MAX];
	long owner;
	int n;

	if (note && nlen)
		note[0] = '\0';
	/* perf's order: $PERF_CONFIG alone, else /etc/perfconfig then ~/.perfconfig. */
	if (only) {
		perfconfig_dir(only, set, sizeof(set), &owner);
		note_ignored(note, nlen, only, owner);
	} else {
		perfconfig_dir("/etc/perfconfig", set, sizeof(set), &owner);
		note_ignored(note, nlen, "/etc/perfconfig", owner);
		if (home && home[0] && snprintf(user, sizeof(user), "%s/.perfconfig", home) < (int)sizeof(user)) {
			perfconfig_dir(user, set, sizeof(set), &owner);
			note_ignored(note, nlen, user, owner);
		}
	}
	if (set[0])
		n = snprintf(out, len, "%s", set);
	else if (home && home[0])
		n = snprintf(out, len, "%s/.debug", home);
	else
		n = snprintf(out, len, ".debug");
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int perfsink_kit_buildid_cache_dir(char *out, size_t len)
{
	return perfsink_kit_buildid_cache_dir_note(out, len, NULL, 0);
}
