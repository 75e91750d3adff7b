/*
 * The PMUs of /sys/bus/event_source/devices for PMU_MAPPINGS, PMU_CAPS and
 * CPU_PMU_CAPS, read as perf 6.1 reads them (tools/perf/util/pmu.c
 * pmu_read_sysfs, perf_pmu__caps_parse): directory order, which is the
 * order perf's list keeps them in and writes them.
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/machine_priv.h"
#include "probe/sysfs_line.h"

#define SYS_PMUS "/sys/bus/event_source/devices"

static int cap_add(struct ps_pmu *p, const char *name, const char *value)
{
	char **v = realloc(p->caps, (2 * p->nr_caps + 2) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->caps = v;
	v[2 * p->nr_caps] = strdup(name);
	v[2 * p->nr_caps + 1] = strdup(value);
	p->nr_caps++;
	return v[2 * p->nr_caps - 2] && v[2 * p->nr_caps - 1] ? 0 : -ENOMEM;
}

/* caps/<name> files, value = first line; a PMU without caps/ has none. */
static int caps_read(struct ps_pmu *p)
{
	char dir[512], path[1024], value[256];
	snprintf(dir, sizeof(dir), SYS_PMUS "/%s/caps", p->name);
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct dirent *de;
	int r = 0;
	while (!r && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (machine_read_line(path, value, sizeof(value)))
			r = cap_add(p, de->d_name, value);
	}
	closedir(d);
	return r;
}

static int pmu_add(struct ps_machine *m, const char *name, uint32_t type)
{
	struct ps_pmu *v = realloc(m->pmus, (m->nr_pmus + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	m->pmus = v;
	struct ps_pmu *p = &v[m->nr_pmus];
	*p = (struct ps_pmu){ .type = type, .name = strdup(name) };
	m->nr_pmus++;
	return p->name ? caps_read(p) : -ENOMEM;
}

int machine_pmus_read(struct ps_machine *m)
{
	char path[512], buf[32];
	DIR *d = opendir(SYS_PMUS);
	if (!d)
		return 0;
	struct dirent *de;
	int r = 0;
	while (!r && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		/* perf skips a PMU whose type it cannot read. */
		snprintf(path, sizeof(path), SYS_PMUS "/%s/type", de->d_name);
		if (machine_read_line(path, buf, sizeof(buf)))
			r = pmu_add(m, de->d_name, (uint32_t)strtoul(buf, NULL, 10));
	}
	closedir(d);
	return r;
}

void machine_pmus_free(struct ps_machine *m)
{
	for (uint32_t i = 0; i < m->nr_pmus; i++) {
		for (uint32_t c = 0; c < 2 * m->pmus[i].nr_caps; c++)
			free(m->pmus[i].caps[c]);
		free(m->pmus[i].caps);
		free(m->pmus[i].name);
	}
	free(m->pmus);
}
