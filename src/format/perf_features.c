/*
 * Feature payloads in perf 6.1's encoding (tools/perf/util/header.c).
 * Every writer succeeds unless memory runs out: when the system does not
 * tell us something (no /proc/cpuinfo, no sysfs topology), a neutral value
 * is written instead, so the feature bitmap in the header, which is computed
 * separately from feature_wanted(), always matches the feature index.
 */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define HAVE_X86_CPUID 1
#endif
#include "format/events.h"
#include "format/perf_features.h"
#include "format/stream.h"

#define SYS_CPU "/sys/devices/system/cpu"

struct feature {
	int id;
	bool pipe;  /* perf 6.1 also sends it as HEADER_FEATURE in pipe mode */
	bool (*wanted)(const struct perfsink_stream *s, const struct perfsink_compression *comp);
	int (*write)(struct bytes *b, const struct perfsink_stream *s,
		     const struct perfsink_compression *comp);
};

/* ------------------------------------------------------------ helpers */

/* First line of a small sysfs/procfs file, newline stripped; false if unreadable. */
static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	bool ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

static int read_int(const char *path, int def)
{
	char buf[32];
	if (!read_line(path, buf, sizeof(buf)))
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
	int max = read_line(SYS_CPU "/present", list, sizeof(list)) ? cpulist_max(list) : -1;
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

static const struct ps_events *stream_events(const struct perfsink_stream *s)
{
	return s->priv ? s->priv->events : NULL;
}

/* ------------------------------------------------------------ writers */

static int write_tracing_data(struct bytes *b, const struct perfsink_stream *s,
			      const struct perfsink_compression *comp)
{
	const struct bytes *td = s->priv->tracing_data;
	bytes_add(b, td->p, td->len);
	return 0;
}

static int write_build_id(struct bytes *b, const struct perfsink_stream *s,
			  const struct perfsink_compression *comp)
{
	bytes_add(b, s->priv->build_ids->p, s->priv->build_ids->len);
	return 0;
}

static int write_hostname(struct bytes *b, const struct perfsink_stream *s,
			  const struct perfsink_compression *comp)
{
	struct utsname u;
	if (s->host_name && *s->host_name)
		bytes_perf_string(b, s->host_name);
	else
		bytes_perf_string(b, uname(&u) == 0 ? u.nodename : "unknown");
	return 0;
}

static int write_osrelease(struct bytes *b, const struct perfsink_stream *s,
			   const struct perfsink_compression *comp)
{
	struct utsname u;
	bytes_perf_string(b, uname(&u) == 0 ? u.release : "unknown");
	return 0;
}

static int write_version(struct bytes *b, const struct perfsink_stream *s,
			 const struct perfsink_compression *comp)
{
	bytes_perf_string(b, "perfsink " PACKAGE_VERSION);
	return 0;
}

static int write_arch(struct bytes *b, const struct perfsink_stream *s,
		      const struct perfsink_compression *comp)
{
	struct utsname u;
	bytes_perf_string(b, uname(&u) == 0 ? u.machine : "unknown");
	return 0;
}

static int write_nrcpus(struct bytes *b, const struct perfsink_stream *s,
			const struct perfsink_compression *comp)
{
	bytes_u32(b, cpus_avail());
	bytes_u32(b, cpus_online());
	return 0;
}

static int write_cpudesc(struct bytes *b, const struct perfsink_stream *s,
			 const struct perfsink_compression *comp)
{
	/* x86, then powerpc/s390/arm spellings of the same line. */
	static const char *const keys[] = { "model name", "cpu model", "cpu", "Processor" };
	char desc[256];
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (cpuinfo_value(keys[i], desc, sizeof(desc)) && desc[0]) {
			bytes_perf_string(b, desc);
			return 0;
		}
	}
	bytes_perf_string(b, "unknown");
	return 0;
}

#ifdef HAVE_X86_CPUID
/* "vendor,family,model,stepping" exactly as perf's x86 get_cpuid() builds it. */
static int write_cpuid(struct bytes *b, const struct perfsink_stream *s,
		       const struct perfsink_compression *comp)
{
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
	char buf[64];
	snprintf(buf, sizeof(buf), "%s,%u,%u,%u", vendor, family, model, step);
	bytes_perf_string(b, buf);
	return 0;
}
#endif

static int write_total_mem(struct bytes *b, const struct perfsink_stream *s,
			   const struct perfsink_compression *comp)
{
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	bytes_u64(b, pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize / 1024 : 0);
	return 0;
}

/*
 * Like perf: the binary's path, then priv->argv, which starts at the
 * subcommand ("record", options...), so perf shows "/usr/bin/perfsink record ...".
 */
static int write_cmdline(struct bytes *b, const struct perfsink_stream *s,
			 const struct perfsink_compression *comp)
{
	const struct perfsink_stream_priv *p = s->priv;
	int argc = p && p->argv && p->argc > 0 ? p->argc : 0;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0)
		exe[n] = '\0';
	else
		snprintf(exe, sizeof(exe), "perfsink");
	bytes_u32(b, (uint32_t)argc + 1);
	bytes_perf_string(b, exe);
	for (int i = 0; i < argc; i++)
		bytes_perf_string(b, p->argv[i] ? p->argv[i] : "");
	return 0;
}

static int write_event_desc(struct bytes *b, const struct perfsink_stream *s,
			    const struct perfsink_compression *comp)
{
	const struct ps_events *evs = stream_events(s);
	unsigned nr = evs ? evs->nr : 0;

	bytes_u32(b, nr);
	bytes_u32(b, PS_ATTR_SIZE);
	for (unsigned i = 0; i < nr; i++) {
		const struct ps_event_desc *ev = &evs->ev[i];
		bytes_add(b, &ev->attr, PS_ATTR_SIZE);
		bytes_u32(b, ev->nr_ids);
		bytes_perf_string(b, ev->name ? ev->name : "");
		bytes_add(b, ev->ids, ev->nr_ids * sizeof(uint64_t));
	}
	return 0;
}

/* Append list to the string list counted at count_at unless it is already there. */
static void topo_list_add(struct bytes *b, size_t count_at, const char *list)
{
	uint32_t nr;
	if (b->err)
		return;
	memcpy(&nr, b->p + count_at, sizeof(nr));
	size_t off = count_at + sizeof(nr);
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t len;
		memcpy(&len, b->p + off, sizeof(len));
		if (!strcmp((const char *)b->p + off + sizeof(len), list))
			return;
		off += sizeof(len) + len;
	}
	bytes_perf_string(b, list);
	nr++;
	bytes_put_at(b, count_at, &nr, sizeof(nr));
}

/* u32 nr + distinct contents of cpuN/topology/<file> over the online CPUs. */
static void topo_lists(struct bytes *b, const char *online, uint32_t nr_cpus, const char *file,
		       const char *fallback)
{
	char path[128], list[1024];
	size_t count_at = b->len;

	bytes_u32(b, 0);
	for (uint32_t cpu = 0; cpu < nr_cpus && !b->err; cpu++) {
		if (!cpulist_has(online, (int)cpu))
			continue;
		snprintf(path, sizeof(path), SYS_CPU "/cpu%u/topology/%s", cpu, file);
		if (!read_line(path, list, sizeof(list))) {
			snprintf(path, sizeof(path), SYS_CPU "/cpu%u/topology/%s", cpu, fallback);
			if (!read_line(path, list, sizeof(list)))
				continue;
		}
		topo_list_add(b, count_at, list);
	}
}

static int topo_id(uint32_t cpu, const char *file)
{
	char path[128];
	snprintf(path, sizeof(path), SYS_CPU "/cpu%u/topology/%s", cpu, file);
	return read_int(path, -1);
}

/*
 * Socket (package) and thread sibling lists of the online CPUs, then per
 * CPU up to nr_cpus_avail: core id, socket id; then die lists and die ids
 * when the kernel reports dies.
 */
static int write_cpu_topology(struct bytes *b, const struct perfsink_stream *s,
			      const struct perfsink_compression *comp)
{
	char online[1024], path[128];
	uint32_t nr = cpus_avail();

	if (!read_line(SYS_CPU "/online", online, sizeof(online)))
		snprintf(online, sizeof(online), "0-%u", nr - 1);
	topo_lists(b, online, nr, "package_cpus_list", "core_siblings_list");
	topo_lists(b, online, nr, "core_cpus_list", "thread_siblings_list");
	for (uint32_t cpu = 0; cpu < nr; cpu++) {
		bytes_u32(b, (uint32_t)topo_id(cpu, "core_id"));
		bytes_u32(b, (uint32_t)topo_id(cpu, "physical_package_id"));
	}
	snprintf(path, sizeof(path), SYS_CPU "/cpu%d/topology/die_cpus_list", cpulist_max(online));
	if (access(path, R_OK) != 0)
		return 0;
	topo_lists(b, online, nr, "die_cpus_list", "die_cpus_list");
	for (uint32_t cpu = 0; cpu < nr; cpu++)
		bytes_u32(b, (uint32_t)topo_id(cpu, "die_id"));
	return 0;
}

static int write_sample_time(struct bytes *b, const struct perfsink_stream *s,
			     const struct perfsink_compression *comp)
{
	bytes_u64(b, s->priv ? s->priv->first_sample_time : 0);
	bytes_u64(b, s->priv ? s->priv->last_sample_time : 0);
	return 0;
}

static int write_compressed(struct bytes *b, const struct perfsink_stream *s,
			    const struct perfsink_compression *comp)
{
	bytes_u32(b, 0); /* perf 6.1's version */
	bytes_u32(b, comp->type);
	bytes_u32(b, comp->level);
	bytes_u32(b, comp->ratio);
	bytes_u32(b, comp->mmap_len);
	return 0;
}

/* ------------------------------------------------------------ table */

static bool has_tracing_data(const struct perfsink_stream *s,
			     const struct perfsink_compression *comp)
{
	const struct ps_events *evs = stream_events(s);
	return evs && evs->has_tracepoint && s->priv->tracing_data && s->priv->tracing_data->len;
}

static bool has_build_ids(const struct perfsink_stream *s,
			  const struct perfsink_compression *comp)
{
	return s->priv && s->priv->build_ids && s->priv->build_ids->len;
}

static bool has_compression(const struct perfsink_stream *s,
			    const struct perfsink_compression *comp)
{
	return comp != NULL;
}

/* In bit order.  A new feature is one more line here. */
static const struct feature features[] = {
	{ FEAT_TRACING_DATA, false, has_tracing_data, write_tracing_data },
	{ FEAT_BUILD_ID, false, has_build_ids, write_build_id },
	{ FEAT_HOSTNAME, true, NULL, write_hostname },
	{ FEAT_OSRELEASE, true, NULL, write_osrelease },
	{ FEAT_VERSION, true, NULL, write_version },
	{ FEAT_ARCH, true, NULL, write_arch },
	{ FEAT_NRCPUS, true, NULL, write_nrcpus },
	{ FEAT_CPUDESC, true, NULL, write_cpudesc },
#ifdef HAVE_X86_CPUID
	{ FEAT_CPUID, true, NULL, write_cpuid },
#endif
	{ FEAT_TOTAL_MEM, true, NULL, write_total_mem },
	{ FEAT_CMDLINE, true, NULL, write_cmdline },
	{ FEAT_EVENT_DESC, true, NULL, write_event_desc },
	{ FEAT_CPU_TOPOLOGY, true, NULL, write_cpu_topology },
	{ FEAT_SAMPLE_TIME, true, NULL, write_sample_time },
	{ FEAT_COMPRESSED, true, has_compression, write_compressed },
};

static const struct feature *feature_find(int f)
{
	for (size_t i = 0; i < sizeof(features) / sizeof(features[0]); i++)
		if (features[i].id == f)
			return &features[i];
	return NULL;
}

bool feature_wanted(int f, const struct perfsink_stream *s,
		    const struct perfsink_compression *comp, bool pipe)
{
	const struct feature *ft = feature_find(f);
	if (!ft || (pipe && !ft->pipe))
		return false;
	return !ft->wanted || ft->wanted(s, comp);
}

int feature_write(int f, struct bytes *b, const struct perfsink_stream *s,
		  const struct perfsink_compression *comp)
{
	const struct feature *ft = feature_find(f);
	if (!ft || (ft->wanted && !ft->wanted(s, comp)))
		return -EINVAL;
	int err = ft->write(b, s, comp);
	return err ? err : b->err;
}
