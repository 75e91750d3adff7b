/*
 * Synthesized records for real tasks of this machine: this test process
 * (with a second thread, an anonymous executable map and a deleted file with
 * spaces in its name), a zombie, every process in /proc, and the kernel.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "base/bytes.h"
#include "format/events.h"
#include "format/record.h"
#include "probe/synth.h"

/* sample_id trailer for TID|TIME|CPU: {pid,tid}, time, {cpu,res}. */
#define TRAILER 24

static struct ps_events evl = {
	.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
	.sample_id_all = true,
};

struct rec {
	uint32_t type;
	uint16_t misc, size;
	const uint8_t *p; /* whole record, header included */
};

static uint32_t u32_at(const struct rec *r, size_t off)
{
	uint32_t v;
	memcpy(&v, r->p + off, sizeof(v));
	return v;
}

static uint64_t u64_at(const struct rec *r, size_t off)
{
	uint64_t v;
	memcpy(&v, r->p + off, sizeof(v));
	return v;
}

/* Split b into records, checking the framing. */
static size_t records_split(const struct bytes *b, struct rec *out, size_t max)
{
	size_t off = 0, n = 0;

	assert_int_equal(b->err, 0);
	while (off < b->len) {
		struct perf_event_header h;
		assert_true(off + sizeof(h) <= b->len);
		memcpy(&h, b->p + off, sizeof(h));
		assert_true(h.size >= sizeof(h));
		assert_int_equal(h.size % 8, 0);
		assert_true(off + h.size <= b->len);
		assert_true(n < max);
		out[n++] = (struct rec){ h.type, h.misc, h.size, b->p + off };
		off += h.size;
	}
	assert_int_equal(off, b->len);
	return n;
}

/* Trailer of r: pid/tid as expected, time 0, cpu 0. */
static void trailer_check(const struct rec *r, uint32_t pid, uint32_t tid)
{
	size_t t = r->size - TRAILER;
	assert_int_equal(u32_at(r, t), pid);
	assert_int_equal(u32_at(r, t + 4), tid);
	assert_true(u64_at(r, t + 8) == 0);
	assert_true(u64_at(r, t + 16) == 0);
}

/* The NUL-terminated string at off must end inside the body, before the trailer. */
static const char *string_at(const struct rec *r, size_t off, size_t trailer)
{
	const char *s = (const char *)r->p + off;
	assert_non_null(memchr(s, '\0', r->size - trailer - off));
	return s;
}

#define MMAP2_FILENAME 72 /* header 8 + pid,tid 8 + start,len,pgoff 24 + maj,min,ino,gen 24 + prot,flags 8 */

static const char *mmap2_name(const struct rec *r) { return string_at(r, MMAP2_FILENAME, TRAILER); }

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pid_t worker_tid;
static bool worker_stop;

static void *worker(void *arg)
{
	pthread_mutex_lock(&mu);
	worker_tid = gettid();
	pthread_cond_broadcast(&cv);
	while (!worker_stop)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void read_self_comm(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/comm", "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, (int)len, f));
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* An executable file map whose name has spaces, unlinked: "... (deleted)". */
static void *map_deleted_file(char *path, size_t len)
{
	snprintf(path, len, "/tmp/synth test %d (lib).so", (int)getpid());
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0755);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 4096), 0);
	void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	assert_true(p != MAP_FAILED);
	close(fd);
	assert_int_equal(unlink(path), 0);
	return p;
}

static void test_own_process(void **state)
{
	pthread_t th;
	char comm[32], exe[PATH_MAX], deleted[128], deleted_name[160];
	struct stat exe_st;
	struct bytes b;
	struct rec r[4096];
	pid_t pid = getpid();
	ssize_t n;

	read_self_comm(comm, sizeof(comm));
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	assert_int_equal(stat(exe, &exe_st), 0);
	void *anon = mmap(NULL, 8192, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(anon != MAP_FAILED);
	void *del = map_deleted_file(deleted, sizeof(deleted));
	snprintf(deleted_name, sizeof(deleted_name), "%s (deleted)", deleted);

	pthread_mutex_lock(&mu);
	assert_int_equal(pthread_create(&th, NULL, worker, NULL), 0);
	while (!worker_tid)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);

	bytes_init(&b);
	assert_int_equal(synth_process(&b, &evl, pid), 0);
	size_t nr = records_split(&b, r, 4096);

	bool main_comm = false, worker_comm = false, worker_fork = false;
	bool saw_exe = false, saw_libc = false, saw_vdso = false, saw_anon = false, saw_del = false;
	for (size_t i = 0; i < nr; i++) {
		switch (r[i].type) {
		case PERF_RECORD_COMM: {
			uint32_t tid = u32_at(&r[i], 12);
			assert_int_equal(u32_at(&r[i], 8), pid);
			assert_int_equal(r[i].misc, 0);
			trailer_check(&r[i], pid, tid);
			if (tid == (uint32_t)pid) {
				assert_string_equal(string_at(&r[i], 16, TRAILER), comm);
				main_comm = true;
			} else if (tid == (uint32_t)worker_tid) {
				worker_comm = true;
			}
			break;
		}
		case PERF_RECORD_FORK:
			/* Only non-main threads, parented to the main thread. */
			assert_int_equal(r[i].misc, PERF_RECORD_MISC_FORK_EXEC);
			assert_int_equal(r[i].size, 8 + 24 + TRAILER);
			assert_int_equal(u32_at(&r[i], 8), pid);      /* pid */
			assert_int_equal(u32_at(&r[i], 12), pid);     /* ppid */
			assert_int_not_equal(u32_at(&r[i], 16), pid); /* tid */
			assert_int_equal(u32_at(&r[i], 20), pid);     /* ptid */
			assert_true(u64_at(&r[i], 24) == 0);
			trailer_check(&r[i], pid, u32_at(&r[i], 16));
			if (u32_at(&r[i], 16) == (uint32_t)worker_tid)
				worker_fork = true;
			break;
		case PERF_RECORD_MMAP2: {
			const char *name = mmap2_name(&r[i]);
			uint64_t start = u64_at(&r[i], 16);
			assert_true(main_comm); /* maps come after the main thread's COMM */
			assert_int_equal(r[i].misc, PERF_RECORD_MISC_USER);
			assert_int_equal(u32_at(&r[i], 8), pid);
			assert_int_equal(u32_at(&r[i], 12), pid);
			assert_true(u32_at(&r[i], 64) & PROT_EXEC);
			assert_true(u64_at(&r[i], 24) > 0); /* len */
			assert_true(u64_at(&r[i], 56) == 0); /* ino_generation */
			trailer_check(&r[i], pid, pid);
			if (!strcmp(name, exe)) {
				saw_exe = true;
				assert_true(u64_at(&r[i], 48) == exe_st.st_ino);
				assert_int_equal(u32_at(&r[i], 40), major(exe_st.st_dev));
				assert_int_equal(u32_at(&r[i], 44), minor(exe_st.st_dev));
				assert_int_equal(u32_at(&r[i], 68), MAP_PRIVATE);
			}
			if (strstr(name, "/libc.so"))
				saw_libc = true;
			if (!strcmp(name, "[vdso]"))
				saw_vdso = true;
			if (!strcmp(name, "//anon") && start == (uintptr_t)anon) {
				saw_anon = true;
				assert_true(u64_at(&r[i], 24) == 8192);
			}
			if (!strcmp(name, deleted_name) && start == (uintptr_t)del)
				saw_del = true;
			break;
		}
		default:
			fail_msg("unexpected record type %u", r[i].type);
		}
	}
	assert_true(main_comm);
	assert_true(worker_comm);
	assert_true(worker_fork);
	assert_true(saw_exe);
	assert_true(saw_libc);
	assert_true(saw_vdso);
	assert_true(saw_anon);
	assert_true(saw_del);

	pthread_mutex_lock(&mu);
	worker_stop = true;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	pthread_join(th, NULL);
	munmap(anon, 8192);
	munmap(del, 4096);
	bytes_free(&b);
}

/* MMAP2s of our own process: how many are data maps, and are they well formed. */
static unsigned data_maps(const struct ps_events *evs, bool *saw_self)
{
	struct bytes b;
	static struct rec r[4096];
	unsigned n = 0;
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	assert_true(len > 0);
	self[len] = '\0';
	*saw_self = false;
	bytes_init(&b);
	assert_int_equal(synth_process(&b, evs, getpid()), 0);
	size_t nr = records_split(&b, r, 4096);
	for (size_t i = 0; i < nr; i++) {
		if (r[i].type != PERF_RECORD_MMAP2)
			continue;
		uint32_t prot = u32_at(&r[i], 64);
		bool data = r[i].misc & PERF_RECORD_MISC_MMAP_DATA;
		/* perf's rule: exec maps plain, readable non-exec ones flagged. */
		assert_int_equal(data, !(prot & PROT_EXEC));
		if (data) {
			assert_true(prot & PROT_READ);
			n++;
			*saw_self |= !strcmp(mmap2_name(&r[i]), self);
		}
	}
	bytes_free(&b);
	return n;
}

/* attr mmap_data (DWARF call graphs) asks for the data maps, as perf does. */
static void test_data_maps(void **state)
{
	struct ps_event_desc ev = { .attr = { .mmap_data = 1 } };
	struct ps_events with = evl;
	bool self;

	(void)state;
	assert_int_equal(data_maps(&evl, &self), 0);
	with.ev = &ev;
	with.nr = 1;
	assert_true(data_maps(&with, &self) > 0);
	/* The read-only head of this very binary: where .eh_frame_hdr lives. */
	assert_true(self);
}

static void test_no_trailer_without_evlist(void **state)
{
	struct bytes b;
	struct rec r[4096];
	char comm[32];

	read_self_comm(comm, sizeof(comm));
	bytes_init(&b);
	assert_int_equal(synth_process(&b, NULL, getpid()), 0);
	size_t nr = records_split(&b, r, 4096);
	assert_true(nr > 1);
	assert_int_equal(r[0].type, PERF_RECORD_COMM);
	assert_int_equal(r[0].size, 16 + ((strlen(comm) + 1 + 7) & ~7u));
	bytes_free(&b);
}

static void test_gone_process(void **state)
{
	struct bytes b;
	pid_t child = fork();

	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	assert_int_equal(waitpid(child, NULL, 0), child);
	bytes_init(&b);
	assert_int_equal(synth_process(&b, &evl, child), -ESRCH);
	assert_int_equal(b.len, 0);
	bytes_free(&b);
}

/* A zombie still has /proc/PID but no maps: COMM only, no error. */
static void test_zombie(void **state)
{
	struct bytes b;
	struct rec r[16];
	int pfd[2];
	char c;
	pid_t child;

	assert_int_equal(pipe(pfd), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		close(pfd[0]);
		_exit(0);
	}
	close(pfd[1]);
	assert_int_equal(read(pfd[0], &c, 1), 0); /* child exited */
	close(pfd[0]);
	siginfo_t si;
	assert_int_equal(waitid(P_PID, (id_t)child, &si, WEXITED | WNOWAIT), 0);

	bytes_init(&b);
	assert_int_equal(synth_process(&b, &evl, child), 0);
	size_t nr = records_split(&b, r, 16);
	assert_int_equal(nr, 1);
	assert_int_equal(r[0].type, PERF_RECORD_COMM);
	assert_int_equal(u32_at(&r[0], 8), child);
	trailer_check(&r[0], child, child);
	bytes_free(&b);
	assert_int_equal(waitpid(child, NULL, 0), child);
}

static struct rec *all_recs;
enum { ALL_MAX = 1 << 18 };

static void test_all_processes(void **state)
{
	struct bytes b;
	struct synth_stats st;
	bool init_fork = false, init_comm = false, own_comm = false;

	all_recs = calloc(ALL_MAX, sizeof(*all_recs));
	assert_non_null(all_recs);
	bytes_init(&b);
	assert_int_equal(synth_all_processes_budget(&b, &evl, 500, &st), 0);
	size_t nr = records_split(&b, all_recs, ALL_MAX);
	assert_true(st.processes > 2);
	for (size_t i = 0; i < nr; i++) {
		const struct rec *r = &all_recs[i];
		if (r->type == PERF_RECORD_FORK && u32_at(r, 16) == 1) {
			assert_int_equal(u32_at(r, 8), 1);
			assert_int_equal(u32_at(r, 12), 0); /* PPid of init */
			init_fork = true;
		}
		if (r->type == PERF_RECORD_COMM && u32_at(r, 12) == 1) {
			assert_true(init_fork); /* FORK before COMM, like perf */
			init_comm = true;
		}
		if (r->type == PERF_RECORD_COMM && u32_at(r, 12) == (uint32_t)getpid())
			own_comm = true;
	}
	assert_true(init_comm);
	assert_true(own_comm);
	free(all_recs);
	bytes_free(&b);
}

/* Budget 0: every process with maps gets exactly one flagged MMAP2. */
static void test_all_processes_timeout(void **state)
{
	struct bytes b;
	struct synth_stats st;
	unsigned flagged = 0, own = 0;

	all_recs = calloc(ALL_MAX, sizeof(*all_recs));
	assert_non_null(all_recs);
	bytes_init(&b);
	assert_int_equal(synth_all_processes_budget(&b, &evl, 0, &st), 0);
	size_t nr = records_split(&b, all_recs, ALL_MAX);
	for (size_t i = 0; i < nr; i++) {
		const struct rec *r = &all_recs[i];
		if (r->type != PERF_RECORD_MMAP2)
			continue;
		assert_int_equal(r->misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT);
		flagged++;
		if (u32_at(r, 8) == (uint32_t)getpid())
			own++;
	}
	assert_true(st.maps_truncated >= 1);
	assert_int_equal(flagged, st.maps_truncated);
	assert_int_equal(own, 1);
	free(all_recs);
	bytes_free(&b);
}

static int kallsyms_lookup(const char *sym, uint64_t *addr)
{
	char line[512], name[256], type;
	unsigned long long a;
	FILE *f = fopen("/proc/kallsyms", "r");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 && !strcmp(name, sym)) {
			*addr = a;
			found = 1;
		}
	fclose(f);
	return found;
}

static void test_kernel_mmap(void **state)
{
	struct bytes b;
	struct rec r[8];
	uint64_t text = 0, etext = 0;

	if (!kallsyms_lookup("_text", &text) || !kallsyms_lookup("_etext", &etext) || !text)
		skip(); /* kptr_restrict: covered by test_kernel_mmap_hidden */
	bytes_init(&b);
	assert_int_equal(synth_kernel_mmap(&b, &evl), 0);
	size_t nr = records_split(&b, r, 8);
	assert_true(nr >= 1);
	assert_int_equal(r[0].type, PERF_RECORD_MMAP);
	assert_int_equal(r[0].misc, PERF_RECORD_MISC_KERNEL);
	assert_int_equal(u32_at(&r[0], 8), UINT32_MAX);
	assert_int_equal(u32_at(&r[0], 12), 0);
	assert_true(u64_at(&r[0], 16) == text);
	assert_true(u64_at(&r[0], 24) == etext - text);
	assert_true(u64_at(&r[0], 32) == text);
	assert_string_equal(string_at(&r[0], 40, TRAILER), "[kernel.kallsyms]_text");
	assert_int_equal(r[0].size, 40 + 24 + TRAILER);
	trailer_check(&r[0], UINT32_MAX, 0);
	bytes_free(&b);
}

static char tmpdir[64];

static void write_file(const char *name, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const char *tmp_path(const char *name)
{
	static char path[4][256];
	static int i;
	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", tmpdir, name);
	return path[i];
}

struct kallsyms_case {
	const char *text;
	int rc;
	const char *filename;
	uint64_t start, len;
};

static const struct kallsyms_case kallsyms_cases[] = {
	{ .text = "0000000000000000 T _stext\n0000000000000000 T _text\n0000000000000000 T _etext\n", .rc = -EACCES },
	{ "ffffffff81000000 T startup_64\nffffffff81000000 T _stext\nffffffff82000000 T _etext\n", 0,
	  "[kernel.kallsyms]_stext", 0xffffffff81000000, 0x1000000 },
	{ "ffffffff81000000 T _text\nffffffff81000100 T foo\n", 0, "[kernel.kallsyms]_text",
	  0xffffffff81000000, UINT64_MAX - 0xffffffff81000000 },
	{ .text = "ffffffff81000000 T foo\nffffffff82000000 T _etext\n", .rc = -ENOENT },
	{ .text = "", .rc = -ENOENT },
	{ .text = "garbage\n\n ffffffff81000000 T _text\n", .rc = -ENOENT },
};

static void test_kernel_mmap_fake_kallsyms(void **state)
{
	for (size_t i = 0; i < sizeof(kallsyms_cases) / sizeof(kallsyms_cases[0]); i++) {
		const struct kallsyms_case *c = &kallsyms_cases[i];
		struct synth_kernel_src src = { tmp_path("kallsyms"), tmp_path("nomodules"), tmpdir };
		struct bytes b;
		struct rec r[4];

		write_file("kallsyms", c->text);
		bytes_init(&b);
		int rc = synth_kernel_mmap_from(&b, &evl, &src);
		if (rc != c->rc)
			fail_msg("case %zu: rc %d, want %d", i, rc, c->rc);
		if (rc) {
			assert_int_equal(b.len, 0);
		} else {
			assert_int_equal(records_split(&b, r, 4), 1);
			assert_string_equal(string_at(&r[0], 40, TRAILER), c->filename);
			assert_true(u64_at(&r[0], 16) == c->start);
			assert_true(u64_at(&r[0], 24) == c->len);
			assert_true(u64_at(&r[0], 32) == c->start);
		}
		bytes_free(&b);
	}
	struct synth_kernel_src none = { .kallsyms = tmp_path("no-such-file") };
	struct bytes b;
	bytes_init(&b);
	assert_int_equal(synth_kernel_mmap_from(&b, &evl, &none), -ENOENT);
	bytes_free(&b);
}

struct iomem_case {
	const char *text;
	int rc;
	uint64_t len;
};

static const struct iomem_case iomem_cases[] = {
	{ "00000000-00000fff : Reserved\n100000000-1ffffffff : System RAM\n"
	  "  01000000-02276987 : Kernel code\n  02400000-02e0afff : Kernel rodata\n", 0, 0x1276988 },
	{ "  00000000-00000000 : Kernel code\n", -EACCES, 0 },
	{ "  01000000-02276987 : Kernel codex\n  01000000-02276987 : Kernel data\n", -ENOENT, 0 },
	{ "", -ENOENT, 0 },
	{ "garbage\n01000000 : Kernel code\n", -ENOENT, 0 },
};

static void test_kernel_code_len(void **state)
{
	for (size_t i = 0; i < sizeof(iomem_cases) / sizeof(iomem_cases[0]); i++) {
		uint64_t len = 0;
		write_file("iomem", iomem_cases[i].text);
		int rc = kernel_code_len(tmp_path("iomem"), &len);
		if (rc != iomem_cases[i].rc || (rc == 0 && len != iomem_cases[i].len))
			fail_msg("case %zu: rc %d len %#llx", i, rc, (unsigned long long)len);
	}
	uint64_t len;
	assert_int_equal(kernel_code_len(tmp_path("no-such-file"), &len), -ENOENT);
}

/* The iomem length is used only with _text; otherwise kallsyms to _etext. */
static void test_kernel_text_quick(void **state)
{
	struct kernel_text kt;

	write_file("kallsyms", "ffffffff81000000 T _stext\nffffffff81000000 T _text\n"
			       "ffffffff81000100 T foo\nffffffff81800000 T _etext\n");
	write_file("iomem", "  01000000-02276987 : Kernel code\n");
	assert_int_equal(kernel_text_quick(tmp_path("kallsyms"), tmp_path("iomem"), &kt), 0);
	assert_string_equal(kt.ref, "_text");
	assert_true(kt.start == 0xffffffff81000000);
#if defined(__x86_64__)
	assert_true(kt.end == 0xffffffff81000000 + 0x1276988);
#else
	assert_true(kt.end == 0xffffffff81800000);
#endif
	write_file("iomem", "  00000000-00000000 : Kernel code\n");
	assert_int_equal(kernel_text_quick(tmp_path("kallsyms"), tmp_path("iomem"), &kt), 0);
	assert_true(kt.end == 0xffffffff81800000);
	write_file("kallsyms", "ffffffff81000000 T _stext\nffffffff81800000 T _etext\n");
	write_file("iomem", "  01000000-02276987 : Kernel code\n");
	assert_int_equal(kernel_text_quick(tmp_path("kallsyms"), tmp_path("iomem"), &kt), 0);
	assert_true(kt.end == 0xffffffff81800000);
	write_file("kallsyms", "");
	assert_int_equal(kernel_text_quick(tmp_path("kallsyms"), tmp_path("iomem"), &kt), -ENOENT);
}

static void test_kernel_modules(void **state)
{
	char dir[256];
	struct bytes b;
	struct rec r[8];

	write_file("kallsyms", "ffffffff81000000 T _text\nffffffff82000000 T _etext\n");
	write_file("modules",
		   "foo_bar 16384 0 - Live 0xffffffffc0010000 (OE)\n"
		   "hidden 8192 0 - Live 0x0000000000000000\n"
		   "baz 4096 1 foo_bar, Live 0xffffffffc0020000\n"
		   "broken line\n");
	snprintf(dir, sizeof(dir), "%s/mods/kernel/drivers/net", tmpdir);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", dir);
	assert_int_equal(system(cmd), 0);
	write_file("mods/kernel/drivers/net/foo-bar.ko.xz", "");
	write_file("mods/kernel/drivers/net/other.ko", "");

	struct synth_kernel_src src = { tmp_path("kallsyms"), tmp_path("modules"), tmp_path("mods") };
	bytes_init(&b);
	assert_int_equal(synth_kernel_mmap_from(&b, &evl, &src), 0);
	assert_int_equal(records_split(&b, r, 8), 3);
	assert_string_equal(string_at(&r[1], 40, TRAILER),
			    tmp_path("mods/kernel/drivers/net/foo-bar.ko.xz"));
	assert_true(u64_at(&r[1], 16) == 0xffffffffc0010000);
	assert_true(u64_at(&r[1], 24) == 16384);
	assert_int_equal(r[1].misc, PERF_RECORD_MISC_KERNEL);
	assert_int_equal(u32_at(&r[1], 8), UINT32_MAX);
	assert_string_equal(string_at(&r[2], 40, TRAILER), "[baz]");
	assert_true(u64_at(&r[2], 16) == 0xffffffffc0020000);
	bytes_free(&b);

	char out[512];
	assert_int_equal(kmodule_path_find(tmp_path("mods"), "other", out, sizeof(out)), 0);
	assert_string_equal(out, tmp_path("mods/kernel/drivers/net/other.ko"));
	assert_int_equal(kmodule_path_find(tmp_path("mods"), "nope", out, sizeof(out)), -ENOENT);
	assert_int_equal(kmodule_path_find(tmp_path("mods"), "other", out, 8), -ENAMETOOLONG);
}

/* Byte-exact: header, pid, tid, name padded to 8, then the trailer. */
static void test_comm_bytes(void **state)
{
	static const uint8_t want[] = {
		3, 0, 0, 0, 0, 0, 56, 0,                   /* COMM, misc 0, size 56 */
		42, 0, 0, 0, 43, 0, 0, 0,                  /* pid 42, tid 43 */
		'p', 'e', 'r', 'f', '-', 'e', 'x', 'e',
		'c', 0, 0, 0, 0, 0, 0, 0,
		42, 0, 0, 0, 43, 0, 0, 0,                  /* trailer: pid/tid */
		0, 0, 0, 0, 0, 0, 0, 0,                    /* time */
		0, 0, 0, 0, 0, 0, 0, 0,                    /* cpu, res */
	};
	struct bytes b;

	bytes_init(&b);
	synth_comm(&b, &evl, 42, 43, "perf-exec");
	assert_int_equal(b.len, sizeof(want));
	assert_memory_equal(b.p, want, sizeof(want));
	bytes_free(&b);
}

static void test_finished_init(void **state)
{
	struct bytes b;
	struct perf_event_header h;

	bytes_init(&b);
	synth_finished_init(&b);
	assert_int_equal(b.len, 8);
	memcpy(&h, b.p, sizeof(h));
	assert_int_equal(h.type, PERFSINK_RECORD_FINISHED_INIT);
	assert_int_equal(h.type, 82);
	assert_int_equal(h.misc, 0);
	assert_int_equal(h.size, 8);
	bytes_free(&b);
}

static int tmp_setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_synth.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int tmp_teardown(void **state)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_process),
		cmocka_unit_test(test_no_trailer_without_evlist),
		cmocka_unit_test(test_data_maps),
		cmocka_unit_test(test_gone_process),
		cmocka_unit_test(test_zombie),
		cmocka_unit_test(test_all_processes),
		cmocka_unit_test(test_all_processes_timeout),
		cmocka_unit_test(test_kernel_mmap),
		cmocka_unit_test(test_kernel_mmap_fake_kallsyms),
		cmocka_unit_test(test_kernel_code_len),
		cmocka_unit_test(test_kernel_text_quick),
		cmocka_unit_test(test_kernel_modules),
		cmocka_unit_test(test_comm_bytes),
		cmocka_unit_test(test_finished_init),
	};
	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
