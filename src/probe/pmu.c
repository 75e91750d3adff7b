/* Hardware PMUs and the perf_event cgroup controller, from sysfs and /proc. */
#include <config.h>

#include <dirent.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

#include "probe/pmu.h"

#define PMU_DIR "/sys/bus/event_source/devices"

static int pmu_type(const char *name)
{
	char path[512];
	int type = -1;
	FILE *f;

	snprintf(path, sizeof(path), PMU_DIR "/%s/type", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &type) != 1)
		type = -1;
	fclose(f);
	return type;
}

/* First PMU that match() accepts; its name into what. */
static bool pmu_find(bool (*match)(const char *name), char *what, size_t len)
{
	DIR *d = opendir(PMU_DIR);
	struct dirent *de;
	bool found = false;

	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] != '.' && match(de->d_name)) {
			snprintf(what, len, "PMU %s", de->d_name);
			found = true;
		}
	}
	closedir(d);
	return found;
}

static bool is_core(const char *name)
{
	return pmu_type(name) == PERF_TYPE_RAW;
}

static bool is_aux(const char *name)
{
	return !strcmp(name, "intel_pt") || !strcmp(name, "intel_bts") ||
	       !strcmp(name, "cs_etm") || !strncmp(name, "arm_spe", 7);
}

bool pmu_core_present(char *what, size_t len)
{
	if (pmu_find(is_core, what, len))
		return true;
	snprintf(what, len, "no PMU of type %d (PERF_TYPE_RAW) in " PMU_DIR, PERF_TYPE_RAW);
	return false;
}

bool pmu_aux_present(char *what, size_t len)
{
	if (pmu_find(is_aux, what, len))
		return true;
	snprintf(what, len, "no intel_pt, intel_bts, cs_etm or arm_spe in " PMU_DIR);
	return false;
}

bool cgroup_perf_event_present(char *what, size_t len)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/self/mounts", "r");

	if (!f) {
		snprintf(what, len, "/proc/self/mounts unreadable");
		return false;
	}
	while (!found && fgets(line, sizeof(line), f)) {
		char dev[128], dir[256], type[32], opts[256];

		if (sscanf(line, "%127s %255s %31s %255s", dev, dir, type, opts) != 4)
			continue;
		if (!strcmp(type, "cgroup2") ||
		    (!strcmp(type, "cgroup") && strstr(opts, "perf_event"))) {
			snprintf(what, len, "%s at %s", type, dir);
			found = true;
		}
	}
	fclose(f);
	if (!found)
		snprintf(what, len, "neither cgroup2 nor a cgroup v1 perf_event hierarchy is "
			 "mounted");
	return found;
}
