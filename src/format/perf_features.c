/*
 * Feature payloads in perf 6.1's encoding (tools/perf/util/header.c).
 * Pure: the machine facts come from the stream (format/machine.h, read by
 * probe/machine.c).  Every writer succeeds unless memory runs out: what the
 * system did not tell (no /proc/cpuinfo, no sysfs topology, no machine facts
 * at all) is written as a neutral value, so the feature bitmap in the header,
 * which is computed separately from feature_wanted(), always matches the
 * feature index.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "format/events.h"
#include "format/feat_clock.h"
#include "format/feat_priv.h"
#include "format/machine.h"
#include "format/perf_features.h"
#include "format/stream.h"

struct feature {
	int id;
	bool pipe;  /* perf 6.1 also sends it as HEADER_FEATURE in pipe mode */
	bool pipe_empty; /* ... with the payload of an empty stream (see feature_write_pipe) */
	bool (*wanted)(const struct perfsink_stream *s, const struct perfsink_compression *comp);
	int (*write)(struct bytes *b, const struct perfsink_stream *s,
		     const struct perfsink_compression *comp);
};

/* ------------------------------------------------------------ helpers */

/* What is written when the stream carries no machine facts. */
static const struct ps_machine no_machine = {
	.hostname = "unknown", .osrelease = "unknown", .arch = "unknown",
	.cpudesc = "unknown", .exe = "perfsink", .nr_cpus_avail = 1, .nr_cpus_online = 1,
};

static const struct ps_machine *stream_machine(const struct perfsink_stream *s)
{
	return s->priv && s->priv->machine ? s->priv->machine : &no_machine;
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
	if (s->host_name && *s->host_name)
		bytes_perf_string(b, s->host_name);
	else
		bytes_perf_string(b, stream_machine(s)->hostname);
	return 0;
}

static int write_osrelease(struct bytes *b, const struct perfsink_stream *s,
			   const struct perfsink_compression *comp)
{
	bytes_perf_string(b, stream_machine(s)->osrelease);
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
	bytes_perf_string(b, stream_machine(s)->arch);
	return 0;
}

static int write_nrcpus(struct bytes *b, const struct perfsink_stream *s,
			const struct perfsink_compression *comp)
{
	bytes_u32(b, stream_machine(s)->nr_cpus_avail);
	bytes_u32(b, stream_machine(s)->nr_cpus_online);
	return 0;
}

static int write_cpudesc(struct bytes *b, const struct perfsink_stream *s,
			 const struct perfsink_compression *comp)
{
	bytes_perf_string(b, stream_machine(s)->cpudesc);
	return 0;
}

static int write_cpuid(struct bytes *b, const struct perfsink_stream *s,
		       const struct perfsink_compression *comp)
{
	bytes_perf_string(b, stream_machine(s)->cpuid);
	return 0;
}

static int write_total_mem(struct bytes *b, const struct perfsink_stream *s,
			   const struct perfsink_compression *comp)
{
	bytes_u64(b, stream_machine(s)->total_mem_kb);
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

	bytes_u32(b, (uint32_t)argc + 1);
	bytes_perf_string(b, stream_machine(s)->exe);
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

static void cpu_lists(struct bytes *b, const struct ps_cpu_lists *l)
{
	bytes_u32(b, l->nr);
	for (uint32_t i = 0; i < l->nr; i++)
		bytes_perf_string(b, l->v[i]);
}

static void cpu_ids(struct bytes *b, const int32_t *id, uint32_t cpu)
{
	bytes_u32(b, (uint32_t)(id ? id[cpu] : -1));
}

/*
 * Socket (package) and thread sibling lists of the online CPUs, then per
 * CPU up to nr_cpus_avail: core id, socket id; then die lists and die ids
 * when the kernel reports dies.
 */
static int write_cpu_topology(struct bytes *b, const struct perfsink_stream *s,
			      const struct perfsink_compression *comp)
{
	const struct ps_machine *m = stream_machine(s);

	cpu_lists(b, &m->packages);
	cpu_lists(b, &m->cores);
	for (uint32_t cpu = 0; cpu < m->nr_cpus_avail; cpu++) {
		cpu_ids(b, m->core_id, cpu);
		cpu_ids(b, m->socket_id, cpu);
	}
	if (!m->die_id)
		return 0;
	cpu_lists(b, &m->dies);
	for (uint32_t cpu = 0; cpu < m->nr_cpus_avail; cpu++)
		cpu_ids(b, m->die_id, cpu);
	return 0;
}

static int write_numa(struct bytes *b, const struct perfsink_stream *s,
		      const struct perfsink_compression *comp)
{
	feat_numa_write(b, stream_machine(s));
	return 0;
}

static int write_pmu_mappings(struct bytes *b, const struct perfsink_stream *s,
			      const struct perfsink_compression *comp)
{
	feat_pmu_mappings_write(b, stream_machine(s));
	return 0;
}

static int write_cache(struct bytes *b, const struct perfsink_stream *s,
		       const struct perfsink_compression *comp)
{
	feat_cache_write(b, stream_machine(s));
	return 0;
}

static int write_mem_topology(struct bytes *b, const struct perfsink_stream *s,
			      const struct perfsink_compression *comp)
{
	feat_mem_topology_write(b, stream_machine(s));
	return 0;
}

static int write_clockid(struct bytes *b, const struct perfsink_stream *s,
			 const struct perfsink_compression *comp)
{
	feat_clockid_write(b, s->priv->clock);
	return 0;
}

static int write_clock_data(struct bytes *b, const struct perfsink_stream *s,
			    const struct perfsink_compression *comp)
{
	feat_clock_data_write(b, s->priv->clock);
	return 0;
}

static const struct ps_bpf_info *stream_bpf(const struct perfsink_stream *s)
{
	return s && s->priv ? s->priv->bpf : NULL;
}

static int write_bpf_prog_info(struct bytes *b, const struct perfsink_stream *s,
			       const struct perfsink_compression *comp)
{
	feat_bpf_prog_info_write(b, stream_bpf(s));
	return 0;
}

static int write_bpf_btf(struct bytes *b, const struct perfsink_stream *s,
			 const struct perfsink_compression *comp)
{
	feat_bpf_btf_write(b, stream_bpf(s));
	return 0;
}

static int write_cpu_pmu_caps(struct bytes *b, const struct perfsink_stream *s,
			      const struct perfsink_compression *comp)
{
	feat_cpu_pmu_caps_write(b, feat_cpu_pmu(stream_machine(s)));
	return 0;
}

static int write_pmu_caps(struct bytes *b, const struct perfsink_stream *s,
			  const struct perfsink_compression *comp)
{
	feat_pmu_caps_write(b, stream_machine(s));
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

/* Groups of two or more events: perf's nr_groups. */
static uint32_t groups_count(const struct ps_events *evs)
{
	uint32_t n = 0;
	for (unsigned i = 0; evs && i < evs->nr; i++)
		n += evs->ev[i].nr_members > 1;
	return n;
}

/* perf 6.1's write_group_desc: u32 nr, then per group name, leader index, size. */
static int write_group_desc(struct bytes *b, const struct perfsink_stream *s,
			    const struct perfsink_compression *comp)
{
	const struct ps_events *evs = stream_events(s);

	bytes_u32(b, groups_count(evs));
	for (unsigned i = 0; i < evs->nr; i++) {
		const struct ps_event_desc *d = &evs->ev[i];
		if (d->nr_members < 2)
			continue;
		bytes_perf_string(b, d->group_name ? d->group_name : "{anon_group}");
		bytes_u32(b, i);
		bytes_u32(b, d->nr_members);
	}
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

/* CPUID is x86 only (as in perf 6.1): probe leaves it empty elsewhere. */
static bool has_cpuid(const struct perfsink_stream *s, const struct perfsink_compression *comp)
{
	return stream_machine(s)->cpuid[0] != '\0';
}

static bool has_groups(const struct perfsink_stream *s, const struct perfsink_compression *comp)
{
	return groups_count(stream_events(s)) > 0;
}

/* perf 6.1 drops NUMA_TOPOLOGY when sysfs lists no online node. */
static bool has_numa(const struct perfsink_stream *s, const struct perfsink_compression *comp)
{
	return stream_machine(s)->nr_numa > 0;
}

/* ... and MEM_TOPOLOGY when it reports no memory block size. */
static bool has_mem_topology(const struct perfsink_stream *s,
			     const struct perfsink_compression *comp)
{
	return stream_machine(s)->mem_block_size != 0;
}

/* ... and CPU_PMU_CAPS when there is no "cpu" PMU (VMs without a hardware PMU). */
static bool has_cpu_pmu(const struct perfsink_stream *s, const struct perfsink_compression *comp)
{
	return feat_cpu_pmu(stream_machine(s)) != NULL;
}

/* CLOCKID and CLOCK_DATA: only with -k (perf record --clockid). */
static bool has_clock(const struct perfsink_stream *s, const struct perfsink_compression *comp)
{
	return s->priv && s->priv->clock;
}

static bool has_compression(const struct perfsink_stream *s,
			    const struct perfsink_compression *comp)
{
	return comp != NULL;
}

/* In bit order.  A new feature is one more line here. */
static const struct feature features[] = {
	{ FEAT_TRACING_DATA, false, false, has_tracing_data, write_tracing_data },
	{ FEAT_BUILD_ID, false, false, has_build_ids, write_build_id },
	{ FEAT_HOSTNAME, true, false, NULL, write_hostname },
	{ FEAT_OSRELEASE, true, false, NULL, write_osrelease },
	{ FEAT_VERSION, true, false, NULL, write_version },
	{ FEAT_ARCH, true, false, NULL, write_arch },
	{ FEAT_NRCPUS, true, false, NULL, write_nrcpus },
	{ FEAT_CPUDESC, true, false, NULL, write_cpudesc },
	{ FEAT_CPUID, true, false, has_cpuid, write_cpuid },
	{ FEAT_TOTAL_MEM, true, false, NULL, write_total_mem },
	{ FEAT_CMDLINE, true, false, NULL, write_cmdline },
	{ FEAT_EVENT_DESC, true, false, NULL, write_event_desc },
	{ FEAT_CPU_TOPOLOGY, true, false, NULL, write_cpu_topology },
	{ FEAT_NUMA_TOPOLOGY, true, false, has_numa, write_numa },
	{ FEAT_PMU_MAPPINGS, true, false, NULL, write_pmu_mappings },
	{ FEAT_GROUP_DESC, true, false, has_groups, write_group_desc },
	{ FEAT_CACHE, false, false, NULL, write_cache },
	{ FEAT_SAMPLE_TIME, true, false, NULL, write_sample_time },
	{ FEAT_MEM_TOPOLOGY, true, false, has_mem_topology, write_mem_topology },
	{ FEAT_CLOCKID, true, false, has_clock, write_clockid },
	{ FEAT_BPF_PROG_INFO, true, true, NULL, write_bpf_prog_info },
	{ FEAT_BPF_BTF, true, true, NULL, write_bpf_btf },
	{ FEAT_COMPRESSED, true, false, has_compression, write_compressed },
	{ FEAT_CPU_PMU_CAPS, true, false, has_cpu_pmu, write_cpu_pmu_caps },
	{ FEAT_CLOCK_DATA, true, false, has_clock, write_clock_data },
	{ FEAT_PMU_CAPS, true, false, NULL, write_pmu_caps },
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

static int write_one(int f, struct bytes *b, const struct perfsink_stream *s,
		     const struct perfsink_compression *comp, bool pipe)
{
	const struct feature *ft = feature_find(f);
	if (!ft || (ft->wanted && !ft->wanted(s, comp)))
		return -EINVAL;
	struct perfsink_stream empty = { 0 };
	int err = ft->write(b, pipe && ft->pipe_empty ? &empty : s, comp);
	return err ? err : b->err;
}

int feature_write(int f, struct bytes *b, const struct perfsink_stream *s,
		  const struct perfsink_compression *comp)
{
	return write_one(f, b, s, comp, false);
}

int feature_write_pipe(int f, struct bytes *b, const struct perfsink_stream *s,
		       const struct perfsink_compression *comp)
{
	return write_one(f, b, s, comp, true);
}
