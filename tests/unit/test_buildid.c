/*
 * Build-ids of real binaries (checked against readelf and perf), of ELF
 * files built here for each class/byte-order/layout, and of broken files.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <elf.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "probe/buildid.h"

static char tmpdir[64];

static const char *tmp_path(const char *name)
{
	static char path[256];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return path;
}

/* "Build ID: <hex>" from a command's output, or "" when it prints none. */
static void command_buildid(const char *cmd, const char *key, char *out, size_t len)
{
	char line[512];
	FILE *p = popen(cmd, "r");

	out[0] = '\0';
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char *k = key ? strstr(line, key) : line;
		if (!k)
			continue;
		k += key ? strlen(key) : 0;
		k += strspn(k, " \t");
		snprintf(out, len, "%.*s", (int)strspn(k, "0123456789abcdef"), k);
		break;
	}
	pclose(p);
}

static void check_against_readelf(const char *path)
{
	char cmd[512], want[64], got[2 * BUILDID_MAX + 1];
	uint8_t id[BUILDID_MAX];
	size_t len = 0;

	snprintf(cmd, sizeof(cmd), "LC_ALL=C readelf -n '%s' 2>/dev/null", path);
	command_buildid(cmd, "Build ID:", want, sizeof(want));
	int rc = buildid_read_file(path, id, &len);
	if (!want[0]) {
		assert_int_equal(rc, -ENODATA);
		return;
	}
	assert_int_equal(rc, 0);
	buildid_hex(id, len, got);
	assert_string_equal(got, want);
}

static void test_system_binaries(void **state)
{
	if (system("readelf --version >/dev/null 2>&1") != 0)
		skip();
	check_against_readelf("/bin/ls");
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	check_against_readelf(exe); /* readelf's own /proc/self/exe would be readelf */
	check_against_readelf("/lib/x86_64-linux-gnu/libc.so.6");
}

static void test_kernel(void **state)
{
	const char *perf = getenv("PERF") ? getenv("PERF") : "/usr/bin/perf";
	char cmd[512], want[64], got[2 * BUILDID_MAX + 1];
	uint8_t id[BUILDID_MAX];
	size_t len;

	if (access(perf, X_OK) != 0 || access("/sys/kernel/notes", R_OK) != 0)
		skip();
	snprintf(cmd, sizeof(cmd), "'%s' buildid-list -k 2>/dev/null", perf);
	command_buildid(cmd, NULL, want, sizeof(want));
	assert_int_equal(buildid_read_kernel(id, &len), 0);
	buildid_hex(id, len, got);
	assert_string_equal(got, want);
}

static void write_bytes(const char *name, const void *p, size_t n)
{
	FILE *f = fopen(tmp_path(name), "w");
	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	fclose(f);
}

static void test_bad_files(void **state)
{
	uint8_t id[BUILDID_MAX];
	size_t len;

	assert_int_equal(buildid_read_file("/etc/passwd", id, &len), -ENOEXEC);
	assert_int_equal(buildid_read_file(tmp_path("missing"), id, &len), -ENOENT);
	assert_int_equal(buildid_read_file("/", id, &len), -EISDIR);
	assert_int_equal(buildid_read_file("/dev/null", id, &len), -ENOEXEC);
	write_bytes("empty", "", 0);
	assert_int_equal(buildid_read_file(tmp_path("empty"), id, &len), -ENOEXEC);
	write_bytes("elfclass9", "\177ELF\011\001\001", 7);
	assert_int_equal(buildid_read_file(tmp_path("elfclass9"), id, &len), -ENOEXEC);
}

/* /bin/ls cut at several points up to the middle of its build-id note. */
static void test_truncated_elf(void **state)
{
	uint8_t id[BUILDID_MAX], id2[BUILDID_MAX];
	size_t len, len2;
	FILE *f = fopen("/bin/ls", "r");
	static uint8_t buf[1 << 16];
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_int_equal(buildid_read_file("/bin/ls", id, &len), 0);
	uint8_t *at = memmem(buf, n, id, len);
	assert_non_null(at);
	size_t cuts[] = { 1, 4, 16, 63, 64, 100, (size_t)(at - buf) - 16, (size_t)(at - buf) + 10 };
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		write_bytes("cut", buf, cuts[i]);
		int rc = buildid_read_file(tmp_path("cut"), id2, &len2);
		if (rc != -ENOEXEC)
			fail_msg("cut at %zu: rc %d, want -ENOEXEC", cuts[i], rc);
	}
	/* Cut well after the notes (section headers lost): still found. */
	write_bytes("cut", buf, 4096);
	assert_int_equal(buildid_read_file(tmp_path("cut"), id2, &len2), 0);
	assert_memory_equal(id, id2, len);
}

/* ---- ELF files built here ---- */

struct elf_case {
	const char *what;
	bool is64, msb, phdr;
	unsigned align;  /* 4 or 8 */
	unsigned descsz; /* of the build-id note */
	uint32_t type;   /* NT_GNU_BUILD_ID, or another type: no id */
	const char *name;
	int rc;
	size_t want_len;
};

static const struct elf_case elf_cases[] = {
	{ "64 LSB phdr", true, false, true, 4, 20, NT_GNU_BUILD_ID, "GNU", 0, 20 },
	{ "64 LSB phdr align 8", true, false, true, 8, 20, NT_GNU_BUILD_ID, "GNU", 0, 20 },
	{ "32 LSB phdr", false, false, true, 4, 20, NT_GNU_BUILD_ID, "GNU", 0, 20 },
	{ "32 MSB phdr md5-size id", false, true, true, 4, 16, NT_GNU_BUILD_ID, "GNU", 0, 16 },
	{ "64 MSB sections", true, true, false, 4, 20, NT_GNU_BUILD_ID, "GNU", 0, 20 },
	{ "32 LSB sections align 8", false, false, false, 8, 8, NT_GNU_BUILD_ID, "GNU", 0, 8 },
	{ "64 LSB long id cut to 20", true, false, false, 4, 32, NT_GNU_BUILD_ID, "GNU", 0, 20 },
	{ "no build-id note", true, false, true, 4, 20, NT_GNU_ABI_TAG, "GNU", -ENODATA, 0 },
	{ "other owner", true, false, true, 4, 20, NT_GNU_BUILD_ID, "XYZ", -ENODATA, 0 },
	{ "empty id", true, false, true, 4, 0, NT_GNU_BUILD_ID, "GNU", -ENODATA, 0 },
};

static void put(uint8_t *p, size_t off, uint64_t v, size_t size, bool msb)
{
	for (size_t i = 0; i < size; i++)
		p[off + (msb ? size - 1 - i : i)] = (uint8_t)(v >> (8 * i));
}

#define PUT(buf, T, field, v, msb) put(buf, offsetof(T, field), v, sizeof(((T *)0)->field), msb)

/* Notes at 0x200: a 12-byte-desc note first, so 4- and 8-alignment differ. */
static size_t notes_build(uint8_t *p, const struct elf_case *c, uint8_t *id)
{
	size_t off = 0x200, a = c->align;

	put(p, off, 4, 4, c->msb);
	put(p, off + 4, 12, 4, c->msb);
	put(p, off + 8, 5 /* NT_GNU_PROPERTY_TYPE_0 */, 4, c->msb);
	memcpy(p + off + 12, "GNU", 4);
	off = (off + 16 + 12 + a - 1) & ~(a - 1);
	put(p, off, 4, 4, c->msb);
	put(p, off + 4, c->descsz, 4, c->msb);
	put(p, off + 8, c->type, 4, c->msb);
	memcpy(p + off + 12, c->name, 4);
	for (unsigned i = 0; i < c->descsz; i++)
		p[off + 16 + i] = id[i] = (uint8_t)(0xa0 + i);
	return off + 16 + ((c->descsz + a - 1) & ~(a - 1)) - 0x200;
}

static size_t elf_build(uint8_t *p, const struct elf_case *c, uint8_t *id)
{
	bool m = c->msb;
	size_t notes = notes_build(p, c, id);

	memcpy(p, ELFMAG, SELFMAG);
	p[EI_CLASS] = c->is64 ? ELFCLASS64 : ELFCLASS32;
	p[EI_DATA] = m ? ELFDATA2MSB : ELFDATA2LSB;
	p[EI_VERSION] = EV_CURRENT;
	if (c->is64) {
		PUT(p, Elf64_Ehdr, e_type, c->phdr ? ET_EXEC : ET_REL, m);
		PUT(p, Elf64_Ehdr, e_ehsize, sizeof(Elf64_Ehdr), m);
		if (c->phdr) {
			PUT(p, Elf64_Ehdr, e_phoff, 0x40, m);
			PUT(p, Elf64_Ehdr, e_phentsize, sizeof(Elf64_Phdr), m);
			PUT(p, Elf64_Ehdr, e_phnum, 2, m); /* a PT_NULL, then the PT_NOTE */
			uint8_t *ph = p + 0x40 + sizeof(Elf64_Phdr);
			PUT(ph, Elf64_Phdr, p_type, PT_NOTE, m);
			PUT(ph, Elf64_Phdr, p_offset, 0x200, m);
			PUT(ph, Elf64_Phdr, p_filesz, notes, m);
			PUT(ph, Elf64_Phdr, p_align, c->align, m);
		} else {
			PUT(p, Elf64_Ehdr, e_shoff, 0x100, m);
			PUT(p, Elf64_Ehdr, e_shentsize, sizeof(Elf64_Shdr), m);
			PUT(p, Elf64_Ehdr, e_shnum, 2, m);
			uint8_t *sh = p + 0x100 + sizeof(Elf64_Shdr);
			PUT(sh, Elf64_Shdr, sh_type, SHT_NOTE, m);
			PUT(sh, Elf64_Shdr, sh_offset, 0x200, m);
			PUT(sh, Elf64_Shdr, sh_size, notes, m);
			PUT(sh, Elf64_Shdr, sh_addralign, c->align, m);
		}
	} else {
		PUT(p, Elf32_Ehdr, e_type, c->phdr ? ET_EXEC : ET_REL, m);
		PUT(p, Elf32_Ehdr, e_ehsize, sizeof(Elf32_Ehdr), m);
		if (c->phdr) {
			PUT(p, Elf32_Ehdr, e_phoff, 0x40, m);
			PUT(p, Elf32_Ehdr, e_phentsize, sizeof(Elf32_Phdr), m);
			PUT(p, Elf32_Ehdr, e_phnum, 2, m);
			uint8_t *ph = p + 0x40 + sizeof(Elf32_Phdr);
			PUT(ph, Elf32_Phdr, p_type, PT_NOTE, m);
			PUT(ph, Elf32_Phdr, p_offset, 0x200, m);
			PUT(ph, Elf32_Phdr, p_filesz, notes, m);
			PUT(ph, Elf32_Phdr, p_align, c->align, m);
		} else {
			PUT(p, Elf32_Ehdr, e_shoff, 0x100, m);
			PUT(p, Elf32_Ehdr, e_shentsize, sizeof(Elf32_Shdr), m);
			PUT(p, Elf32_Ehdr, e_shnum, 2, m);
			uint8_t *sh = p + 0x100 + sizeof(Elf32_Shdr);
			PUT(sh, Elf32_Shdr, sh_type, SHT_NOTE, m);
			PUT(sh, Elf32_Shdr, sh_offset, 0x200, m);
			PUT(sh, Elf32_Shdr, sh_size, notes, m);
			PUT(sh, Elf32_Shdr, sh_addralign, c->align, m);
		}
	}
	return 0x200 + notes;
}

static void test_built_elves(void **state)
{
	for (size_t i = 0; i < sizeof(elf_cases) / sizeof(elf_cases[0]); i++) {
		const struct elf_case *c = &elf_cases[i];
		uint8_t img[0x400] = { 0 }, want[64], id[BUILDID_MAX];
		size_t len = 0;

		size_t n = elf_build(img, c, want);
		write_bytes("built", img, n);
		int rc = buildid_read_file(tmp_path("built"), id, &len);
		if (rc != c->rc)
			fail_msg("%s: rc %d, want %d", c->what, rc, c->rc);
		if (rc)
			continue;
		assert_int_equal(len, c->want_len);
		assert_memory_equal(id, want, len);
		for (size_t k = len; k < BUILDID_MAX; k++)
			assert_int_equal(id[k], 0);
		/* Any cut inside the note area is a truncated file. */
		write_bytes("built", img, n - 4);
		assert_int_equal(buildid_read_file(tmp_path("built"), id, &len), -ENOEXEC);
	}
}

static void test_hex(void **state)
{
	const uint8_t id[] = { 0x00, 0x0f, 0xa3, 0xff };
	char out[9];

	buildid_hex(id, sizeof(id), out);
	assert_string_equal(out, "000fa3ff");
	buildid_hex(id, 0, out);
	assert_string_equal(out, "");
}

static int tmp_setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_buildid.XXXXXX");
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
		cmocka_unit_test(test_system_binaries),
		cmocka_unit_test(test_kernel),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_truncated_elf),
		cmocka_unit_test(test_built_elves),
		cmocka_unit_test(test_hex),
	};
	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
