/* Build-ids and symbol sections of ELF images in memory; see kit.h. */
#include <perfsink/kit.h>

#include <elf.h>
#include <errno.h>
#include <string.h>
#include <sys/auxv.h>

/* Reads of either class and byte order, bounds-checked by the callers. */
struct elf_view {
	const uint8_t *p;
	size_t len;
	int is64, little;
};

static uint64_t rd(const struct elf_view *e, size_t off, unsigned n)
{
	uint64_t v = 0;
	uint8_t b[8];

	memcpy(b, e->p + off, n);
	for (unsigned i = 0; i < n; i++) {
		unsigned k = e->little ? n - 1 - i : i;
		v = (v << 8) | b[k];
	}
	return v;
}

static int view_init(struct elf_view *e, const uint8_t *p, size_t len)
{
	if (len < EI_NIDENT + 48 || memcmp(p, ELFMAG, SELFMAG))
		return -ENOEXEC;
	e->p = p;
	e->len = len;
	e->is64 = p[EI_CLASS] == ELFCLASS64;
	e->little = p[EI_DATA] == ELFDATA2LSB;
	if (!e->is64 && p[EI_CLASS] != ELFCLASS32)
		return -ENOEXEC;
	if (e->is64 && len < 64)
		return -ENOEXEC;
	return 0;
}

/* Section or program header table: offset, entry size, count. */
static void table(const struct elf_view *e, int sections, uint64_t *off, uint64_t *ent, uint64_t *num)
{
	if (e->is64) {
		*off = rd(e, sections ? 40 : 32, 8);
		*ent = rd(e, sections ? 58 : 54, 2);
		*num = rd(e, sections ? 60 : 56, 2);
	} else {
		*off = rd(e, sections ? 32 : 28, 4);
		*ent = rd(e, sections ? 46 : 42, 2);
		*num = rd(e, sections ? 48 : 44, 2);
	}
}

static int in_image(const struct elf_view *e, uint64_t off, uint64_t size)
{
	return off <= e->len && size <= e->len - off;
}

/* NT_GNU_BUILD_ID among the notes at [off, off + size). */
static int notes_id(const struct elf_view *e, uint64_t off, uint64_t size, uint64_t align,
		    uint8_t id[PERFSINK_KIT_BUILD_ID_MAX], size_t *idlen)
{
	uint64_t a = align == 8 ? 8 : 4, end = off + size;

	while (off + 12 <= end) {
		uint64_t namesz = rd(e, off, 4), descsz = rd(e, off + 4, 4), type = rd(e, off + 8, 4);
		uint64_t name = off + 12, desc = name + ((namesz + a - 1) & ~(a - 1));
		uint64_t next = desc + ((descsz + a - 1) & ~(a - 1));

		if (desc > end || descsz > end - desc)
			return -ENOENT;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(e->p + name, "GNU", 4) && descsz) {
			*idlen = descsz < PERFSINK_KIT_BUILD_ID_MAX ? descsz : PERFSINK_KIT_BUILD_ID_MAX;
			memcpy(id, e->p + desc, *idlen);
			return 0;
		}
		off = next;
	}
	return -ENOENT;
}

int perfsink_kit_elf_build_id(const uint8_t *img, size_t len, uint8_t id[PERFSINK_KIT_BUILD_ID_MAX],
			      size_t *idlen)
{
	struct elf_view e;
	uint64_t off, ent, num;

	if (view_init(&e, img, len))
		return -ENOEXEC;
	for (int sections = 0; sections < 2; sections++) {
		table(&e, sections, &off, &ent, &num);
		if (!ent || !in_image(&e, off, ent * num))
			continue;
		for (uint64_t i = 0; i < num; i++) {
			uint64_t h = off + i * ent, type, noff, nsize, nalign;

			type = rd(&e, h + (sections ? 4 : 0), 4);
			if (type != (sections ? SHT_NOTE : PT_NOTE))
				continue;
			if (sections) {
				noff = rd(&e, h + (e.is64 ? 24 : 16), e.is64 ? 8 : 4);
				nsize = rd(&e, h + (e.is64 ? 32 : 20), e.is64 ? 8 : 4);
				nalign = rd(&e, h + (e.is64 ? 48 : 32), e.is64 ? 8 : 4);
			} else {
				noff = rd(&e, h + (e.is64 ? 8 : 4), e.is64 ? 8 : 4);
				nsize = rd(&e, h + (e.is64 ? 32 : 16), e.is64 ? 8 : 4);
				nalign = rd(&e, h + (e.is64 ? 48 : 28), e.is64 ? 8 : 4);
			}
			if (in_image(&e, noff, nsize) && notes_id(&e, noff, nsize, nalign, id, idlen) == 0)
				return 0;
		}
	}
	return -ENOENT;
}

int perfsink_kit_elf_has_symbols(const uint8_t *img, size_t len)
{
	struct elf_view e;
	uint64_t off, ent, num;

	if (view_init(&e, img, len))
		return 0;
	table(&e, 1, &off, &ent, &num);
	if (!ent || !in_image(&e, off, ent * num))
		return 0;
	for (uint64_t i = 0; i < num; i++) {
		uint64_t h = off + i * ent, type = rd(&e, h + 4, 4);
		uint64_t size = rd(&e, h + (e.is64 ? 32 : 20), e.is64 ? 8 : 4);

		/* A stripped file has lost .symtab; its debug file keeps one. */
		if (type == SHT_SYMTAB && size)
			return 1;
	}
	return 0;
}

int perfsink_kit_vdso_image(const uint8_t **img, size_t *len)
{
	const uint8_t *p = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
	struct elf_view e;
	uint64_t off, ent, num, end;

	if (!p)
		return -ENOENT;
	/* The image ends with its section headers (the kernel's vdso link script). */
	if (view_init(&e, p, 64))
		return -ENOEXEC;
	table(&e, 1, &off, &ent, &num);
	end = off + ent * num;
	if (!off || !ent || end > (64u << 10))
		return -ENOEXEC;
	*img = p;
	*len = (size_t)end;
	return 0;
}

void perfsink_kit_build_id_hex(const uint8_t *id, size_t len, char out[2 * PERFSINK_KIT_BUILD_ID_MAX + 1])
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	if (len > PERFSINK_KIT_BUILD_ID_MAX)
		len = PERFSINK_KIT_BUILD_ID_MAX;
	for (i = 0; i < len; i++) {
		out[2 * i] = digits[id[i] >> 4];
		out[2 * i + 1] = digits[id[i] & 15];
	}
	out[2 * len] = '\0';
}
