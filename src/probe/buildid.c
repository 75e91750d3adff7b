/*
 * NT_GNU_BUILD_ID from ELF notes.  Headers are normalized from either class
 * and byte order into small host-order structs, then the note payloads are
 * pread one at a time.
 */
#include <byteswap.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>
#include "probe/buildid.h"

#define NOTE_MAX (1u << 20)   /* larger note areas are not plausible */
#define HDRS_MAX (1u << 20)   /* cap on a program/section header table */

struct elf_file {
	int fd;
	uint64_t base; /* where offset 0 is in fd: 0, or the vDSO's address in /proc/self/mem */
	bool is64, swap;
	bool cut; /* some header or note lay past the end of the file */
};

/* A PT_NOTE segment or SHT_NOTE section. */
struct note_area {
	uint64_t off, size, align;
};

static uint16_t h16(const struct elf_file *f, uint16_t v) { return f->swap ? bswap_16(v) : v; }
static uint32_t h32(const struct elf_file *f, uint32_t v) { return f->swap ? bswap_32(v) : v; }
static uint64_t h64(const struct elf_file *f, uint64_t v) { return f->swap ? bswap_64(v) : v; }

/* Exactly n bytes at off, or -ENOEXEC (file too short) / -errno. */
static int read_at(struct elf_file *f, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(f->fd, (char *)buf + got, n - got, (off_t)(f->base + off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0) {
			f->cut = true;
			return -ENOEXEC;
		}
		got += (size_t)r;
	}
	return 0;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* Walk notes in p[0..len); 0 with the id, or -ENODATA. */
static int notes_find_buildid(const uint8_t *p, size_t len, uint64_t align, bool swap,
			      uint8_t id[BUILDID_MAX], size_t *idlen)
{
	struct elf_file order = { .swap = swap };
	uint64_t off = 0;

	align = align == 8 ? 8 : 4;
	while (off + 12 <= len) {
		uint32_t v[3];
		memcpy(v, p + off, sizeof(v));
		uint64_t namesz = h32(&order, v[0]), descsz = h32(&order, v[1]);
		uint32_t type = h32(&order, v[2]);
		uint64_t desc = align_up(off + 12 + namesz, align);

		if (desc + descsz > len)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(p + off + 12, "GNU", 4) &&
		    descsz > 0) {
			size_t n = descsz < BUILDID_MAX ? descsz : BUILDID_MAX;
			memset(id, 0, BUILDID_MAX);
			memcpy(id, p + desc, n);
			*idlen = n;
			return 0;
		}
		off = align_up(desc + descsz, align);
	}
	return -ENODATA;
}

static int area_find_buildid(struct elf_file *f, const struct note_area *a,
			     uint8_t id[BUILDID_MAX], size_t *len)
{
	if (a->size < 12 || a->size > NOTE_MAX)
		return -ENODATA;
	uint8_t *buf = malloc(a->size);
	if (!buf)
		return -ENOMEM;
	int err = read_at(f, buf, a->size, a->off);
	if (!err)
		err = notes_find_buildid(buf, a->size, a->align, f->swap, id, len);
	free(buf);
	return err == -ENOEXEC ? -ENODATA : err; /* a cut note: f->cut tells */
}

/* Normalized view of the fields we use from the ELF header. */
struct elf_hdrs {
	uint64_t phoff, shoff;
	uint16_t phentsize, phnum, shentsize, shnum;
};

static int ehdr_read(struct elf_file *f, struct elf_hdrs *h)
{
	unsigned char ident[EI_NIDENT];
	int err = read_at(f, ident, sizeof(ident), 0);

	if (err || memcmp(ident, ELFMAG, SELFMAG))
		return err == -ENOEXEC || !err ? -ENOEXEC : err;
	if (ident[EI_CLASS] != ELFCLASS32 && ident[EI_CLASS] != ELFCLASS64)
		return -ENOEXEC;
	if (ident[EI_DATA] != ELFDATA2LSB && ident[EI_DATA] != ELFDATA2MSB)
		return -ENOEXEC;
	f->is64 = ident[EI_CLASS] == ELFCLASS64;
	f->swap = (ident[EI_DATA] == ELFDATA2LSB) != (__BYTE_ORDER == __LITTLE_ENDIAN);
	if (f->is64) {
		Elf64_Ehdr e;
		if ((err = read_at(f, &e, sizeof(e), 0)))
			return err;
		*h = (struct elf_hdrs){ h64(f, e.e_phoff), h64(f, e.e_shoff),
			h16(f, e.e_phentsize), h16(f, e.e_phnum), h16(f, e.e_shentsize), h16(f, e.e_shnum) };
	} else {
		Elf32_Ehdr e;
		if ((err = read_at(f, &e, sizeof(e), 0)))
			return err;
		*h = (struct elf_hdrs){ h32(f, e.e_phoff), h32(f, e.e_shoff),
			h16(f, e.e_phentsize), h16(f, e.e_phnum), h16(f, e.e_shentsize), h16(f, e.e_shnum) };
	}
	return 0;
}

/* Note areas from a header table (program headers when phdr, else sections). */
static void note_area_get(const struct elf_file *f, const uint8_t *ent, bool phdr,
			  struct note_area *a, bool *is_note)
{
	if (phdr && f->is64) {
		Elf64_Phdr p;
		memcpy(&p, ent, sizeof(p));
		*is_note = h32(f, p.p_type) == PT_NOTE;
		*a = (struct note_area){ h64(f, p.p_offset), h64(f, p.p_filesz), h64(f, p.p_align) };
	} else if (phdr) {
		Elf32_Phdr p;
		memcpy(&p, ent, sizeof(p));
		*is_note = h32(f, p.p_type) == PT_NOTE;
		*a = (struct note_area){ h32(f, p.p_offset), h32(f, p.p_filesz), h32(f, p.p_align) };
	} else if (f->is64) {
		Elf64_Shdr s;
		memcpy(&s, ent, sizeof(s));
		*is_note = h32(f, s.sh_type) == SHT_NOTE;
		*a = (struct note_area){ h64(f, s.sh_offset), h64(f, s.sh_size), h64(f, s.sh_addralign) };
	} else {
		Elf32_Shdr s;
		memcpy(&s, ent, sizeof(s));
		*is_note = h32(f, s.sh_type) == SHT_NOTE;
		*a = (struct note_area){ h32(f, s.sh_offset), h32(f, s.sh_size), h32(f, s.sh_addralign) };
	}
}

static int table_find_buildid(struct elf_file *f, uint64_t off, uint16_t entsize, uint16_t num,
			      bool phdr, uint8_t id[BUILDID_MAX], size_t *len)
{
	size_t need = phdr ? (f->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr))
			   : (f->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr));
	size_t total = (size_t)entsize * num;

	if (!off || !num || entsize < need || total > HDRS_MAX)
		return -ENODATA;
	uint8_t *tab = malloc(total);
	if (!tab)
		return -ENOMEM;
	int err = read_at(f, tab, total, off);
	for (uint16_t i = 0; !err && i < num; i++) {
		struct note_area a;
		bool is_note;

		note_area_get(f, tab + (size_t)i * entsize, phdr, &a, &is_note);
		if (!is_note)
			continue;
		err = area_find_buildid(f, &a, id, len);
		if (err == -ENODATA)
			err = 0;
		else if (!err) {
			free(tab);
			return 0;
		}
	}
	free(tab);
	return err ? err : -ENODATA;
}

int buildid_read_fd(int fd, uint8_t id[BUILDID_MAX], size_t *len)
{
	struct elf_file f = { .fd = fd };
	struct elf_hdrs h = { 0 };
	struct stat st;
	int err;

	if (fstat(f.fd, &st) < 0)
		err = -errno;
	else if (!S_ISREG(st.st_mode))
		err = S_ISDIR(st.st_mode) ? -EISDIR : -ENOEXEC;
	else
		err = ehdr_read(&f, &h);
	if (!err) {
		err = table_find_buildid(&f, h.phoff, h.phentsize, h.phnum, true, id, len);
		/* Objects and modules have no program headers: try sections. */
		if (err == -ENODATA || err == -ENOEXEC)
			err = table_find_buildid(&f, h.shoff, h.shentsize, h.shnum, false, id, len);
	}
	if (err && f.cut)
		return -ENOEXEC;
	return err;
}

int buildid_read_file(const char *path, uint8_t id[BUILDID_MAX], size_t *len)
{
	/* O_NONBLOCK: a FIFO or device named in a map must not hang us. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), err;

	if (fd < 0)
		return -errno;
	err = buildid_read_fd(fd, id, len);
	close(fd);
	return err;
}

int buildid_read_vdso(uint8_t id[BUILDID_MAX], size_t *len)
{
	/* The image's file offsets are offsets from its load address. */
	struct elf_file f = { .base = getauxval(AT_SYSINFO_EHDR) };
	struct elf_hdrs h = { 0 };
	int err;

	if (!f.base)
		return -ENOENT;
	f.fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	if (f.fd < 0)
		return -errno;
	err = ehdr_read(&f, &h);
	if (!err)
		err = table_find_buildid(&f, h.phoff, h.phentsize, h.phnum, true, id, len);
	close(f.fd);
	return err;
}

int buildid_read_notes_file(const char *path, uint8_t id[BUILDID_MAX], size_t *len)
{
	uint8_t buf[4096];
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	/* sysfs binary attributes may return fewer bytes per read. */
	for (;;) {
		ssize_t r = read(fd, buf + got, sizeof(buf) - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || (got += (size_t)r) == sizeof(buf))
			break;
	}
	close(fd);
	return notes_find_buildid(buf, got, 4, false, id, len);
}

int buildid_read_kernel(uint8_t id[BUILDID_MAX], size_t *len)
{
	return buildid_read_notes_file("/sys/kernel/notes", id, len);
}

void buildid_hex(const uint8_t *id, size_t len, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = digits[id[i] >> 4];
		out[2 * i + 1] = digits[id[i] & 15];
	}
	out[2 * len] = '\0';
}
