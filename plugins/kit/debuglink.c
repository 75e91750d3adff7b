/*
 * .gnu_debuglink (see debuglink.h): a stripped file names its separate
 * debug file and that file's CRC32, for debuggers (and perf) to look for
 * beside it when /usr/lib/debug/.build-id has nothing.  Read with pread so
 * that a large binary is not read whole just to learn that name.
 */
#include "debuglink.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TABLE_MAX (1u << 20) /* section headers or their names: more is not a sane file */
#define LINK_MAX_BYTES 4096  /* the section: a name, padding, 4 bytes of CRC */

/* CRC-32 (polynomial 0xedb88320) four bits at a time: a constant table, any thread. */
static const uint32_t crc_nibble[16] = {
	0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac, 0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
	0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c, 0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
};

uint32_t kit_debuglink_crc32(uint32_t crc, const uint8_t *p, size_t len)
{
	crc = ~crc;
	for (size_t i = 0; i < len; i++) {
		crc ^= p[i];
		crc = (crc >> 4) ^ crc_nibble[crc & 15];
		crc = (crc >> 4) ^ crc_nibble[crc & 15];
	}
	return ~crc;
}

/* n bytes at off of fd, all of them: 0, -ENOEXEC (short: past the end), -errno. */
static int read_at(int fd, void *p, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = pread(fd, (uint8_t *)p + got, n - got, (off_t)(off + got));

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -ENOEXEC;
		got += (size_t)k;
	}
	return 0;
}

/* An unsigned of n bytes at p in the file's byte order. */
static uint64_t field(const uint8_t *p, unsigned n, int little)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v = (v << 8) | p[little ? n - 1 - i : i];
	return v;
}

/* The ELF file's section table and the names of its sections (shstrtab). */
struct sections {
	int is64, little;
	uint8_t *tab, *names;
	uint64_t num, ent, names_len;
};

/* A section header's field: name, offset or size. */
static uint64_t sh_name(const struct sections *s, uint64_t i)
{
	return field(s->tab + i * s->ent, 4, s->little);
}
static uint64_t sh_offset(const struct sections *s, uint64_t i)
{
	return field(s->tab + i * s->ent + (s->is64 ? 24 : 16), s->is64 ? 8 : 4, s->little);
}
static uint64_t sh_size(const struct sections *s, uint64_t i)
{
	return field(s->tab + i * s->ent + (s->is64 ? 32 : 20), s->is64 ? 8 : 4, s->little);
}

static int sections_read(int fd, struct sections *s)
{
	uint8_t eh[64];
	uint64_t off, strndx;
	int rc;

	if ((rc = read_at(fd, eh, sizeof(eh), 0)) || memcmp(eh, ELFMAG, SELFMAG))
		return rc ? rc : -ENOEXEC;
	s->is64 = eh[EI_CLASS] == ELFCLASS64;
	s->little = eh[EI_DATA] == ELFDATA2LSB;
	off = field(eh + (s->is64 ? 40 : 32), s->is64 ? 8 : 4, s->little);
	s->ent = field(eh + (s->is64 ? 58 : 46), 2, s->little);
	s->num = field(eh + (s->is64 ? 60 : 48), 2, s->little);
	strndx = field(eh + (s->is64 ? 62 : 50), 2, s->little);
	if (s->ent < (s->is64 ? 64u : 40u) || !s->num || s->num * s->ent > TABLE_MAX || strndx >= s->num)
		return -ENOEXEC;
	if (!(s->tab = malloc(s->num * s->ent)))
		return -ENOMEM;
	if ((rc = read_at(fd, s->tab, s->num * s->ent, off)))
		return rc;
	s->names_len = sh_size(s, strndx);
	if (!s->names_len || s->names_len > TABLE_MAX)
		return -ENOEXEC;
	if (!(s->names = malloc(s->names_len + 1)))
		return -ENOMEM;
	s->names[s->names_len] = '\0';
	return read_at(fd, s->names, s->names_len, sh_offset(s, strndx));
}

/* The section's bytes: name NUL, padding to 4, CRC32 in the file's byte order. */
static int link_parse(const uint8_t *p, size_t len, int little, char *name, size_t n, uint32_t *crc)
{
	size_t nl = strnlen((const char *)p, len), crc_at = (nl + 4) & ~(size_t)3;

	if (!nl || nl == len || crc_at + 4 > len || nl >= n || memchr(p, '/', nl) ||
	    !strcmp((const char *)p, ".") || !strcmp((const char *)p, ".."))
		return -ENOEXEC;
	memcpy(name, p, nl + 1);
	*crc = (uint32_t)field(p + crc_at, 4, little);
	return 0;
}

int kit_debuglink_of_fd(int fd, char *name, size_t n, uint32_t *crc)
{
	struct sections s = { 0 };
	uint8_t buf[LINK_MAX_BYTES];
	int rc = sections_read(fd, &s);

	for (uint64_t i = 0; !rc && i < s.num; i++) {
		uint64_t at = sh_name(&s, i), size = sh_size(&s, i);

		if (at >= s.names_len || strcmp((const char *)s.names + at, ".gnu_debuglink"))
			continue;
		rc = size > sizeof(buf) ? -ENOEXEC : read_at(fd, buf, (size_t)size, sh_offset(&s, i));
		rc = rc ? rc : link_parse(buf, (size_t)size, s.little, name, n, crc);
		free(s.tab);
		free(s.names);
		return rc;
	}
	free(s.tab);
	free(s.names);
	return rc ? rc : -ENOENT;
}
