/* rc_features: see recover_feat.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "format/perf_file.h"
#include "probe/bpf_progs.h"
#include "recover/recover_feat.h"

#define PROCESSED 32       /* perf 6.1's HEADER_LAST_FEATURE: later bits are skipped */
#define FEAT_COMPRESSED 27
#define FEAT_TRACING 1
#define FEAT_BRANCH_STACK 15
#define NAME_MAX_61 4096   /* PATH_MAX: perf's buffer for a BUILD_ID name */
#define BUILD_ID_HEAD 36   /* header, pid, build_id[24] */
#define MAX_CPUS_61 4096   /* perf 6.1's MAX_NR_CPUS */
#define EVENTS_MAX 4096

/* A cursor over one feature section, read as perf's do_read_* do. */
struct fc {
	const uint8_t *p;
	uint64_t left, size;
	bool bad;
};

/* What one feature tells the checks of later ones (perf processes them in bit order). */
struct fst {
	const struct rc_feat_in *in;
	uint32_t nr_cpus; /* NRCPUS: CPU_TOPOLOGY's per-CPU arrays */
	const char *arch;
};

static void fskip(struct fc *c, uint64_t n)
{
	if (c->bad || n > c->left) {
		c->bad = true;
		return;
	}
	c->p += n;
	c->left -= n;
}

static uint32_t f32(struct fc *c)
{
	uint32_t v = 0;
	if (!c->bad && c->left >= 4)
		memcpy(&v, c->p, 4);
	fskip(c, 4);
	return v;
}

static uint64_t f64(struct fc *c)
{
	uint64_t v = 0;
	if (!c->bad && c->left >= 8)
		memcpy(&v, c->p, 8);
	fskip(c, 8);
	return v;
}

/* do_read_string: u32 len, then len bytes that hold the string and its NUL. */
static const char *fstr(struct fc *c)
{
	uint32_t len = f32(c);
	const char *s = (const char *)c->p;

	if (c->bad || len > c->left || !memchr(s, '\0', len)) {
		c->bad = true;
		return NULL;
	}
	fskip(c, len);
	return s;
}

/* perf_cpu_map__new's syntax, CPUs below perf's MAX_NR_CPUS (a wide range makes it loop). */
static bool cpulist_ok(const char *s)
{
	while (*s) {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;
		if (end == s || a >= MAX_CPUS_61)
			return false;
		if (*end == '-') {
			s = end + 1;
			b = strtoul(s, &end, 10);
			if (end == s || b >= MAX_CPUS_61 || b < a)
				return false;
		}
		if (*end && *end != ',')
			return false;
		s = *end ? end + 1 : end;
	}
	return true;
}

/* A u32 count, then that many items, each read by item (false: perf would refuse it). */
static bool counted(struct fc *c, bool (*item)(struct fc *c))
{
	for (uint32_t nr = f32(c); nr && !c->bad; nr--)
		if (!item(c))
			return false;
	return true;
}

static bool i_str(struct fc *c)
{
	fstr(c);
	return true;
}

static bool i_two_str(struct fc *c) /* a PMU capability, a hybrid node */
{
	fstr(c);
	fstr(c);
	return true;
}

static bool i_pmu_map(struct fc *c)
{
	f32(c);
	fstr(c);
	return true;
}

static bool i_numa_node(struct fc *c)
{
	f32(c);
	f64(c);
	f64(c);
	const char *cpus = fstr(c);
	return !cpus || cpulist_ok(cpus);
}

static bool i_cache_level(struct fc *c)
{
	fskip(c, 16);
	fstr(c);
	fstr(c);
	fstr(c);
	return true;
}

static bool i_bpil(struct fc *c)
{
	uint64_t used;
	if (!bpf_bpil_ok(c->p, c->left, &used))
		return false;
	fskip(c, used);
	return true;
}

static bool i_btf(struct fc *c)
{
	f32(c);
	fskip(c, f32(c));
	return true;
}

static bool i_pmu_caps(struct fc *c)
{
	counted(c, i_two_str);
	fstr(c);
	return true;
}

/* Features that are a counted list and nothing else. */
#define LIST_FEATURE(name, item) \
	static bool name(struct fc *c, struct fst *s) \
	{ \
		(void)s; \
		return counted(c, item); \
	}
LIST_FEATURE(f_strings, i_str)
LIST_FEATURE(f_numa, i_numa_node)
LIST_FEATURE(f_pmu_mappings, i_pmu_map)
LIST_FEATURE(f_bpf_prog_info, i_bpil)
LIST_FEATURE(f_bpf_btf, i_btf)
LIST_FEATURE(f_string_pairs, i_two_str)
LIST_FEATURE(f_pmu_caps, i_pmu_caps)

static bool f_cache(struct fc *c, struct fst *s)
{
	(void)s;
	return f32(c) == 1 && counted(c, i_cache_level);
}

static bool f_tracing(struct fc *c, struct fst *s)
{
	bool ok = rc_tracing_ok(c->p, c->left, s->in->ev);
	fskip(c, c->left); /* perf reads on through the descriptor; only the walk matters */
	return ok;
}

/* perf_header__read_build_ids: the name goes into char filename[PATH_MAX]. */
static bool f_build_id(struct fc *c, struct fst *s)
{
	(void)s;
	while (c->left && !c->bad) {
		uint16_t misc, size;
		if (c->left < BUILD_ID_HEAD)
			return false;
		memcpy(&misc, c->p + 4, 2);
		memcpy(&size, c->p + 6, 2);
		if (size < BUILD_ID_HEAD || size > BUILD_ID_HEAD + NAME_MAX_61 || size > c->left ||
		    ((misc & 0x8000) && c->p[32] > 20) || /* build_id__init copies size bytes into 20 */
		    !memchr(c->p + BUILD_ID_HEAD, '\0', size - BUILD_ID_HEAD) ||
		    !strncmp((const char *)c->p + BUILD_ID_HEAD, "nel.kallsyms]", 13))
			return false; /* the last: perf re-reads the table in a pre-2010 layout */
		fskip(c, size);
	}
	return true;
}

static bool f_string(struct fc *c, struct fst *s)
{
	(void)s;
	return fstr(c) != NULL;
}

static bool f_arch(struct fc *c, struct fst *s)
{
	s->arch = fstr(c);
	return s->arch != NULL;
}

static bool f_nrcpus(struct fc *c, struct fst *s)
{
	uint32_t avail = f32(c), online = f32(c);
	s->nr_cpus = avail;
	return avail && avail <= MAX_CPUS_61 && online && online <= MAX_CPUS_61;
}

static bool f_u64(struct fc *c, struct fst *s)
{
	(void)s;
	f64(c);
	return true;
}

static bool f_event_desc(struct fc *c, struct fst *s)
{
	uint32_t nre = f32(c), sz = f32(c);

	(void)s;
	if (nre > EVENTS_MAX || sz < 64 || sz > 4096)
		return false;
	for (uint32_t i = 0; i < nre && !c->bad; i++) {
		if (!rc_attr_bits_ok(c->p, sz < c->left ? sz : c->left))
			return false;
		fskip(c, sz);
		uint32_t nr = f32(c);
		fstr(c);
		fskip(c, (uint64_t)nr * 8);
	}
	return true;
}

/* string_size(): what perf adds up for a string, whatever its length field said. */
static uint64_t perf_string_size(const char *str)
{
	return ((strlen(str) + 1 + 63) & ~(uint64_t)63) + 4;
}

/* process_cpu_topology: perf decides what follows the sibling lists by its own count. */
static bool f_cpu_topology(struct fc *c, struct fst *s)
{
	bool core_test = !s->arch || (strncmp(s->arch, "s390", 4) && strncmp(s->arch, "aarch64", 7));
	uint64_t counted = 0;

	for (int list = 0; list < 2; list++) {
		uint32_t nr = f32(c);
		counted += 4;
		for (const char *str; nr && (str = fstr(c)); nr--)
			counted += perf_string_size(str);
	}
	if (c->bad || c->size <= counted)
		return !c->bad;
	for (uint32_t i = 0; i < s->nr_cpus && !c->bad; i++) {
		f32(c);
		uint32_t socket = f32(c);
		if (core_test && socket != UINT32_MAX && socket > s->nr_cpus)
			return false;
		counted += 8;
	}
	if (c->bad || c->size <= counted)
		return !c->bad;
	f_strings(c, s); /* dies */
	fskip(c, (uint64_t)s->nr_cpus * 4);
	return true;
}

static bool f_any(struct fc *c, struct fst *s)
{
	(void)s;
	fskip(c, c->left); /* perf 6.1 does not read it */
	return true;
}

static bool f_never(struct fc *c, struct fst *s)
{
	(void)c;
	(void)s;
	return false;
}

/* process_group_desc's rebuild of the groups over the events, in index order. */
static bool groups_fit(const uint32_t *lead, const uint32_t *members, uint32_t nr_groups,
		       unsigned nr_events)
{
	uint32_t i = 0, left = 0;

	for (unsigned idx = 0; idx < nr_events; idx++) {
		if (i < nr_groups && idx == lead[i]) {
			if (left || !members[i])
				return false;
			left = members[i] - 1;
			i++;
		} else if (left) {
			left--;
		}
	}
	return i == nr_groups && !left;
}

static bool f_group_desc(struct fc *c, struct fst *s)
{
	uint32_t nr = f32(c), *lead, *members;
	bool ok;

	if (!nr)
		return true;
	if (nr > s->in->ev->nr)
		return false;
	lead = calloc(nr, sizeof(*lead));
	members = calloc(nr, sizeof(*members));
	for (uint32_t i = 0; lead && members && i < nr; i++) {
		fstr(c);
		lead[i] = f32(c);
		members[i] = f32(c);
	}
	ok = lead && members && !c->bad && groups_fit(lead, members, nr, s->in->ev->nr);
	free(lead);
	free(members);
	return ok;
}

static bool f_sample_time(struct fc *c, struct fst *s)
{
	(void)s;
	fskip(c, 16);
	return true;
}

static bool f_mem_topology(struct fc *c, struct fst *s)
{
	(void)s;
	if (f64(c) != 1)
		return false;
	f64(c);
	for (uint64_t nr = f64(c); nr && !c->bad; nr--) {
		fskip(c, 16);
		uint64_t bits = f64(c), words = bits / 64 + !!(bits % 64);
		if (words > c->left / 8)
			return false; /* perf would allocate a bitmap of that many bits first */
		fskip(c, words * 8);
	}
	return true;
}

/* process_compressed: perf decompresses each record into comp_mmap_len bytes. */
static bool f_compressed(struct fc *c, struct fst *s)
{
	f32(c); /* version: 0 from perf 6.1 and perfsink */
	uint32_t type = f32(c);
	f32(c);
	f32(c);
	uint32_t mmap_len = f32(c);
	return type == 1 /* zstd */ && mmap_len && mmap_len >= s->in->max_decomp;
}

static bool f_clock_data(struct fc *c, struct fst *s)
{
	(void)s;
	if (f32(c) != 1)
		return false;
	fskip(c, 20);
	return true;
}

static const struct {
	const char *name;
	bool (*check)(struct fc *c, struct fst *s);
	bool loose; /* perf stops reading by its own reckoning, before the section's end */
} feats[PROCESSED] = {
	[1] = { "TRACING_DATA", f_tracing, true }, [2] = { "BUILD_ID", f_build_id, false },
	[3] = { "HOSTNAME", f_string, false }, [4] = { "OSRELEASE", f_string, false },
	[5] = { "VERSION", f_string, false }, [6] = { "ARCH", f_arch, false },
	[7] = { "NRCPUS", f_nrcpus, false }, [8] = { "CPUDESC", f_string, false },
	[9] = { "CPUID", f_string, false }, [10] = { "TOTAL_MEM", f_u64, false },
	[11] = { "CMDLINE", f_strings, false }, [12] = { "EVENT_DESC", f_event_desc, false },
	[13] = { "CPU_TOPOLOGY", f_cpu_topology, true }, [14] = { "NUMA_TOPOLOGY", f_numa, false },
	[15] = { "BRANCH_STACK", f_any, false }, [16] = { "PMU_MAPPINGS", f_pmu_mappings, false },
	[17] = { "GROUP_DESC", f_group_desc, false }, [18] = { "AUXTRACE", f_never, false },
	[19] = { "STAT", f_any, false }, [20] = { "CACHE", f_cache, false },
	[21] = { "SAMPLE_TIME", f_sample_time, false }, [22] = { "MEM_TOPOLOGY", f_mem_topology, false },
	[23] = { "CLOCKID", f_u64, false }, [24] = { "DIR_FORMAT", f_never, false },
	[25] = { "BPF_PROG_INFO", f_bpf_prog_info, false }, [26] = { "BPF_BTF", f_bpf_btf, false },
	[27] = { "COMPRESSED", f_compressed, false }, [28] = { "CPU_PMU_CAPS", f_string_pairs, false },
	[29] = { "CLOCK_DATA", f_clock_data, false }, [30] = { "HYBRID_TOPOLOGY", f_string_pairs, false },
	[31] = { "PMU_CAPS", f_pmu_caps, false },
};

/* perf report sorts by branch when BRANCH_STACK is set, unless a user stack is sampled. */
static bool branches(const struct rc_events *ev)
{
	uint64_t all = 0;
	for (unsigned i = 0; i < ev->nr; i++)
		all |= ev->a[i].sample_type;
	return all & (PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_STACK_USER);
}

static bool bit_set(const uint64_t *bits, unsigned b)
{
	return bits[b / 64] >> (b % 64) & 1;
}

static int fail(char *why, size_t n, const char *feature, const char *reason)
{
	snprintf(why, n, "%s: %s", feature, reason);
	return -EINVAL;
}

int rc_features(const struct rc_feat_in *in, char *why, size_t n)
{
	struct fst s = { .in = in };
	uint64_t nr = 0, first, entry;

	for (unsigned b = 0; b < PERF_FILE_FEAT_BITS; b++)
		nr += bit_set(in->bits, b);
	if (in->ev->tracepoints && !bit_set(in->bits, FEAT_TRACING))
		return fail(why, n, "TRACING_DATA", "tracepoint events without it");
	if (in->max_decomp && !bit_set(in->bits, FEAT_COMPRESSED))
		return fail(why, n, "COMPRESSED", "COMPRESSED records without it");
	if (bit_set(in->bits, FEAT_BRANCH_STACK) && !branches(in->ev))
		return fail(why, n, "BRANCH_STACK", "no event samples branches: perf report refuses "
			    "\"-b but no branch data\"");
	if (in->idx > in->size || nr > (in->size - in->idx) / 16)
		return fail(why, n, "the feature index", "it lies past the end of the file");
	first = in->idx + 16 * nr;
	entry = in->idx;
	for (unsigned b = 0; b < PROCESSED; b++) {
		uint64_t off, size;
		if (!bit_set(in->bits, b))
			continue;
		memcpy(&off, in->file + entry, 8);
		memcpy(&size, in->file + entry + 8, 8);
		entry += 16;
		if (!feats[b].check)
			continue;
		if (off < first || off > in->size || size > in->size - off)
			return fail(why, n, feats[b].name, "its section lies outside the file's features");
		struct fc c = { in->file + off, size, size, false };
		if (!feats[b].check(&c, &s) || c.bad || (c.left && !feats[b].loose))
			return fail(why, n, feats[b].name, "perf 6.1 would not read it");
	}
	return 0;
}
