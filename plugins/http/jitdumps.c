/* A recording's jitdump files and their names on the collector; see jitdumps.h. */
#include "jitdumps.h"

#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MMAP_NAME_OFF 40  /* header, pid, tid, addr, len, pgoff */
#define MMAP2_NAME_OFF 72 /* ... then maj, min, ino, ino_generation (or build-id), prot, flags */
#define MISC_MMAP_BUILD_ID (1 << 14) /* MMAP2 carries a build-id, not maj/min/ino */
#define NAME_MAX_COLLECTOR 255

int jitdump_path_pid(const char *path)
{
	const char *base = strrchr(path, '/'), *s;
	long long pid = 0;

	if (path[0] != '/' || !base)
		return -1;
	s = base + 1 + 4;
	if (strncmp(base + 1, "jit-", 4) || *s < '1' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		pid = pid * 10 + (*s - '0');
		if (pid > INT_MAX)
			return -1;
	}
	return strcmp(s, ".dump") ? -1 : (int)pid;
}

int jitdump_escape(const char *path, char *out, size_t n)
{
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		int keep = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			   (*p >= '0' && *p <= '9') || *p == '.' || *p == '-';

		if (o + (keep ? 1 : 3) >= n || o + (keep ? 1 : 3) > NAME_MAX_COLLECTOR)
			return -ENAMETOOLONG;
		if (keep)
			out[o++] = (char)*p;
		else
			o += (size_t)snprintf(out + o, 4, "_%02x", *p);
	}
	if (!n)
		return -ENAMETOOLONG;
	out[o] = '\0';
	return 0;
}

static void dump_add(struct dump_set *d, const struct jitdump *j)
{
	const char *path = j->path;

	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->v[i].path, path))
			return;
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 8;
		struct jitdump *v = realloc(d->v, cap * sizeof(*v));

		if (!v)
			return;
		d->v = v;
		d->cap = cap;
	}
	d->v[d->n] = *j;
	d->v[d->n].path = strdup(path);
	if (!d->v[d->n].path)
		return;
	d->n++;
}

void dump_set_record(struct dump_set *d, const uint8_t *rec, uint32_t type, uint16_t size)
{
	size_t at = type == PERF_RECORD_MMAP    ? MMAP_NAME_OFF
		    : type == PERF_RECORD_MMAP2 ? MMAP2_NAME_OFF
						: 0;
	const char *name = (const char *)rec + at;
	struct jitdump j = { .path = (char *)name };
	uint16_t misc;

	if (!at || size <= at || strnlen(name, size - at) == size - at ||
	    jitdump_path_pid(name) <= 0)
		return;
	memcpy(&misc, rec + 4, 2);
	memcpy(&j.pid, rec + 8, 4);
	if (type == PERF_RECORD_MMAP2 && !(misc & MISC_MMAP_BUILD_ID)) {
		memcpy(&j.maj, rec + 40, 4);
		memcpy(&j.min, rec + 44, 4);
		memcpy(&j.ino, rec + 48, 8);
	}
	dump_add(d, &j);
}

int dump_set_copy(struct dump_set *dst, const struct dump_set *src)
{
	memset(dst, 0, sizeof(*dst));
	for (size_t i = 0; i < src->n; i++) {
		dump_add(dst, &src->v[i]);
		if (dst->n != i + 1) {
			dump_set_free(dst);
			return -ENOMEM;
		}
	}
	return 0;
}

void dump_set_free(struct dump_set *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->v[i].path);
	free(d->v);
	memset(d, 0, sizeof(*d));
}
