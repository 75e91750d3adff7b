/*
 * The machine facts perf.data's header records, read the way perf 6.1 reads
 * them (tools/perf/util/header.c, cpumap.c, arch/x86/util/header.c).
 */
#include <config.h>

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define HAVE_X86_CPUID 1
#endif

#include "probe/machine.h"
#include "probe/machine_priv.h"
#include "probe/sysfs_line.h"

#define SYS_CPU "/sys/devices/system/cpu"

static int read_int(const char *path, int def)
{
	char buf[32];
	if (!machine_read_line(path, buf, sizeof(buf)))
		return def;
	char *end;
	long v = strtol(buf, &end, 10);
	return end == buf ? def : (int)v;
}

/* Highest CPU number in a sysfs cpu list ("0-3,8"), or -1. */
static int cpulist_max(const char *list)
{
	int max = -1;
	for (const char *p = list; *p;) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p)
			break;
		if (v > max)
			max = (int)v;
		p = end;
		while (*p == '-' || *p == ',')
			p++;
	}
	return max;
}

/* Whether cpu is in a sysfs cpu list. */
static bool cpulist_has(const char *list, int cpu)
{
	for (const char *p = list; *p;) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;
		if (end == p)
			return false;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			p = end;
		}
		if (cpu >= lo && cpu <= hi)
			return true;
		while (*p == ',')
			p++;
	}
	return false;
}

/* perf's nr_cpus_avail: highest present CPU + 1. */
static uint32_t cpus_avail(void)
{
	char list[256];
	int max = machine_read_line(SYS_CPU "/present", list, sizeof(list)) ? cpulist_max(list) : -1;
	if (max < 0) {
		long n = sysconf(_SC_NPROCESSORS_CONF);
		return n > 0 ? (uint32_t)n : 1;
	}
	return (uint32_t)max + 1;
}

static uint32_t cpus_online(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (uint32_t)n : 1;
}

/* Value of the first "key : value" line of /proc/cpuinfo, whitespace squeezed. */
static bool cpuinfo_value(const char *key, char *out, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	if (!f)
		return false;
	char line[512];
	bool found = false;
	size_t klen = strlen(key);
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) || !strchr(" \t:", line[klen]))
			continue;
		char *v = strchr(line, ':');
		if (!v)
			continue;
		size_t n = 0;
		bool space = true; /* drops leading blanks */
		for (v++; *v && *v != '\n' && n + 1 < len; v++) {
			bool is_space = *v == ' ' || *v == '\t';
			if (!is_space || !space)
				out[n++] = is_space ? ' ' : *v;
			space = is_space;
		}
		while (n && out[n - 1] == ' ')
			n--;
		out[n] = '\0';
		found = true;
	}
	fclose(f);
	return found;
}

static void cpudesc_read(char *out, size_t len)
{
	/* x86, then powerpc/s390/arm spellings of the same line. */
	static const char *const keys[] = { "model name", "cpu model", "cpu", "Processor" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (cpuinfo_value(keys[i], out, len) && out[0])
			return;
	snprintf(out, len, "unknown");
}

/* "vendor,family,model,stepping" exactly as perf's x86 get_cpuid() builds it. */
static void cpuid_read(char *out, size_t len)
{
#ifdef HAVE_X86_CPUID
	unsigned a, bx, c, d, lvl = 0;
	char vendor[13] = "";
	unsigned family = 0, model = 0, step = 0;

	if (__get_cpuid(0, &lvl, &bx, &c, &d)) {
		memcpy(vendor, &bx, 4);
		memcpy(vendor + 4, &d, 4);
		memcpy(vendor + 8, &c, 4);
		vendor[12] = '\0';
	}
	if (lvl >= 1 && __get_cpuid(1, &a, &bx, &c, &d)) {
		family = (a >> 8) & 0xf;
		model = (a >> 4) & 0xf;
		step = a & 0xf;
		if (family == 0xf)
			family += (a >> 20) & 0xff;
		if (family >= 0x6)
			model += ((a >> 16) & 0xf) << 4;
	}
	snprintf(out, len, "%s,%u,%u,%u", vendor, family, model, step);
#else
	out[0] = '\0';
#endif
}

static int list_add(struct ps_cpu_lists *l, const char *list)
{
	for (uint32_t i = 0; i < l->nr; i++)
		if (!strcmp(l->v[i], list))
			return 0;
	char **v = realloc(l->v, (l->nr + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	l->v = v;
	if (!(v[l->nr] = strdup(list)))
		return -ENOMEM;
	l->nr++;
	return 0;
}

/* Distinct contents of cpuN/topology/<file> (or <fallback>) over the online CPUs. */
static int topo_lists(struct ps_cpu_lists *l, const char *online, uint32_t nr_cpus,
		      const char *file, const char *fallback)
{
	char path[128], list[1024];

	for (uint32_t cpu = 0; cpu < nr_cpus; cpu++) {
		if (!cpulist_has(online, (int)cpu))
			continue;
		snprintf(path, sizeof(path), SYS_CPU "/cpu%u/topology/%s", cpu, file);
		if (!machine_read_line(path, list, sizeof(list))) {
			snprintf(path, sizeof(path), SYS_CPU "/cpu%u/topology/%s", cpu, fallback);
			if (!machine_read_line(path, list, sizeof(list)))
				continue;
		}
		if (list_add(l, list))
			return -ENOMEM;
	}
	return 0;
}

/* cpuN/topology/<file> for every CPU up to nr; -1 where unreadable. */
static int32_t *topo_ids(uint32_t nr, const char *file)
{
	int32_t *ids = calloc(nr ? nr : 1, sizeof(*ids));
	char path[128];

	for (uint32_t cpu = 0; ids && cpu < nr; cpu++) {
		snprintf(path, sizeof(path), SYS_CPU "/cpu%u/topology/%s", cpu, file);
		ids[cpu] = read_int(path, -1);
	}
	return ids;
}

/*
 * Socket (package) and thread sibling lists of the online CPUs, per CPU
 * core id and socket id; die lists and die ids when the kernel reports dies.
 */
static int topology_read(struct ps_machine *m)
{
	char online[1024], path[128];
	uint32_t nr = m->nr_cpus_avail;

	if (!machine_read_line(SYS_CPU "/online", online, sizeof(online)))
		snprintf(online, sizeof(online), "0-%u", nr - 1);
	if (topo_lists(&m->packages, online, nr, "package_cpus_list", "core_siblings_list") ||
	    topo_lists(&m->cores, online, nr, "core_cpus_list", "thread_siblings_list") ||
	    !(m->core_id = topo_ids(nr, "core_id")) ||
	    !(m->socket_id = topo_ids(nr, "physical_package_id")))
		return -ENOMEM;
	snprintf(path, sizeof(path), SYS_CPU "/cpu%d/topology/die_cpus_list", cpulist_max(online));
	if (access(path, R_OK) != 0)
		return 0;
	if (topo_lists(&m->dies, online, nr, "die_cpus_list", "die_cpus_list") ||
	    !(m->die_id = topo_ids(nr, "die_id")))
		return -ENOMEM;
	return 0;
}

int machine_read(struct ps_machine *m)
{
	struct utsname u;
	bool un = uname(&u) == 0;

	memset(m, 0, sizeof(*m));
	snprintf(m->hostname, sizeof(m->hostname), "%s", un ? u.nodename : "unknown");
	snprintf(m->osrelease, sizeof(m->osrelease), "%s", un ? u.release : "unknown");
	snprintf(m->arch, sizeof(m->arch), "%s", un ? u.machine : "unknown");
	cpudesc_read(m->cpudesc, sizeof(m->cpudesc));
	cpuid_read(m->cpuid, sizeof(m->cpuid));
	ssize_t n = readlink("/proc/self/exe", m->exe, sizeof(m->exe) - 1);
	if (n > 0)
		m->exe[n] = '\0';
	else
		snprintf(m->exe, sizeof(m->exe), "perfsink");
	m->nr_cpus_avail = cpus_avail();
	m->nr_cpus_online = cpus_online();
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	m->total_mem_kb = pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize / 1024 : 0;
	if (topology_read(m) || machine_numa_read(m) || machine_caches_read(m) ||
	    machine_mem_read(m) || machine_pmus_read(m)) {
		machine_free(m);
		return -ENOMEM;
	}
	return 0;
}

static void lists_free(struct ps_cpu_lists *l)
{
	for (uint32_t i = 0; i < l->nr; i++)
		free(l->v[i]);
	free(l->v);
}

void machine_free(struct ps_machine *m)
{
	lists_free(&m->packages);
	lists_free(&m->cores);
	lists_free(&m->dies);
	free(m->core_id);
	free(m->socket_id);
	free(m->die_id);
	machine_topo_free(m);
	machine_pmus_free(m);
	memset(m, 0, sizeof(*m));
}

void machine_forget_free_memory(struct ps_machine *m)
{
	for (uint32_t i = 0; i < m->nr_numa; i++)
		m->numa[i].mem_free_kb = 0;
}
