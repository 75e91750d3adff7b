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
#include "format/machine.h"
#include "format/perf_features.h"
#include "format/stream.h"

struct feature {
	int id;
	bool pipe;  /* perf 6.1 also sends it as HEADER_FEATURE in pipe mode */
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

static int write_sample_time(struct bytes *b, const struct perfsink_stream *s,
			     const struct perfsink_compression *comp)
{
	bytes_u64(b, s->priv ? s->priv->first_sample_time : 0);
	bytes_u64(b, s->priv ? s->priv->last_sample_time : 0);
	return 0;
}

/* The resolution in ns (perf report prints it times 1000 as "MHz"). */
static int write_clockid(struct bytes *b, const struct perfsink_stream *s,
			 const struct perfsink_compression *comp)
{
	bytes_u64(b, s->priv->clock->res_ns);
	return 0;
}

/* {u32 version 1, u32 clockid, u64 wall-clock ns, u64 clockid ns}: perf script -F tod. */
static int write_clock_data(struct bytes *b, const struct perfsink_stream *s,
			    const struct perfsink_compression *comp)
{
	const struct ps_clock *c = s->priv->clock;

	bytes_u32(b, 1);
	bytes_u32(b, c->clockid);
	bytes_u64(b, c->tod_ns);
	bytes_u64(b, c->clockid_ns);
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

/* CPUID is x86 only (as in perf 6.1): probe leaves it empty elsewhere. */
static bool has_cpuid(const struct perfsink_stream *s, const struct perfsink_compression *comp)
{
	return stream_machine(s)->cpuid[0] != '\0';
}

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
	{ FEAT_TRACING_DATA, false, has_tracing_data, write_tracing_data },
	{ FEAT_BUILD_ID, false, has_build_ids, write_build_id },
	{ FEAT_HOSTNAME, true, NULL, write_hostname },
	{ FEAT_OSRELEASE, true, NULL, write_osrelease },
	{ FEAT_VERSION, true, NULL, write_version },
	{ FEAT_ARCH, true, NULL, write_arch },
	{ FEAT_NRCPUS, true, NULL, write_nrcpus },
	{ FEAT_CPUDESC, true, NULL, write_cpudesc },
	{ FEAT_CPUID, true, has_cpuid, write_cpuid },
	{ FEAT_TOTAL_MEM, true, NULL, write_total_mem },
	{ FEAT_CMDLINE, true, NULL, write_cmdline },
	{ FEAT_EVENT_DESC, true, NULL, write_event_desc },
	{ FEAT_CPU_TOPOLOGY, true, NULL, write_cpu_topology },
	{ FEAT_SAMPLE_TIME, true, NULL, write_sample_time },
	{ FEAT_CLOCKID, true, has_clock, write_clockid },
	{ FEAT_COMPRESSED, true, has_compression, write_compressed },
	{ FEAT_CLOCK_DATA, true, has_clock, write_clock_data },
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
