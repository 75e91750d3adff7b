/*
 * kit_debuglink_of_fd and kit_debuglink_crc32 (plugins/kit/debuglink.c):
 * the name and CRC32 of an ELF file's .gnu_debuglink, from a small ELF
 * image written to a temporary file for each case (64- and 32-bit, both
 * byte orders), and the inputs it must refuse: no such section, a name
 * with a '/', "..", no room for the CRC, a section table or name table
 * past the end of the file, not ELF.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kit/debuglink.h"

static void put(uint8_t *p, uint64_t v, unsigned n, int little)
{
	for (unsigned i = 0; i < n; i++)
		p[little ? i : n - 1 - i] = (uint8_t)(v >> (8 * i));
}

struct img_spec {
	int is64, little;
	const char *secname;    /* the link section's name */
	const uint8_t *link;    /* its bytes */
	size_t link_len;
	uint64_t shoff_extra;   /* added to e_shoff (past the end: bad) */
};

/* ELF header, .shstrtab, the link section, then 3 section headers (null, names, link). */
static size_t img_make(const struct img_spec *s, uint8_t *img)
{
	const size_t eh = s->is64 ? 64 : 52, ent = s->is64 ? 64 : 40;
	const int L = s->little;
	char names[64];
	size_t nl = (size_t)snprintf(names, sizeof(names), "%c.shstrtab%c%s", 0, 0, s->secname) + 1;
	size_t names_at = eh, link_at = names_at + nl, sh_at = (link_at + s->link_len + 7) & ~(size_t)7;

	memset(img, 0, sh_at + 3 * ent);
	memcpy(img, ELFMAG, SELFMAG);
	img[EI_CLASS] = s->is64 ? ELFCLASS64 : ELFCLASS32;
	img[EI_DATA] = L ? ELFDATA2LSB : ELFDATA2MSB;
	put(img + (s->is64 ? 40 : 32), sh_at + s->shoff_extra, s->is64 ? 8 : 4, L);
	put(img + (s->is64 ? 58 : 46), ent, 2, L);
	put(img + (s->is64 ? 60 : 48), 3, 2, L);
	put(img + (s->is64 ? 62 : 50), 1, 2, L);
	memcpy(img + names_at, names, nl);
	memcpy(img + link_at, s->link, s->link_len);
	for (int i = 1; i < 3; i++) {
		uint8_t *h = img + sh_at + (size_t)i * ent;

		put(h, i == 1 ? 1 : 11, 4, L);
		put(h + (s->is64 ? 24 : 16), i == 1 ? names_at : link_at, s->is64 ? 8 : 4, L);
		put(h + (s->is64 ? 32 : 20), i == 1 ? nl : s->link_len, s->is64 ? 8 : 4, L);
	}
	return sh_at + 3 * ent;
}

/* kit_debuglink_of_fd on bytes p[0..len) in a temporary file. */
static int parse(const uint8_t *p, size_t len, char *name, size_t n, uint32_t *crc)
{
	char path[] = "/tmp/test-debuglink.XXXXXX";
	int fd = mkstemp(path), rc;

	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(write(fd, p, len), (ssize_t)len);
	rc = kit_debuglink_of_fd(fd, name, n, crc);
	close(fd);
	return rc;
}

static void test_crc32(void **state)
{
	(void)state;
	assert_int_equal(kit_debuglink_crc32(0, (const uint8_t *)"123456789", 9), 0xcbf43926u);
	assert_int_equal(kit_debuglink_crc32(0, (const uint8_t *)"", 0), 0);
	/* In pieces as in one go. */
	assert_int_equal(kit_debuglink_crc32(kit_debuglink_crc32(0, (const uint8_t *)"1234", 4),
					     (const uint8_t *)"56789", 5), 0xcbf43926u);
}

static void test_links(void **state)
{
	/* name "prog.debug" NUL, padding to 4, CRC 0x11223344 (byte order per case) */
	static const uint8_t le[] = "prog.debug\0\0\x44\x33\x22\x11", be[] = "prog.debug\0\0\x11\x22\x33\x44";
	static const uint8_t slash[] = "a/b.debug\0\0\0\x44\x33\x22\x11", dots[] = "..\0\0\x44\x33\x22\x11";
	static const uint8_t short_crc[] = "prog.debug\0\0\x44\x33", empty[] = "\0\0\0\0\x44\x33\x22\x11";
	static const struct {
		struct img_spec s;
		int rc;
	} cases[] = {
		{ { 1, 1, ".gnu_debuglink", le, sizeof(le) - 1, 0 }, 0 },
		{ { 0, 1, ".gnu_debuglink", le, sizeof(le) - 1, 0 }, 0 },
		{ { 1, 0, ".gnu_debuglink", be, sizeof(be) - 1, 0 }, 0 },
		{ { 0, 0, ".gnu_debuglink", be, sizeof(be) - 1, 0 }, 0 },
		{ { 1, 1, ".gnu_debugdata", le, sizeof(le) - 1, 0 }, -ENOENT },
		{ { 1, 1, ".gnu_debuglink", slash, sizeof(slash) - 1, 0 }, -ENOEXEC },
		{ { 1, 1, ".gnu_debuglink", dots, sizeof(dots) - 1, 0 }, -ENOEXEC },
		{ { 1, 1, ".gnu_debuglink", short_crc, sizeof(short_crc) - 1, 0 }, -ENOEXEC },
		{ { 1, 1, ".gnu_debuglink", empty, sizeof(empty) - 1, 0 }, -ENOEXEC },
		{ { 1, 1, ".gnu_debuglink", le, sizeof(le) - 1, 4096 }, -ENOEXEC },
	};
	uint8_t img[1024];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char name[64] = "";
		uint32_t crc = 0;
		size_t len = img_make(&cases[i].s, img);
		int rc = parse(img, len, name, sizeof(name), &crc);

		if (rc != cases[i].rc || (rc == 0 && (strcmp(name, "prog.debug") || crc != 0x11223344u)))
			fail_msg("case %zu: rc %d (want %d), name '%s', crc %08x", i, rc, cases[i].rc, name, crc);
	}
	/* A name longer than the caller's buffer is refused, not cut. */
	{
		char name[8];
		uint32_t crc;
		size_t len = img_make(&cases[0].s, img);

		assert_int_equal(parse(img, len, name, sizeof(name), &crc), -ENOEXEC);
	}
	/* Not ELF, and an ELF header cut short. */
	{
		char name[64];
		uint32_t crc;

		memset(img, 'x', 128);
		assert_int_equal(parse(img, 128, name, sizeof(name), &crc), -ENOEXEC);
		img_make(&cases[0].s, img);
		assert_int_equal(parse(img, 20, name, sizeof(name), &crc), -ENOEXEC);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32),
		cmocka_unit_test(test_links),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
