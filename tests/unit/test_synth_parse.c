/* Table tests for the /proc line parsers (real lines and odd ones). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include "probe/synth_parse.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct maps_case {
	const char *line;
	int rc;
	uint64_t start, end, pgoff, ino;
	uint32_t maj, min, prot, flags;
	const char *path;
};

#define RX (PROT_READ | PROT_EXEC)
#define RW (PROT_READ | PROT_WRITE)
static const struct maps_case maps_cases[] = {
	{ "5652537b5000-5652537ba000 r-xp 00002000 fe:00 247134                     /usr/bin/cat\n",
	  0, 0x5652537b5000, 0x5652537ba000, 0x2000, 247134, 0xfe, 0, RX, MAP_PRIVATE, "/usr/bin/cat" },
	{ "7f02f1579000-7f02f159b000 rw-p 00000000 00:00 0 \n",
	  0, 0x7f02f1579000, 0x7f02f159b000, 0, 0, 0, 0, RW, MAP_PRIVATE, "" },
	{ "7f02f1579000-7f02f159b000 rwxp 00000000 00:00 0",
	  0, 0x7f02f1579000, 0x7f02f159b000, 0, 0, 0, 0, RW | PROT_EXEC, MAP_PRIVATE, "" },
	{ "7f02f17f1000-7f02f17f3000 r-xp 00000000 00:00 0                          [vdso]\n",
	  0, 0x7f02f17f1000, 0x7f02f17f3000, 0, 0, 0, 0, RX, MAP_PRIVATE, "[vdso]" },
	{ "7ffdc8401000-7ffdc8422000 rw-p 00000000 00:00 0                          [stack]\n",
	  0, 0x7ffdc8401000, 0x7ffdc8422000, 0, 0, 0, 0, RW, MAP_PRIVATE, "[stack]" },
	{ "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n",
	  0, 0xffffffffff600000, 0xffffffffff601000, 0, 0, 0, 0, PROT_EXEC, MAP_PRIVATE, "[vsyscall]" },
	{ "7f5b22f09000-7f5b22fdc000 r-xs 0000a000 00:01 1024                       /memfd:sealed-91173221a7ea (deleted)\n",
	  0, 0x7f5b22f09000, 0x7f5b22fdc000, 0xa000, 1024, 0, 1, RX, MAP_SHARED,
	  "/memfd:sealed-91173221a7ea (deleted)" },
	{ "7f0000000000-7f0000001000 r-xp 00001000 103:0a 18446744073709551615 /opt/my app/lib v2 (x).so\n",
	  0, 0x7f0000000000, 0x7f0000001000, 0x1000, UINT64_MAX, 0x103, 0xa, RX, MAP_PRIVATE,
	  "/opt/my app/lib v2 (x).so" },
	{ "7f0000000000-7f0000001000 ---p 00000000 00:00 0   //anon-looking  \n",
	  0, 0x7f0000000000, 0x7f0000001000, 0, 0, 0, 0, 0, MAP_PRIVATE, "//anon-looking  " },
	{ .line = "", .rc = -EINVAL },
	{ .line = "\n", .rc = -EINVAL },
	{ .line = "garbage", .rc = -EINVAL },
	{ .line = "7f00-", .rc = -EINVAL },
	{ .line = "7f00-7f10", .rc = -EINVAL },
	{ .line = "7f00-7f10 r-xp", .rc = -EINVAL },
	{ .line = "7f00-7f10 r-xp 0 fe:00", .rc = -EINVAL },
	{ .line = "7f00-7f10 r-xq 0 fe:00 1 /a", .rc = -EINVAL },
	{ .line = "7f00-7f10 rx-p 0 fe:00 1 /a", .rc = -EINVAL },
	{ .line = "7f00-7f10 rwx 0 fe:00 1 /a", .rc = -EINVAL },
	{ .line = "zz00-7f10 r-xp 0 fe:00 1 /a", .rc = -EINVAL },
	{ .line = "7f10-7f00 r-xp 0 fe:00 1 /a", .rc = -EINVAL },
	{ .line = "7f00-7f10 r-xp 0 fe00 1 /a", .rc = -EINVAL },
	{ .line = "7f00-7f10 r-xp 0 fe:00 12x /a", .rc = -EINVAL },
	{ .line = "10000000000000000-7f10 r-xp 0 fe:00 1 /a", .rc = -EINVAL },
};

static void test_maps_lines(void **state)
{
	for (size_t i = 0; i < N(maps_cases); i++) {
		const struct maps_case *c = &maps_cases[i];
		char line[512];
		struct maps_entry e;

		snprintf(line, sizeof(line), "%s", c->line);
		int rc = maps_line_parse(line, &e);
		if (rc != c->rc)
			fail_msg("case %zu \"%s\": rc %d, want %d", i, c->line, rc, c->rc);
		if (rc)
			continue;
		assert_int_equal(e.start, c->start);
		assert_int_equal(e.end, c->end);
		assert_int_equal(e.pgoff, c->pgoff);
		assert_true(e.ino == c->ino);
		assert_int_equal(e.maj, c->maj);
		assert_int_equal(e.min, c->min);
		assert_int_equal(e.prot, c->prot);
		assert_int_equal(e.flags, c->flags);
		assert_string_equal(e.path, c->path);
	}
}

struct ksym_case {
	const char *line;
	int rc;
	uint64_t addr;
	char type;
	const char *name, *module;
};

static const struct ksym_case ksym_cases[] = {
	{ "ffffffff81000000 T _text\n", 0, 0xffffffff81000000, 'T', "_text", "" },
	{ "ffffffff82276988 T _etext", 0, 0xffffffff82276988, 'T', "_etext", "" },
	{ "0000000000000000 T _text\n", 0, 0, 'T', "_text", "" },
	{ "ffffffffc0002000 t nft_do_chain\t[nf_tables]\n", 0, 0xffffffffc0002000, 't',
	  "nft_do_chain", "nf_tables" },
	{ "ffffffffc0002000 t __pfx_x [kvm_intel]", 0, 0xffffffffc0002000, 't', "__pfx_x", "kvm_intel" },
	{ .line = "ffffffff81000000 T", .rc = -EINVAL },
	{ .line = "ffffffff81000000 T ", .rc = -EINVAL },
	{ .line = "ffffffff81000000 TT name", .rc = -EINVAL },
	{ .line = "", .rc = -EINVAL },
	{ .line = "xyz T a", .rc = -EINVAL },
};

static void test_kallsyms_lines(void **state)
{
	for (size_t i = 0; i < N(ksym_cases); i++) {
		const struct ksym_case *c = &ksym_cases[i];
		char line[256];
		struct ksym_entry s;

		snprintf(line, sizeof(line), "%s", c->line);
		int rc = kallsyms_line_parse(line, &s);
		if (rc != c->rc)
			fail_msg("case %zu \"%s\": rc %d, want %d", i, c->line, rc, c->rc);
		if (rc)
			continue;
		assert_true(s.addr == c->addr);
		assert_int_equal(s.type, c->type);
		assert_string_equal(s.name, c->name);
		assert_string_equal(s.module, c->module);
	}
}

struct mod_case {
	const char *line;
	int rc;
	const char *name;
	uint64_t size, addr;
};

static const struct mod_case mod_cases[] = {
	{ "nf_tables 286720 0 - Live 0xffffffffc0589000\n", 0, "nf_tables", 286720, 0xffffffffc0589000 },
	{ "e1000 155648 0 - Live 0xffffffffc0123000 (OE)\n", 0, "e1000", 155648, 0xffffffffc0123000 },
	{ "video 65536 1 i915,nouveau, Live 0x0000000000000000", 0, "video", 65536, 0 },
	{ "snd 1 2 - Loading 0xffffffffc0000000", 0, "snd", 1, 0xffffffffc0000000 },
	{ .line = "foo 12 0 - Live", .rc = -EINVAL },
	{ .line = "foo x 0 - Live 0x1", .rc = -EINVAL },
	{ .line = "foo 12 0 - Live 123", .rc = -EINVAL },
	{ .line = "foo 12 0 - Live 0xzz", .rc = -EINVAL },
	{ .line = "", .rc = -EINVAL },
};

static void test_modules_lines(void **state)
{
	for (size_t i = 0; i < N(mod_cases); i++) {
		const struct mod_case *c = &mod_cases[i];
		char line[256];
		struct module_entry m;

		snprintf(line, sizeof(line), "%s", c->line);
		int rc = modules_line_parse(line, &m);
		if (rc != c->rc)
			fail_msg("case %zu \"%s\": rc %d, want %d", i, c->line, rc, c->rc);
		if (rc)
			continue;
		assert_string_equal(m.name, c->name);
		assert_true(m.size == c->size);
		assert_true(m.addr == c->addr);
	}
}

struct mounts_case {
	const char *line;
	int rc;
	const char *mnt, *type;
};

static const struct mounts_case mounts_cases[] = {
	{ "hugetlbfs /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0\n", 0, "/dev/hugepages", "hugetlbfs" },
	{ "none /mnt/huge\\040pages hugetlbfs rw 0 0", 0, "/mnt/huge pages", "hugetlbfs" },
	{ "/dev/vda / ext4 rw,relatime 0 0\n", 0, "/", "ext4" },
	{ "tmpfs /a\\134b\\011c tmpfs rw 0 0", 0, "/a\\b\tc", "tmpfs" },
	{ "tmpfs /a\\9 tmpfs rw 0 0", 0, "/a\\9", "tmpfs" },
	{ .line = "tmpfs /x", .rc = -EINVAL },
	{ .line = "", .rc = -EINVAL },
};

static void test_mounts_lines(void **state)
{
	for (size_t i = 0; i < N(mounts_cases); i++) {
		const struct mounts_case *c = &mounts_cases[i];
		char line[256];
		const char *mnt, *type;

		snprintf(line, sizeof(line), "%s", c->line);
		int rc = mounts_line_parse(line, &mnt, &type);
		if (rc != c->rc)
			fail_msg("case %zu \"%s\": rc %d, want %d", i, c->line, rc, c->rc);
		if (rc)
			continue;
		assert_string_equal(mnt, c->mnt);
		assert_string_equal(type, c->type);
	}
}

struct status_case {
	const char *text;
	int rc;
	const char *name;
	pid_t tgid, ppid;
	bool kernel;
};

static const struct status_case status_cases[] = {
	{ "Name:\tbash\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t1187\nNgid:\t0\nPid:\t1187\n"
	  "PPid:\t1186\nTracerPid:\t0\nVmPeak:\t    8292 kB\nVmSize:\t    8292 kB\nThreads:\t1\n",
	  0, "bash", 1187, 1186, false },
	{ "Name:\tkthreadd\nUmask:\t0000\nState:\tS (sleeping)\nTgid:\t2\nNgid:\t0\nPid:\t2\n"
	  "PPid:\t0\nTracerPid:\t0\nThreads:\t1\n",
	  0, "kthreadd", 2, 0, true },
	{ "Name:\tkworker/0:1-events_power_efficient\nTgid:\t40\nPPid:\t2\nThreads:\t1\n",
	  0, "kworker/0:1-eve", 40, 2, true },
	{ "Name:\tmy prog\nTgid:\t7\nPid:\t8\nPPid:\t1\nVmPeak:\t1 kB\n", 0, "my prog", 7, 1, false },
	{ .text = "Name:\tx\nPid:\t8\n", .rc = -EINVAL },
	{ .text = "Tgid:\t8\n", .rc = -EINVAL },
	{ .text = "", .rc = -EINVAL },
};

static void test_status_texts(void **state)
{
	for (size_t i = 0; i < N(status_cases); i++) {
		const struct status_case *c = &status_cases[i];
		struct task_status st;

		int rc = task_status_parse(c->text, &st);
		if (rc != c->rc)
			fail_msg("case %zu: rc %d, want %d", i, rc, c->rc);
		if (rc)
			continue;
		assert_string_equal(st.name, c->name);
		assert_int_equal(st.tgid, c->tgid);
		assert_int_equal(st.ppid, c->ppid);
		assert_int_equal(st.kernel_thread, c->kernel);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maps_lines),
		cmocka_unit_test(test_kallsyms_lines),
		cmocka_unit_test(test_modules_lines),
		cmocka_unit_test(test_mounts_lines),
		cmocka_unit_test(test_status_texts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
