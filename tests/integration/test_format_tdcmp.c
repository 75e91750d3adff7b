/*
 * Compares the TRACING_DATA feature of a perf.data recorded by perf itself
 * with what tracing_data_build() makes for the same events:
 *
 *   test_format_tdcmp PERF.DATA SYS:NAME...
 *
 * Everything up to saved_cmdlines must be byte-identical; saved_cmdlines is
 * a snapshot of the kernel's pid->comm cache, so only its framing is checked.
 * Exit 0 when equal, 1 with the first differing offset otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/bytes.h"
#include "probe/tracing_data.h"

#define MAX_EVENTS 8

static int load(const char *path, struct bytes *b)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -errno;
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		bytes_add(b, buf, n);
	int err = ferror(f) ? -EIO : b->err;
	fclose(f);
	return err;
}

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

/* The TRACING_DATA section of a file-mode perf.data: feature bit 1 is the first entry. */
static int feature_tracing(const struct bytes *f, const uint8_t **p, size_t *len)
{
	if (f->len < 104 || memcmp(f->p, "PERFILE2", 8))
		return -EINVAL;
	if (!(u64_at(f->p, 72) & 2))
		return -ENOENT;
	uint64_t index = u64_at(f->p, 40) + u64_at(f->p, 48);
	if (index + 16 > f->len)
		return -EINVAL;
	uint64_t off = u64_at(f->p, index), size = u64_at(f->p, index + 8);
	if (off + size > f->len)
		return -EINVAL;
	*p = f->p + off;
	*len = size;
	return 0;
}

/* Offset of the saved_cmdlines size field: skip every section before it. */
static size_t cmdlines_at(const uint8_t *p, size_t len)
{
	size_t off = 10 + 4 + 2 + 4;
	for (int i = 0; i < 2; i++) { /* header_page, header_event */
		off += strlen((const char *)p + off) + 1;
		off += 8 + u64_at(p, off);
	}
	uint32_t n = u32_at(p, off); /* ftrace formats */
	off += 4;
	for (uint32_t i = 0; i < n; i++)
		off += 8 + u64_at(p, off);
	uint32_t systems = u32_at(p, off);
	off += 4;
	for (uint32_t s = 0; s < systems && off < len; s++) {
		off += strlen((const char *)p + off) + 1;
		n = u32_at(p, off);
		off += 4;
		for (uint32_t i = 0; i < n; i++)
			off += 8 + u64_at(p, off);
	}
	off += 4 + u32_at(p, off); /* kallsyms */
	off += 4 + u32_at(p, off); /* printk_formats */
	return off;
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc - 2 > MAX_EVENTS) {
		fprintf(stderr, "usage: %s PERF.DATA SYS:NAME...\n", argv[0]);
		return 2;
	}
	const char *sys[MAX_EVENTS], *name[MAX_EVENTS];
	for (int i = 2; i < argc; i++) {
		char *colon = strchr(argv[i], ':');
		if (!colon)
			return 2;
		*colon = '\0';
		sys[i - 2] = argv[i];
		name[i - 2] = colon + 1;
	}
	struct bytes file, mine;
	bytes_init(&file);
	bytes_init(&mine);
	const uint8_t *theirs;
	size_t theirs_len;
	int err = load(argv[1], &file);
	if (!err)
		err = feature_tracing(&file, &theirs, &theirs_len);
	if (!err)
		err = tracing_data_build(sys, name, (unsigned)(argc - 2), &mine);
	if (err) {
		fprintf(stderr, "tdcmp: %s: %s\n", err == -ENOENT ? "no TRACING_DATA (or event)" : "error",
			strerror(-err));
		bytes_free(&file);
		bytes_free(&mine);
		return 1;
	}
	size_t a = cmdlines_at(theirs, theirs_len), b = cmdlines_at(mine.p, mine.len);
	int rc = 0;
	if (a != b || a + 8 + u64_at(theirs, a) != theirs_len || b + 8 + u64_at(mine.p, b) != mine.len) {
		fprintf(stderr, "tdcmp: layout differs: saved_cmdlines at %zu (perf) vs %zu, sizes %zu vs %zu\n",
			a, b, theirs_len, mine.len);
		rc = 1;
	}
	for (size_t i = 0; !rc && i < a; i++) {
		if (theirs[i] != mine.p[i]) {
			fprintf(stderr, "tdcmp: first difference at byte %zu\n", i);
			rc = 1;
		}
	}
	if (!rc)
		printf("identical up to saved_cmdlines: %zu bytes\n", a);
	bytes_free(&file);
	bytes_free(&mine);
	return rc;
}
