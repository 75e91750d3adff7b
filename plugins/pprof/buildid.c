/* Build-ids of mapped files for the pprof sink; see buildid.h. */
#include "buildid.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <perfsink/kit.h>

#define FILE_MAX (1ull << 31) /* a larger "ELF" is not read for its build-id */

void bid_cache_init(struct bid_cache *c)
{
	memset(c, 0, sizeof(*c));
	pp_intern_init(&c->paths);
}

void bid_cache_free(struct bid_cache *c)
{
	pp_intern_free(&c->paths);
	free(c->hex);
	memset(c, 0, sizeof(*c));
}

/* Read path's ELF build-id into hex; "" when it has none. */
static void read_build_id(const char *path, char hex[41])
{
	hex[0] = 0;
	int fd = perfsink_kit_input_open(AT_FDCWD, path, "read the build-id of", NULL, 0);
	if (fd < 0)
		return;
	struct stat st;
	if (!fstat(fd, &st) && st.st_size > 64 && (uint64_t)st.st_size < FILE_MAX) {
		void *img = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		uint8_t id[PERFSINK_KIT_BUILD_ID_MAX];
		size_t n;
		if (img != MAP_FAILED) {
			if (!perfsink_kit_elf_build_id(img, st.st_size, id, &n) && n <= 20)
				perfsink_kit_build_id_hex(id, n, hex);
			munmap(img, st.st_size);
		}
	}
	close(fd);
}

/* The cache never forgets a path: the distinct files a host maps are few. */
const char *bid_cache_get(void *arg, const char *file, int kernel)
{
	struct bid_cache *c = arg;
	int added;
	if (kernel || file[0] != '/')
		return NULL;   /* [kernel.kallsyms]_text, [vdso], //anon ... */
	if (c->paths.n == c->cap) { /* room for a new one first: an interned path has its slot */
		uint32_t cap = c->cap ? c->cap * 2 : 64;
		char (*h)[41] = realloc(c->hex, cap * sizeof(*h));
		if (!h)
			return NULL;
		c->hex = h;
		c->cap = cap;
	}
	int64_t i = pp_intern(&c->paths, file, strlen(file), &added);
	if (i < 0)
		return NULL;
	if (added)
		read_build_id(file, c->hex[i]);
	return c->hex[i][0] ? c->hex[i] : NULL;
}

size_t bid_cache_bytes(const struct bid_cache *c)
{
	return c->paths.arena.cap + (size_t)c->paths.cap * (sizeof(size_t) + 12) +
	       (size_t)c->paths.nslot * 4 + (size_t)c->cap * sizeof(*c->hex);
}
