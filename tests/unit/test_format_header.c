/*
 * Unit tests of the perf.data layouts: file header (perf-format.md §1.1),
 * feature index and payloads, pipe prologue, TRACING_DATA structure.
 * perf itself reads the same bytes in format_perf.sh.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "config.h"
#include "format/events.h"
#include "format/perf_features.h"
#include "format/perf_file.h"
#include "format/bpf_info.h"
#include "format/feat_clock.h"
#include "probe/machine.h"
#include "format/record.h"
#include "format/stream.h"
#include "probe/tracing_data.h"

struct fixture {
	struct ps_event_desc ev[2];
	uint64_t ids0[2], ids1[3];
	struct ps_events evl;
	struct bytes td;
	struct ps_machine machine;
	struct perfsink_stream_priv priv;
	struct perfsink_stream s;
};

static uint64_t u64_at(const uint8_t *p, size_t off)
{
	uint64_t v;
	memcpy(&v, p + off, sizeof(v));
	return v;
}

static uint32_t u32_at(const uint8_t *p, size_t off)
{
	uint32_t v;
	memcpy(&v, p + off, sizeof(v));
	return v;
}

static uint16_t u16_at(const uint8_t *p, size_t off)
{
	uint16_t v;
	memcpy(&v, p + off, sizeof(v));
	return v;
}

static void event_set(struct ps_event_desc *ev, const char *name, uint32_t type, uint64_t config,
		      uint64_t *ids, unsigned nr_ids)
{
	memset(ev, 0, sizeof(*ev));
	ev->name = (char *)name;
	ev->attr.type = type;
	ev->attr.size = PS_ATTR_SIZE;
	ev->attr.config = config;
	ev->attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
	ev->attr.sample_id_all = 1;
	ev->ids = ids;
	ev->nr_ids = nr_ids;
}

/* cpu-clock (ids 11, 12) and task-clock (ids 21, 22, 23). */
static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	if (!f)
		return -1;
	f->ids0[0] = 11, f->ids0[1] = 12;
	f->ids1[0] = 21, f->ids1[1] = 22, f->ids1[2] = 23;
	event_set(&f->ev[0], "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, f->ids0, 2);
	event_set(&f->ev[1], "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, f->ids1,
		  3);
	f->evl.ev = f->ev;
	f->evl.nr = 2;
	f->evl.sample_id_all = true;
	f->evl.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			     PERF_SAMPLE_IDENTIFIER;
	bytes_init(&f->td);
	if (machine_read(&f->machine))
		return -1;
	static char *argv[] = { "record", "-e", "cpu-clock", NULL };
	f->priv = (struct perfsink_stream_priv){ .events = &f->evl, .argc = 3, .argv = argv,
						 .tracing_data = &f->td, .machine = &f->machine,
						 .first_sample_time = 1000,
						 .last_sample_time = 5000 };
	f->s = (struct perfsink_stream){ .nr_events = 2, .host_name = "unit-host",
					 .priv = &f->priv };
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	bytes_free(&f->td);
	machine_free(&f->machine);
	free(f);
	return 0;
}

/* Switch the fixture to sched:sched_switch alone, with its TRACING_DATA. */
static bool use_tracepoint(struct fixture *f)
{
	int64_t id = tracefs_event_id("sched", "sched_switch");
	if (id < 0)
		return false;
	event_set(&f->ev[0], "sched:sched_switch", PERF_TYPE_TRACEPOINT, (uint64_t)id, f->ids0, 2);
	f->ev[0].tp_sys = "sched";
	f->ev[0].tp_name = "sched_switch";
	f->evl.nr = 1;
	f->evl.has_tracepoint = true;
	const char *sys[] = { "sched" }, *name[] = { "sched_switch" };
	assert_int_equal(tracing_data_build(sys, name, 1, &f->td), 0);
	return true;
}

/* ------------------------------------------------------------ file header */

static void test_header_layout(void **state)
{
	struct fixture *f = *state;
	struct perfsink_bytes h = { 0 };

	assert_int_equal(perf_file_header(&f->s, NULL, &h), 0);
	/* 104 header + 5 ids + 2 attrs of 144, zeros up to the aligned data offset */
	assert_int_equal(h.len, PERFSINK_BUF_ALIGN);
	for (size_t off = 104 + 5 * 8 + 2 * 144; off < h.len; off++)
		assert_int_equal(h.data[off], 0);
	assert_memory_equal(h.data, "PERFILE2", 8);
	assert_int_equal(u64_at(h.data, 8), 104);
	assert_int_equal(u64_at(h.data, 16), 144);
	assert_int_equal(u64_at(h.data, 24), 144); /* attrs after the ids */
	assert_int_equal(u64_at(h.data, 32), 288);
	assert_int_equal(u64_at(h.data, 40), h.len); /* data.offset */
	assert_int_equal(u64_at(h.data, PERF_FILE_DATA_SIZE_OFFSET), 0);
	for (size_t off = 56; off < 104; off += 8) /* event_types, feature bitmap */
		assert_int_equal(u64_at(h.data, off), 0);

	static const uint64_t ids[] = { 11, 12, 21, 22, 23 };
	for (unsigned i = 0; i < 5; i++)
		assert_int_equal(u64_at(h.data, 104 + 8 * i), ids[i]);
	/* attr 0: type, size, config, then its ids section */
	assert_int_equal(u32_at(h.data, 144), PERF_TYPE_SOFTWARE);
	assert_int_equal(u32_at(h.data, 148), 128);
	assert_int_equal(u64_at(h.data, 152), PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(u64_at(h.data, 144 + 128), 104);
	assert_int_equal(u64_at(h.data, 144 + 136), 16);
	assert_int_equal(u64_at(h.data, 288 + 128), 120);
	assert_int_equal(u64_at(h.data, 288 + 136), 24);
	assert_int_equal(u64_at(h.data, 288 + 8), PERF_COUNT_SW_TASK_CLOCK);
	perf_bytes_free(&h);
	assert_null(h.data);
}

static void test_header_final_same_length(void **state)
{
	struct fixture *f = *state;
	struct perfsink_bytes first = { 0 }, last = { 0 };

	assert_int_equal(perf_file_header(&f->s, NULL, &first), 0);
	struct perfsink_file_end end = { .data_offset = first.len, .data_size = 4096 };
	assert_int_equal(perf_file_header(&f->s, &end, &last), 0);
	assert_int_equal(last.len, first.len);
	assert_int_equal(u64_at(last.data, PERF_FILE_DATA_SIZE_OFFSET), 4096);
	/* Only data.size and the bitmap change. */
	assert_memory_equal(first.data, last.data, 48);
	assert_memory_equal(first.data + 56, last.data + 56, 16);
	assert_memory_equal(first.data + 104, last.data + 104, first.len - 104);

	uint64_t bits = u64_at(last.data, 72);
	for (int feat = FEAT_HOSTNAME; feat <= FEAT_CPU_TOPOLOGY; feat++)
		if (feat != FEAT_CPUID)
			assert_true(bits & (1ULL << feat));
	assert_true(bits & (1ULL << FEAT_SAMPLE_TIME));
	assert_false(bits & (1ULL << FEAT_TRACING_DATA));
	assert_false(bits & (1ULL << FEAT_BUILD_ID));
	assert_false(bits & (1ULL << FEAT_COMPRESSED));
	for (size_t off = 80; off < 104; off += 8)
		assert_int_equal(u64_at(last.data, off), 0);
	perf_bytes_free(&first);
	perf_bytes_free(&last);
}

static void test_header_rejects_wrong_offset(void **state)
{
	struct fixture *f = *state;
	struct perfsink_bytes h = { 0 };
	struct perfsink_file_end end = { .data_offset = 104 + 5 * 8 + 2 * 144, .data_size = 8 };

	assert_int_equal(perf_file_header(&f->s, &end, &h), -EINVAL);
	assert_int_equal(perf_file_features(&f->s, NULL, &h), -EINVAL);
	/* Tracepoints without TRACING_DATA: perf could not read the output. */
	f->evl.has_tracepoint = true;
	assert_int_equal(perf_file_header(&f->s, NULL, &h), -ENODATA);
	assert_int_equal(perf_pipe_header(&f->s, NULL, &h), -ENODATA);
	struct perfsink_stream empty = { 0 };
	assert_int_equal(perf_file_header(&empty, NULL, &h), -EINVAL);
	assert_int_equal(perf_pipe_header(&empty, NULL, &h), -EINVAL);
}

/* ------------------------------------------------------------ features */

struct feat_view {
	int nr;
	int id[64];
	const uint8_t *p[64];
	uint64_t size[64];
};

/* Split features(end) by the bitmap of header(end); checks the index on the way. */
static void features_view(struct fixture *f, const struct perfsink_file_end *end,
			  struct perfsink_bytes *hdr, struct perfsink_bytes *feat,
			  struct feat_view *v)
{
	assert_int_equal(perf_file_header(&f->s, end, hdr), 0);
	assert_int_equal(perf_file_features(&f->s, end, feat), 0);
	uint64_t base = end->data_offset + end->data_size;
	memset(v, 0, sizeof(*v));
	for (int bit = 0; bit < 256; bit++)
		if (u64_at(hdr->data, 72 + 8 * (bit / 64)) & (1ULL << (bit % 64)))
			v->id[v->nr++] = bit;
	uint64_t next = base + 16 * (uint64_t)v->nr;
	for (int i = 0; i < v->nr; i++) {
		uint64_t off = u64_at(feat->data, 16 * i), size = u64_at(feat->data, 16 * i + 8);
		assert_int_equal(off, next); /* payloads packed in bit order */
		assert_true(off - base + size <= feat->len);
		v->p[i] = feat->data + (off - base);
		v->size[i] = size;
		next = off + size;
	}
	assert_int_equal(next, base + feat->len);
}

static int view_find(const struct feat_view *v, int id)
{
	for (int i = 0; i < v->nr; i++)
		if (v->id[i] == id)
			return i;
	return -1;
}

/* perf string: u32 len (multiple of 64), NUL-terminated text. */
static const char *perf_string(const uint8_t *p, size_t *adv)
{
	uint32_t len = u32_at(p, 0);
	assert_int_equal(len % 64, 0);
	assert_true(memchr(p + 4, '\0', len) != NULL);
	*adv = 4 + len;
	return (const char *)p + 4;
}

static void test_features_payloads(void **state)
{
	struct fixture *f = *state;
	struct perfsink_bytes hdr = { 0 }, feat = { 0 };
	struct perfsink_file_end end = { .data_size = 800 };
	struct feat_view v;
	size_t adv;

	end.data_offset = PERFSINK_BUF_ALIGN;
	features_view(f, &end, &hdr, &feat, &v);

	int i = view_find(&v, FEAT_HOSTNAME);
	assert_true(i >= 0);
	assert_string_equal(perf_string(v.p[i], &adv), "unit-host");
	assert_int_equal(adv, v.size[i]);
	i = view_find(&v, FEAT_VERSION);
	assert_string_equal(perf_string(v.p[i], &adv), "perfsink " PACKAGE_VERSION);
	i = view_find(&v, FEAT_NRCPUS);
	assert_int_equal(v.size[i], 8);
	assert_int_equal(u32_at(v.p[i], 4), sysconf(_SC_NPROCESSORS_ONLN));
	assert_true(u32_at(v.p[i], 0) >= u32_at(v.p[i], 4));

	i = view_find(&v, FEAT_CMDLINE);
	assert_int_equal(u32_at(v.p[i], 0), 4); /* exe path + record -e cpu-clock */
	const uint8_t *p = v.p[i] + 4;
	perf_string(p, &adv);
	p += adv;
	assert_string_equal(perf_string(p, &adv), "record");

	i = view_find(&v, FEAT_SAMPLE_TIME);
	assert_int_equal(v.size[i], 16);
	assert_int_equal(u64_at(v.p[i], 0), 1000);
	assert_int_equal(u64_at(v.p[i], 8), 5000);

	i = view_find(&v, FEAT_EVENT_DESC);
	p = v.p[i];
	assert_int_equal(u32_at(p, 0), 2);
	assert_int_equal(u32_at(p, 4), 128);
	p += 8;
	static const char *const names[] = { "cpu-clock", "task-clock" };
	static const unsigned nr_ids[] = { 2, 3 };
	for (int e = 0; e < 2; e++) {
		assert_memory_equal(p, &f->ev[e].attr, 4);
		assert_int_equal(u32_at(p, 4), 128);
		p += 128;
		assert_int_equal(u32_at(p, 0), nr_ids[e]);
		assert_string_equal(perf_string(p + 4, &adv), names[e]);
		p += 4 + adv;
		assert_memory_equal(p, f->ev[e].ids, 8 * nr_ids[e]);
		p += 8 * nr_ids[e];
	}
	assert_ptr_equal(p, v.p[i] + v.size[i]);
	perf_bytes_free(&hdr);
	perf_bytes_free(&feat);
}

/* Format writes the machine it is given: made-up facts, no /proc or sysfs read. */
static void test_features_from_given_machine(void **state)
{
	struct fixture *f = *state;
	static char *pkg[] = { "0-3" }, *thr[] = { "0-1", "2-3" };
	static int32_t core[] = { 0, 0, 1, 1 }, sock[] = { 0, 0, 0, 0 };
	struct ps_machine m = {
		.hostname = "given", .osrelease = "9.9.9-test", .arch = "testarch",
		.cpudesc = "Test CPU", .cpuid = "", .exe = "/opt/perfsink",
		.nr_cpus_avail = 4, .nr_cpus_online = 3, .total_mem_kb = 123456,
		.packages = { pkg, 1 }, .cores = { thr, 2 }, .core_id = core, .socket_id = sock,
	};
	struct perfsink_bytes hdr = { 0 }, feat = { 0 };
	struct perfsink_file_end end = { .data_offset = PERFSINK_BUF_ALIGN, .data_size = 8 };
	struct feat_view v;
	size_t adv;

	f->priv.machine = &m;
	f->s.host_name = NULL;
	features_view(f, &end, &hdr, &feat, &v);
	assert_true(view_find(&v, FEAT_CPUID) < 0); /* empty cpuid: no CPUID feature */
	assert_string_equal(perf_string(v.p[view_find(&v, FEAT_HOSTNAME)], &adv), "given");
	assert_string_equal(perf_string(v.p[view_find(&v, FEAT_OSRELEASE)], &adv), "9.9.9-test");
	assert_string_equal(perf_string(v.p[view_find(&v, FEAT_ARCH)], &adv), "testarch");
	assert_string_equal(perf_string(v.p[view_find(&v, FEAT_CPUDESC)], &adv), "Test CPU");
	assert_int_equal(u32_at(v.p[view_find(&v, FEAT_NRCPUS)], 0), 4);
	assert_int_equal(u32_at(v.p[view_find(&v, FEAT_NRCPUS)], 4), 3);
	assert_int_equal(u64_at(v.p[view_find(&v, FEAT_TOTAL_MEM)], 0), 123456);
	assert_string_equal(perf_string(v.p[view_find(&v, FEAT_CMDLINE)] + 4, &adv), "/opt/perfsink");
	int i = view_find(&v, FEAT_CPU_TOPOLOGY);
	const uint8_t *p = v.p[i];
	assert_int_equal(u32_at(p, 0), 1);
	assert_string_equal(perf_string(p + 4, &adv), "0-3");
	p += 4 + adv;
	assert_int_equal(u32_at(p, 0), 2);
	assert_string_equal(perf_string(p + 4, &adv), "0-1");
	p += 4 + adv;
	assert_string_equal(perf_string(p, &adv), "2-3");
	p += adv;
	for (uint32_t cpu = 0; cpu < 4; cpu++) {
		assert_int_equal(u32_at(p, 8 * cpu), (uint32_t)core[cpu]);
		assert_int_equal(u32_at(p, 8 * cpu + 4), (uint32_t)sock[cpu]);
	}
	assert_ptr_equal(p + 32, v.p[i] + v.size[i]); /* no die lists without die ids */
	perf_bytes_free(&hdr);
	perf_bytes_free(&feat);
}

/*
 * NUMA_TOPOLOGY .. PMU_CAPS, BPF_PROG_INFO/BPF_BTF and CLOCKID/CLOCK_DATA of
 * a made-up machine, in perf 6.1's encoding; in pipe mode no CACHE and
 * empty BPF lists, as perf sends them.
 */
static void test_features_topology_bpf_clock(void **state)
{
	struct fixture *f = *state;
	static char *caps_cpu[] = { "branches", "32" }, *caps_ibs[] = { "zen4_ibs_extensions", "1" };
	static struct ps_pmu pmus[] = { { 4, "cpu", 1, caps_cpu }, { 1, "software", 0, NULL },
					{ 11, "ibs_op", 1, caps_ibs } };
	static struct ps_numa_node numa[] = { { 0, 1000, 600, "0-1" }, { 1, 2000, 900, "2-3" } };
	static struct ps_cache caches[] = { { 1, 64, 64, 8, "Data", "32K", "0" },
					    { 3, 64, 32768, 16, "Unified", "32768K", "0-3" } };
	static uint64_t bits0[] = { 0x5 }, bits1[] = { 0, 0x1 };
	static struct ps_mem_node mem[] = { { 0, 3, bits0 }, { 1, 65, bits1 } };
	static uint8_t bpil[16 + 232 + 8] = { [0] = 232, [4] = 8, [16] = 1 };
	static struct ps_bpf_prog progs[] = { { 7, bpil, sizeof(bpil) } };
	static uint8_t btf_raw[] = { 0x9f, 0xeb, 1, 0, 24 };
	static struct ps_bpf_btf btfs[] = { { 3, btf_raw, sizeof(btf_raw) } };
	struct ps_bpf_info bpf = { progs, 1, btfs, 1 };
	struct ps_clock clock = { .clockid = 1, .clockid_res_ns = 1, .tod_ns = 11, .clockid_ns = 22 };
	struct ps_machine m = {
		.hostname = "given", .osrelease = "r", .arch = "a", .cpudesc = "c", .exe = "/x",
		.nr_cpus_avail = 1, .nr_cpus_online = 1, .numa = numa, .nr_numa = 2,
		.caches = caches, .nr_caches = 2, .mem_block_size = 0x8000000, .mem_nodes = mem,
		.nr_mem_nodes = 2, .pmus = pmus, .nr_pmus = 3,
	};
	struct perfsink_bytes hdr = { 0 }, feat = { 0 }, pipe = { 0 };
	struct perfsink_file_end end = { .data_offset = PERFSINK_BUF_ALIGN, .data_size = 8 };
	struct feat_view v;
	size_t adv;

	f->priv.machine = &m;
	f->priv.bpf = &bpf;
	f->priv.clock = &clock;
	features_view(f, &end, &hdr, &feat, &v);

	const uint8_t *p = v.p[view_find(&v, FEAT_NUMA_TOPOLOGY)];
	assert_int_equal(u32_at(p, 0), 2);
	assert_int_equal(u32_at(p, 4), 0);
	assert_int_equal(u64_at(p, 8), 1000);
	assert_int_equal(u64_at(p, 16), 600);
	assert_string_equal(perf_string(p + 24, &adv), "0-1");
	assert_int_equal(u32_at(p + 24 + adv, 0), 1);

	p = v.p[view_find(&v, FEAT_PMU_MAPPINGS)];
	assert_int_equal(u32_at(p, 0), 3); /* every PMU, cpu included, in the given order */
	assert_int_equal(u32_at(p, 4), 4);
	assert_string_equal(perf_string(p + 8, &adv), "cpu");
	assert_int_equal(u32_at(p + 8 + adv, 0), 1);

	int i = view_find(&v, FEAT_CACHE);
	p = v.p[i];
	assert_int_equal(u32_at(p, 0), 1); /* version */
	assert_int_equal(u32_at(p, 4), 2);
	assert_int_equal(u32_at(p, 8), 1);
	assert_int_equal(u32_at(p, 12), 64);
	assert_int_equal(u32_at(p, 16), 64);
	assert_int_equal(u32_at(p, 20), 8);
	assert_string_equal(perf_string(p + 24, &adv), "Data");
	assert_int_equal(v.size[i], 8 + 2 * (16 + 3 * 68));

	i = view_find(&v, FEAT_MEM_TOPOLOGY);
	p = v.p[i];
	assert_int_equal(u64_at(p, 0), 1);
	assert_int_equal(u64_at(p, 8), 0x8000000);
	assert_int_equal(u64_at(p, 16), 2);
	assert_int_equal(u64_at(p, 24), 0); /* node, size in blocks, bitmap bits, words */
	assert_int_equal(u64_at(p, 32), 3);
	assert_int_equal(u64_at(p, 40), 3);
	assert_int_equal(u64_at(p, 48), 0x5);
	assert_int_equal(u64_at(p, 56), 1);
	assert_int_equal(u64_at(p, 64), 65);
	assert_int_equal(u64_at(p, 88), 0x1);
	assert_int_equal(v.size[i], 96);

	p = v.p[view_find(&v, FEAT_PMU_CAPS)];
	assert_int_equal(u32_at(p, 0), 1); /* ibs_op only: cpu's caps are CPU_PMU_CAPS' */
	assert_int_equal(u32_at(p, 4), 1);
	assert_string_equal(perf_string(p + 8, &adv), "zen4_ibs_extensions");
	p += 8 + adv;
	assert_string_equal(perf_string(p, &adv), "1");
	assert_string_equal(perf_string(p + adv, &adv), "ibs_op");
	i = view_find(&v, FEAT_CPU_PMU_CAPS);
	assert_int_equal(u32_at(v.p[i], 0), 1);
	assert_int_equal(v.size[i], 4 + 2 * 68); /* no PMU name */

	i = view_find(&v, FEAT_BPF_PROG_INFO);
	assert_int_equal(u32_at(v.p[i], 0), 1);
	assert_memory_equal(v.p[i] + 4, bpil, sizeof(bpil));
	i = view_find(&v, FEAT_BPF_BTF);
	assert_int_equal(u32_at(v.p[i], 0), 1);
	assert_int_equal(u32_at(v.p[i], 4), 3);
	assert_int_equal(u32_at(v.p[i], 8), sizeof(btf_raw));
	assert_int_equal(v.size[i], 12 + sizeof(btf_raw)); /* unpadded */

	assert_int_equal(u64_at(v.p[view_find(&v, FEAT_CLOCKID)], 0), 1);
	p = v.p[view_find(&v, FEAT_CLOCK_DATA)];
	assert_int_equal(u32_at(p, 0), 1);
	assert_int_equal(u32_at(p, 4), 1);
	assert_int_equal(u64_at(p, 8), 11);
	assert_int_equal(u64_at(p, 16), 22);

	/* Pipe: no CACHE; BPF_PROG_INFO and BPF_BTF sent, empty. */
	assert_int_equal(perf_pipe_header(&f->s, NULL, &pipe), 0);
	bool seen_bpf = false;
	for (size_t off = 16; off < pipe.len; off += u16_at(pipe.data, off + 6)) {
		if (u32_at(pipe.data, off) != PERFSINK_RECORD_HEADER_FEATURE)
			continue;
		int id = (int)u64_at(pipe.data, off + 8);
		assert_int_not_equal(id, FEAT_CACHE);
		if (id == FEAT_BPF_PROG_INFO || id == FEAT_BPF_BTF) {
			assert_int_equal(u16_at(pipe.data, off + 6), 16 + 4);
			assert_int_equal(u32_at(pipe.data, off + 16), 0);
			seen_bpf = true;
		}
	}
	assert_true(seen_bpf);
	f->priv.bpf = NULL;
	f->priv.clock = NULL;
	perf_bytes_free(&hdr);
	perf_bytes_free(&feat);
	perf_bytes_free(&pipe);
}

static void test_features_compressed(void **state)
{
	struct fixture *f = *state;
	struct perfsink_bytes hdr = { 0 }, feat = { 0 };
	const struct perfsink_compression comp = { .type = 1, .level = 3, .ratio = 12,
						   .mmap_len = 528384 };
	struct perfsink_file_end end = { .data_offset = PERFSINK_BUF_ALIGN, .data_size = 64, .comp = &comp };
	struct feat_view v;

	features_view(f, &end, &hdr, &feat, &v);
	int i = view_find(&v, FEAT_COMPRESSED);
	assert_true(i >= 0);
	assert_int_equal(v.size[i], 20);
	static const uint32_t want[] = { 0, 1, 3, 12, 528384 };
	for (int k = 0; k < 5; k++)
		assert_int_equal(u32_at(v.p[i], 4 * k), want[k]);
	perf_bytes_free(&hdr);
	perf_bytes_free(&feat);
}

/* GROUP_DESC as perf 6.1 writes it: only with a group, name, leader index, size. */
static void test_features_group_desc(void **state)
{
	struct fixture *f = *state;
	struct perfsink_bytes hdr = { 0 }, feat = { 0 };
	struct perfsink_file_end end = { .data_offset = PERFSINK_BUF_ALIGN, .data_size = 64 };
	struct feat_view v;
	size_t adv;

	features_view(f, &end, &hdr, &feat, &v);
	assert_true(view_find(&v, FEAT_GROUP_DESC) < 0); /* no group, no feature */
	perf_bytes_free(&hdr);
	perf_bytes_free(&feat);

	f->ev[0].nr_members = 2;
	features_view(f, &end, &hdr, &feat, &v);
	int i = view_find(&v, FEAT_GROUP_DESC);
	assert_true(i >= 0);
	assert_int_equal(u32_at(v.p[i], 0), 1);
	assert_string_equal(perf_string(v.p[i] + 4, &adv), "{anon_group}");
	assert_int_equal(u32_at(v.p[i], 4 + adv), 0);
	assert_int_equal(u32_at(v.p[i], 8 + adv), 2);
	assert_int_equal(v.size[i], 12 + adv);
	perf_bytes_free(&hdr);
	perf_bytes_free(&feat);

	f->ev[0].group_name = "grp";
	features_view(f, &end, &hdr, &feat, &v);
	i = view_find(&v, FEAT_GROUP_DESC);
	assert_string_equal(perf_string(v.p[i] + 4, &adv), "grp");
	perf_bytes_free(&hdr);
	perf_bytes_free(&feat);
}

/* ------------------------------------------------------------ pipe */

static void event_names_check(const struct fixture *f, const uint8_t *p, size_t off,
			      size_t len);

static void test_pipe_layout(void **state)
{
	struct fixture *f = *state;
	struct perfsink_bytes out = { 0 };
	const struct perfsink_compression comp = { .type = 1, .level = 1, .mmap_len = 4096 };

	assert_int_equal(perf_pipe_header(&f->s, &comp, &out), 0);
	assert_memory_equal(out.data, "PERFILE2", 8);
	assert_int_equal(u64_at(out.data, 8), 16);

	size_t off = 16;
	for (int e = 0; e < 2; e++) {
		assert_int_equal(u32_at(out.data, off), PERFSINK_RECORD_HEADER_ATTR);
		assert_int_equal(u16_at(out.data, off + 6), 8 + 128 + 8 * f->ev[e].nr_ids);
		assert_int_equal(u32_at(out.data, off + 12), 128);
		assert_memory_equal(out.data + off + 136, f->ev[e].ids, 8 * f->ev[e].nr_ids);
		off += u16_at(out.data, off + 6);
	}
	int last = 0;
	bool compressed = false;
	while (off < out.len) {
		assert_int_equal(u32_at(out.data, off), PERFSINK_RECORD_HEADER_FEATURE);
		int feat = (int)u64_at(out.data, off + 8);
		assert_true(feat > last); /* ascending, each once */
		last = feat;
		if (feat == FEAT_COMPRESSED) {
			compressed = true;
			assert_int_equal(u16_at(out.data, off + 6), 16 + 20);
			assert_int_equal(u32_at(out.data, off + 16 + 16), 4096);
		}
		assert_int_not_equal(feat, FEAT_TRACING_DATA);
		off += u16_at(out.data, off + 6);
		if (feat == FEAT_LAST)
			break;
	}
	assert_int_equal(last, FEAT_LAST);
	assert_true(compressed);
	/* No tracepoint: the EVENT_UPDATE names follow the end marker directly. */
	event_names_check(f, out.data, off, out.len);
	perf_bytes_free(&out);
}

/* EVENT_UPDATE (type 2, name) for each event from off to the end of the prologue. */
static void event_names_check(const struct fixture *f, const uint8_t *p, size_t off, size_t len)
{
	for (unsigned e = 0; e < f->evl.nr; e++) {
		assert_int_equal(u32_at(p, off), PERFSINK_RECORD_EVENT_UPDATE);
		uint16_t size = u16_at(p, off + 6);
		assert_int_equal(size % 8, 0);
		assert_int_equal(u64_at(p, off + 8), 2);
		assert_int_equal(u64_at(p, off + 16), f->ev[e].ids[0]);
		assert_string_equal((const char *)p + off + 24, f->ev[e].name);
		off += size;
	}
	assert_int_equal(off, len);
}

/* Too many ids for EVENT_DESC in one record: it is left out, names still come. */
static void test_pipe_event_desc_too_big(void **state)
{
	struct fixture *f = *state;
	struct perfsink_bytes out = { 0 };
	static uint64_t many[2][4500];

	for (int e = 0; e < 2; e++) {
		f->ev[e].ids = many[e];
		f->ev[e].nr_ids = 4500; /* HEADER_ATTR 36136 bytes fits; EVENT_DESC does not */
		many[e][0] = 100 + (uint64_t)e;
	}
	assert_int_equal(perf_pipe_header(&f->s, NULL, &out), 0);
	size_t off = 16;
	int feats = 0;
	while (u32_at(out.data, off) != PERFSINK_RECORD_EVENT_UPDATE) {
		if (u32_at(out.data, off) == PERFSINK_RECORD_HEADER_FEATURE) {
			assert_int_not_equal(u64_at(out.data, off + 8), FEAT_EVENT_DESC);
			feats++;
		}
		off += u16_at(out.data, off + 6);
	}
	assert_true(feats > 5);
	event_names_check(f, out.data, off, out.len);
	perf_bytes_free(&out);
}

static void test_pipe_attr_too_big(void **state)
{
	struct fixture *f = *state;
	struct perfsink_bytes out = { 0 };
	static uint64_t many[9000];

	f->ev[1].ids = many;
	f->ev[1].nr_ids = 9000; /* 8 + 128 + 72000 bytes: over a u16 record size */
	assert_int_equal(perf_pipe_header(&f->s, NULL, &out), -E2BIG);
	assert_null(out.data);
	/* File mode has no such limit. */
	assert_int_equal(perf_file_header(&f->s, NULL, &out), 0);
	perf_bytes_free(&out);
}

/* ------------------------------------------------------------ tracing */

static void test_tracefs_ids(void **state)
{
	if (!tracefs_root())
		skip();
	int64_t id = tracefs_event_id("sched", "sched_switch");
	assert_true(id > 0);
	assert_int_equal(tracefs_event_id("sched", "no_such_event_here"), -ENOENT);
	assert_int_equal(tracefs_event_id("..", "sched_switch"), -EINVAL);
	assert_int_equal(tracefs_event_id("sched", "a/b"), -EINVAL);
	assert_int_equal(tracefs_event_id("", "x"), -EINVAL);
}

/* Walk the blob as perf's trace-event-read.c does; returns the events seen. */
static int tracing_walk(const uint8_t *p, size_t len, int64_t want_id)
{
	static const uint8_t magic[] = { 0x17, 0x08, 'D', 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	assert_memory_equal(p, magic, 10);
	assert_string_equal((const char *)p + 10, "0.6");
	size_t off = 14;
	assert_int_equal(p[off], 0);          /* little-endian */
	assert_int_equal(p[off + 1], sizeof(long));
	assert_int_equal(u32_at(p, off + 2), sysconf(_SC_PAGESIZE));
	off += 6;
	assert_string_equal((const char *)p + off, "header_page");
	off += 12;
	off += 8 + u64_at(p, off);
	assert_string_equal((const char *)p + off, "header_event");
	off += 13;
	off += 8 + u64_at(p, off);
	assert_int_equal(u32_at(p, off), 0); /* no ftrace events */
	off += 4;
	uint32_t systems = u32_at(p, off);
	off += 4;
	int events = 0;
	for (uint32_t s = 0; s < systems; s++) {
		off += strlen((const char *)p + off) + 1;
		uint32_t n = u32_at(p, off);
		off += 4;
		for (uint32_t e = 0; e < n; e++, events++) {
			uint64_t sz = u64_at(p, off);
			char head[128];
			snprintf(head, sizeof(head), "name: sched_switch\nID: %lld\n",
				 (long long)want_id);
			if (events == 0)
				assert_memory_equal(p + off + 8, head, strlen(head));
			off += 8 + sz;
		}
	}
	assert_int_equal(u32_at(p, off), 0); /* kallsyms, empty like perf 6.1 */
	off += 4;
	off += 4 + u32_at(p, off);            /* printk_formats */
	off += 8 + u64_at(p, off);            /* saved_cmdlines */
	assert_int_equal(off, len);
	return events;
}

static void test_tracing_data_structure(void **state)
{
	if (!tracefs_root())
		skip();
	struct bytes b;
	bytes_init(&b);
	const char *sys[] = { "sched", "sched", "syscalls" };
	const char *name[] = { "sched_switch", "sched_switch", "sys_enter_getppid" };
	assert_int_equal(tracing_data_build(sys, name, 3, &b), 0);
	/* the duplicate is stored once; two systems */
	assert_int_equal(tracing_walk(b.p, b.len, tracefs_event_id("sched", "sched_switch")), 2);

	size_t len = b.len;
	const char *bad[] = { "no_such_event_here" };
	assert_int_equal(tracing_data_build(sys, bad, 1, &b), -ENOENT);
	assert_int_equal(b.len, len); /* left as it was */
	const char *evil[] = { "../../etc" };
	assert_int_equal(tracing_data_build(evil, name, 1, &b), -EINVAL);
	bytes_free(&b);
}

static void test_tracing_data_in_file_and_pipe(void **state)
{
	struct fixture *f = *state;
	if (!use_tracepoint(f))
		skip();
	struct perfsink_bytes hdr = { 0 }, feat = { 0 }, pipe = { 0 };
	struct perfsink_file_end end = { .data_offset = PERFSINK_BUF_ALIGN, .data_size = 8 };
	struct feat_view v;

	features_view(f, &end, &hdr, &feat, &v);
	assert_int_equal(v.id[0], FEAT_TRACING_DATA);
	assert_int_equal(v.size[0], f->td.len);
	assert_memory_equal(v.p[0], f->td.p, f->td.len);

	assert_int_equal(perf_pipe_header(&f->s, NULL, &pipe), 0);
	size_t off = 16, padded = (f->td.len + 7) & ~(size_t)7;
	for (;;) {
		uint32_t type = u32_at(pipe.data, off);
		uint16_t size = u16_at(pipe.data, off + 6);
		assert_int_not_equal(type, PERFSINK_RECORD_HEADER_TRACING_DATA);
		off += size;
		if (type == PERFSINK_RECORD_HEADER_FEATURE && u64_at(pipe.data, off - size + 8) == FEAT_LAST)
			break;
	}
	assert_int_equal(u32_at(pipe.data, off), PERFSINK_RECORD_HEADER_TRACING_DATA);
	assert_int_equal(u16_at(pipe.data, off + 6), 16);
	assert_int_equal(u32_at(pipe.data, off + 8), padded);
	assert_memory_equal(pipe.data + off + 16, f->td.p, f->td.len);
	for (size_t k = off + 16 + f->td.len; k < off + 16 + padded; k++)
		assert_int_equal(pipe.data[k], 0);
	event_names_check(f, pipe.data, off + 16 + padded, pipe.len);
	perf_bytes_free(&hdr);
	perf_bytes_free(&feat);
	perf_bytes_free(&pipe);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_header_layout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_header_final_same_length, setup, teardown),
		cmocka_unit_test_setup_teardown(test_header_rejects_wrong_offset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_features_payloads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_features_from_given_machine, setup, teardown),
		cmocka_unit_test_setup_teardown(test_features_topology_bpf_clock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_features_compressed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_features_group_desc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pipe_layout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pipe_attr_too_big, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pipe_event_desc_too_big, setup, teardown),
		cmocka_unit_test(test_tracefs_ids),
		cmocka_unit_test(test_tracing_data_structure),
		cmocka_unit_test_setup_teardown(test_tracing_data_in_file_and_pipe, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
