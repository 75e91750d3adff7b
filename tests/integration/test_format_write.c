/*
 * Writes a small perf.data through the format helpers, for format_perf.sh
 * to read with the real perf:
 *
 *   test_format_write VARIANT MODE OUT
 *
 * VARIANT: one  cpu-clock
 *          two  cpu-clock + task-clock (PERF_SAMPLE_IDENTIFIER)
 *          tp   sched:sched_switch + syscalls:sys_enter_getppid (IDENTIFIER, RAW)
 *          tp1  sched:sched_switch alone
 *          many as two, with 4500 ids per event: EVENT_DESC no longer fits
 *               one pipe record, the EVENT_UPDATE names must do
 * MODE:    file     complete file: header, records, features, final header
 *          filez    file with the COMPRESSED feature; the samples go in one
 *                   PERF_RECORD_COMPRESSED (zstd) when built with libzstd
 *          partial  what a crash leaves: header(NULL), records, data.size patched
 *          pipe     pipe-mode stream
 *          pipez    pipe-mode stream, COMPRESSED feature, samples compressed likewise
 *
 * Records: kernel MMAP, COMM and MMAP2 of this very binary, then samples whose
 * IPs are inside fmt_probe_alpha (3 per event) and fmt_probe_beta (1 per event).
 * Exit status 77 when tracefs is missing for a tracepoint variant.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif
#include "format/events.h"
#include "probe/machine.h"
#include "format/perf_file.h"
#include "format/record.h"
#include "format/stream.h"
#include "probe/tracing_data.h"

#define NR_IDS 2
#define NR_IDS_MANY 4500
#define SAMPLES_ALPHA 3
#define SAMPLES_BETA 1

/* The functions the samples point into; perf must name them. */
int fmt_probe_alpha(int n);
int fmt_probe_beta(int n);
__attribute__((noinline)) int fmt_probe_alpha(int n)
{
	volatile int acc = 0;
	for (int i = 0; i < n; i++)
		acc += i * 3;
	return acc;
}
__attribute__((noinline)) int fmt_probe_beta(int n)
{
	volatile int acc = 1;
	for (int i = 0; i < n; i++)
		acc *= i + 1;
	return acc;
}

struct event_spec {
	const char *name;
	uint32_t type;
	uint64_t config;
	const char *tp_sys, *tp_name;
};

static const struct event_spec cpu_clock = { "cpu-clock", PERF_TYPE_SOFTWARE,
					     PERF_COUNT_SW_CPU_CLOCK, NULL, NULL };
static const struct event_spec task_clock = { "task-clock", PERF_TYPE_SOFTWARE,
					      PERF_COUNT_SW_TASK_CLOCK, NULL, NULL };
static const struct event_spec sched_switch = { "sched:sched_switch", PERF_TYPE_TRACEPOINT, 0,
						"sched", "sched_switch" };
static const struct event_spec getppid_tp = { "syscalls:sys_enter_getppid",
					      PERF_TYPE_TRACEPOINT, 0, "syscalls",
					      "sys_enter_getppid" };

static struct ps_event_desc events[2];
static uint64_t ids[2][NR_IDS_MANY];
static unsigned nr_ids = NR_IDS;
static struct ps_events evl;
static struct bytes tracing;
static struct ps_machine machine;
static struct perfsink_stream_priv priv;
static struct perfsink_stream stream;
static const char *names[2];

static int die(const char *what, int err)
{
	fprintf(stderr, "test_format_write: %s: %s\n", what, strerror(err < 0 ? -err : err));
	return 1;
}

static int event_init(struct ps_event_desc *ev, const struct event_spec *spec, unsigned idx)
{
	memset(ev, 0, sizeof(*ev));
	ev->name = (char *)spec->name;
	ev->attr.type = spec->type;
	ev->attr.size = PS_ATTR_SIZE;
	ev->attr.config = spec->config;
	ev->attr.sample_type = evl.sample_type | PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD;
	ev->attr.sample_id_all = 1;
	ev->attr.disabled = 1;
	ev->attr.mmap = ev->attr.comm = ev->attr.mmap2 = ev->attr.task = 1;
	if (spec->tp_sys) {
		int64_t id = tracefs_event_id(spec->tp_sys, spec->tp_name);
		if (id < 0)
			return (int)id;
		ev->attr.config = (uint64_t)id;
		ev->attr.sample_period = 1;
		ev->attr.sample_type |= PERF_SAMPLE_RAW;
		ev->tp_sys = (char *)spec->tp_sys;
		ev->tp_name = (char *)spec->tp_name;
		evl.has_tracepoint = true;
	} else {
		ev->attr.freq = 1;
		ev->attr.sample_freq = 4000;
	}
	for (unsigned i = 0; i < nr_ids; i++)
		ids[idx][i] = 10000 * (idx + 1) + i;
	ev->ids = ids[idx];
	ev->nr_ids = nr_ids;
	return 0;
}

static int evlist_build(const char *variant)
{
	const struct event_spec *specs[2] = { NULL, NULL };
	if (!strcmp(variant, "one")) {
		specs[0] = &cpu_clock;
	} else if (!strcmp(variant, "two")) {
		specs[0] = &cpu_clock;
		specs[1] = &task_clock;
	} else if (!strcmp(variant, "tp")) {
		specs[0] = &sched_switch;
		specs[1] = &getppid_tp;
	} else if (!strcmp(variant, "many")) {
		specs[0] = &cpu_clock;
		specs[1] = &task_clock;
		nr_ids = NR_IDS_MANY;
	} else if (!strcmp(variant, "tp1")) {
		specs[0] = &sched_switch;
	} else {
		return -EINVAL;
	}
	evl.ev = events;
	evl.nr = specs[1] ? 2 : 1;
	evl.sample_id_all = true;
	evl.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	if (evl.nr > 1)
		evl.sample_type |= PERF_SAMPLE_IDENTIFIER;
	for (unsigned i = 0; i < evl.nr; i++) {
		int err = event_init(&events[i], specs[i], i);
		if (err)
			return err;
	}
	if (!evl.has_tracepoint)
		return 0;
	const char *sys[2], *tp[2];
	for (unsigned i = 0; i < evl.nr; i++) {
		sys[i] = events[i].tp_sys;
		tp[i] = events[i].tp_name;
	}
	return tracing_data_build(sys, tp, evl.nr, &tracing);
}

/* ------------------------------------------------------------ records */

static struct ps_sample_id sid_of(uint64_t time)
{
	struct ps_sample_id sid = { .pid = (uint32_t)getpid(), .tid = (uint32_t)getpid(),
				    .time = time, .id = ids[0][0], .cpu = 0 };
	return sid;
}

/* [kernel.kallsyms]_text as perf record synthesizes it, so perf finds the kernel map. */
static void add_kernel_mmap(struct bytes *b)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	unsigned long long addr, text = 0, etext = 0;
	char kind, sym[256];
	while (f && fscanf(f, "%llx %c %255s%*[^\n]", &addr, &kind, sym) == 3 && !(text && etext)) {
		if (!strcmp(sym, "_text"))
			text = addr;
		else if (!strcmp(sym, "_etext"))
			etext = addr;
	}
	if (f)
		fclose(f);
	if (!text || etext <= text)
		return;
	static const struct ps_sample_id none;
	size_t at = record_begin(b, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
	bytes_u32(b, UINT32_MAX);
	bytes_u32(b, 0);
	bytes_u64(b, text);
	bytes_u64(b, etext - text);
	bytes_u64(b, text);
	record_string(b, "[kernel.kallsyms]_text");
	record_end(b, at, &evl, &none);
}

static void add_comm(struct bytes *b)
{
	struct ps_sample_id sid = sid_of(0);
	size_t at = record_begin(b, PERF_RECORD_COMM, 0);
	bytes_u32(b, sid.pid);
	bytes_u32(b, sid.tid);
	record_string(b, "fmt_writer");
	record_end(b, at, &evl, &sid);
}

/* MMAP2 of the executable mapping of this binary, read from /proc/self/maps. */
static int add_self_mmap2(struct bytes *b)
{
	char exe[PATH_MAX], line[PATH_MAX + 128], path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -errno;
	exe[n] = '\0';
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return -errno;
	int err = -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff, ino;
		unsigned maj, min;
		char perms[8];
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %s", &start, &end, perms, &pgoff,
			   &maj, &min, &ino, path) != 8 || strcmp(perms, "r-xp") || strcmp(path, exe))
			continue;
		struct ps_sample_id sid = sid_of(0);
		size_t at = record_begin(b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
		bytes_u32(b, sid.pid);
		bytes_u32(b, sid.tid);
		bytes_u64(b, start);
		bytes_u64(b, end - start);
		bytes_u64(b, pgoff);
		bytes_u32(b, maj);
		bytes_u32(b, min);
		bytes_u64(b, ino);
		bytes_u64(b, 0);
		bytes_u32(b, PROT_READ | PROT_EXEC);
		bytes_u32(b, MAP_PRIVATE);
		record_string(b, exe);
		record_end(b, at, &evl, &sid);
		err = 0;
		break;
	}
	fclose(f);
	return err;
}

/* A sched_switch payload as the kernel lays it out (format file offsets). */
static void raw_sched_switch(uint8_t *raw, uint16_t type, uint32_t pid)
{
	int32_t prio = 120, next_pid = 0;
	int64_t state = 1; /* S */
	memcpy(raw, &type, 2);
	memcpy(raw + 4, &pid, 4);
	strcpy((char *)raw + 8, "fmt_writer");
	memcpy(raw + 24, &pid, 4);
	memcpy(raw + 28, &prio, 4);
	memcpy(raw + 32, &state, 8);
	strcpy((char *)raw + 40, "swapper/1");
	memcpy(raw + 56, &next_pid, 4);
	memcpy(raw + 60, &prio, 4);
}

static void raw_getppid(uint8_t *raw, uint16_t type, uint32_t pid)
{
	int32_t nr = 110; /* __NR_getppid on x86-64; perf only prints it */
	memcpy(raw, &type, 2);
	memcpy(raw + 4, &pid, 4);
	memcpy(raw + 8, &nr, 4);
}

/* RAW field: u32 size, payload, zero padding so that u32 + payload end 8-aligned. */
static void add_raw(struct bytes *b, const struct ps_event_desc *ev, uint32_t pid)
{
	uint8_t raw[64] = { 0 };
	size_t len = 12;
	if (!strcmp(ev->tp_name, "sched_switch")) {
		raw_sched_switch(raw, (uint16_t)ev->attr.config, pid);
		len = 64;
	} else {
		raw_getppid(raw, (uint16_t)ev->attr.config, pid);
	}
	uint32_t size = (uint32_t)(((len + 4 + 7) & ~(size_t)7) - 4);
	bytes_u32(b, size);
	bytes_add(b, raw, len);
	bytes_zero(b, size - len);
}

static void add_sample(struct bytes *b, unsigned e, uint64_t ip, uint64_t time, uint32_t cpu)
{
	const struct ps_event_desc *ev = &events[e];
	uint64_t st = ev->attr.sample_type;
	uint32_t pid = (uint32_t)getpid();
	size_t at = record_begin(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	if (st & PERF_SAMPLE_IDENTIFIER)
		bytes_u64(b, ev->ids[cpu % ev->nr_ids]);
	bytes_u64(b, ip);
	bytes_u32(b, pid);
	bytes_u32(b, pid);
	bytes_u64(b, time);
	bytes_u32(b, cpu);
	bytes_u32(b, 0);
	bytes_u64(b, ev->tp_sys ? 1 : 250000);
	if (st & PERF_SAMPLE_RAW)
		add_raw(b, ev, pid);
	record_end(b, at, NULL, NULL); /* samples carry no trailer */
}

/* What the engine synthesizes before ring data. */
static int synth_build(struct bytes *b)
{
	add_kernel_mmap(b);
	add_comm(b);
	int err = add_self_mmap2(b);
	return err ? err : b->err;
}

/* What the rings would deliver: samples, then a FINISHED_ROUND. */
static int samples_build(struct bytes *b)
{
	uint64_t t = 1000000000ULL;
	priv.first_sample_time = t;
	for (unsigned e = 0; e < evl.nr; e++) {
		for (unsigned k = 0; k < SAMPLES_ALPHA + SAMPLES_BETA; k++) {
			uint64_t ip = k < SAMPLES_ALPHA ? (uintptr_t)fmt_probe_alpha + 4
							: (uintptr_t)fmt_probe_beta + 4;
			add_sample(b, e, ip, t, k % 2);
			priv.last_sample_time = t;
			t += 1000;
		}
	}
	priv.samples = evl.nr * (SAMPLES_ALPHA + SAMPLES_BETA);
	size_t at = record_begin(b, PERFSINK_RECORD_FINISHED_ROUND, 0);
	record_end(b, at, NULL, NULL);
	return b->err;
}

/*
 * Append src as one PERF_RECORD_COMPRESSED: header + one zstd frame, not
 * padded (as perf writes it).  Without libzstd the records stay raw.
 */
static int compressed_add(struct bytes *out, const struct bytes *src)
{
#ifdef HAVE_ZSTD
	size_t cap = ZSTD_compressBound(src->len);
	if (cap > 65535 - 8)
		return -E2BIG;
	size_t at = record_begin(out, PERFSINK_RECORD_COMPRESSED, 0);
	uint8_t *dst = bytes_reserve(out, cap);
	if (!dst)
		return out->err;
	size_t n = ZSTD_compress(dst, cap, src->p, src->len, 1);
	if (ZSTD_isError(n))
		return -EIO;
	out->len += n;
	uint16_t size = (uint16_t)(out->len - at);
	bytes_put_at(out, at + offsetof(struct perf_event_header, size), &size, sizeof(size));
#else
	bytes_add(out, src->p, src->len);
#endif
	return out->err;
}

static int records_build(struct bytes *b, bool compress)
{
	struct bytes ring;
	bytes_init(&ring);
	int err = synth_build(b);
	if (!err)
		err = samples_build(&ring);
	if (!err && compress)
		err = compressed_add(b, &ring);
	else if (!err)
		bytes_add(b, ring.p, ring.len);
	bytes_free(&ring);
	return err ? err : b->err;
}

/* ------------------------------------------------------------ output */

static int pwrite_all(int fd, const void *p, size_t len, off_t off)
{
	const uint8_t *c = p;
	while (len) {
		ssize_t w = pwrite(fd, c, len, off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		c += w;
		len -= (size_t)w;
		off += w;
	}
	return 0;
}

static int write_file(int fd, const struct bytes *recs, bool complete,
		      const struct perfsink_compression *comp)
{
	struct perfsink_bytes hdr = { 0 }, feat = { 0 };
	int err = perf_file_header(&stream, NULL, &hdr);
	if (err)
		return err;
	struct perfsink_file_end end = { .data_offset = hdr.len, .data_size = recs->len,
					 .comp = comp };
	err = pwrite_all(fd, hdr.data, hdr.len, 0);
	perf_bytes_free(&hdr);
	if (!err)
		err = pwrite_all(fd, recs->p, recs->len, (off_t)end.data_offset);
	if (!err && !complete) {
		uint64_t size = recs->len;
		return pwrite_all(fd, &size, sizeof(size), PERF_FILE_DATA_SIZE_OFFSET);
	}
	if (!err)
		err = perf_file_features(&stream, &end, &feat);
	if (!err)
		err = pwrite_all(fd, feat.data, feat.len, (off_t)(end.data_offset + end.data_size));
	if (!err)
		err = perf_file_header(&stream, &end, &hdr);
	if (!err)
		err = pwrite_all(fd, hdr.data, hdr.len, 0);
	perf_bytes_free(&feat);
	perf_bytes_free(&hdr);
	return err;
}

static int write_pipe(int fd, const struct bytes *recs, const struct perfsink_compression *comp)
{
	struct perfsink_bytes hdr = { 0 };
	int err = perf_pipe_header(&stream, comp, &hdr);
	if (err)
		return err;
	err = pwrite_all(fd, hdr.data, hdr.len, 0);
	if (!err)
		err = pwrite_all(fd, recs->p, recs->len, (off_t)hdr.len);
	perf_bytes_free(&hdr);
	return err;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s one|two|tp|tp1|many file|filez|partial|pipe|pipez OUT\n", argv[0]);
		return 2;
	}
	fmt_probe_alpha(10);
	fmt_probe_beta(10);
	int err = evlist_build(argv[1]);
	if (err == -ENOENT && !tracefs_root())
		return 77;
	if (err)
		return die("evlist", err);
	for (unsigned i = 0; i < evl.nr; i++)
		names[i] = events[i].name;
	if ((err = machine_read(&machine)) < 0)
		return die("machine", err);
	priv = (struct perfsink_stream_priv){ .events = &evl, .argc = argc - 1, .argv = argv + 1,
					      .tracing_data = &tracing, .machine = &machine };
	stream = (struct perfsink_stream){ .nr_events = evl.nr, .event_names = names,
					   .nr_rings = 2, .session = "test", .priv = &priv };

	struct bytes recs;
	bytes_init(&recs);
	bool compress = !strcmp(argv[2], "filez") || !strcmp(argv[2], "pipez");
	err = records_build(&recs, compress);
	if (err)
		return die("records", err);
	int fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return die(argv[3], errno);
	const struct perfsink_compression zstd = { .type = 1, .level = 3, .ratio = 7,
						  .mmap_len = 528384 };
	if (!strcmp(argv[2], "file") || !strcmp(argv[2], "filez"))
		err = write_file(fd, &recs, true, !strcmp(argv[2], "filez") ? &zstd : NULL);
	else if (!strcmp(argv[2], "partial"))
		err = write_file(fd, &recs, false, NULL);
	else if (!strcmp(argv[2], "pipe") || !strcmp(argv[2], "pipez"))
		err = write_pipe(fd, &recs, !strcmp(argv[2], "pipez") ? &zstd : NULL);
	else
		err = -EINVAL;
	if (close(fd) && !err)
		err = -errno;
	bytes_free(&recs);
	bytes_free(&tracing);
	machine_free(&machine);
	return err ? die(argv[2], err) : 0;
}
