/* Tracepoint globs over tracefs and PMU types from sysfs; see tracefs_glob.h. */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/tracefs_glob.h"
#include "probe/tracing_data.h"

#define PMU_DIR "/sys/bus/event_source/devices"

static bool entry_ok(const struct dirent *de)
{
	return de->d_name[0] != '.' && de->d_type != DT_REG;
}

/* Every event of one system that matches; count of matches or fn's return. */
static int system_glob(const char *root, const char *sys, const char *name_glob,
		       int (*fn)(void *, const char *, const char *), void *arg)
{
	char path[PATH_MAX];
	struct dirent *de;
	int n = 0, r = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/events/%s", root, sys);
	d = opendir(path);
	if (!d)
		return 0;
	while (!r && (de = readdir(d))) {
		if (!entry_ok(de) || fnmatch(name_glob, de->d_name, 0))
			continue;
		r = fn(arg, sys, de->d_name);
		n++;
	}
	closedir(d);
	return r ? r : n;
}

int tracefs_glob(const char *sys_glob, const char *name_glob,
		 int (*fn)(void *arg, const char *sys, const char *name), void *arg)
{
	const char *root = tracefs_root();
	char path[PATH_MAX];
	struct dirent *de;
	int n = 0, r = 0;
	DIR *d;

	if (!root)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/events", root);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!entry_ok(de) || fnmatch(sys_glob, de->d_name, 0))
			continue;
		r = system_glob(root, de->d_name, name_glob, fn, arg);
		if (r < 0)
			break;
		n += r;
	}
	closedir(d);
	return r < 0 ? r : n;
}

int64_t pmu_type(const char *name)
{
	char path[PATH_MAX];
	long long type;
	FILE *f;
	int ok;

	if (!*name || strchr(name, '/') || name[0] == '.')
		return -ENOENT;
	snprintf(path, sizeof(path), PMU_DIR "/%s/type", name);
	f = fopen(path, "r");
	if (!f)
		return -ENOENT;
	ok = fscanf(f, "%lld", &type) == 1 && type >= 0;
	fclose(f);
	return ok ? type : -ENOENT;
}
