/*
 * The symbol archive: a zstd-compressed tar of the files behind a
 * recording's build-ids, laid out as perf's build-id cache (~/.debug); see
 * kit.h.  The tar is POSIX ustar, with a pax header for a name or link
 * target longer than ustar's 100 bytes.
 */
#include <perfsink/kit.h>
#include "perf_build_ids.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_ZSTD
#include <zstd.h>

#define BLOCK 512

struct archive {
	int fd;
	ZSTD_CCtx *cctx;
	uint8_t out[1 << 16];
	uint64_t out_bytes;
	int64_t mtime;
	int err;
};

static int fd_write(struct archive *a, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t k = write(a->fd, p, len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		p += k;
		len -= (size_t)k;
		a->out_bytes += (uint64_t)k;
	}
	return 0;
}

/* Feed bytes to zstd; with end, finish the frame.  The error is sticky. */
static int emit(struct archive *a, const void *data, size_t len, int end)
{
	ZSTD_inBuffer in = { data, len, 0 };
	size_t left;

	if (a->err)
		return a->err;
	do {
		ZSTD_outBuffer out = { a->out, sizeof(a->out), 0 };

		left = ZSTD_compressStream2(a->cctx, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
		if (ZSTD_isError(left))
			return a->err = -EIO;
		if (out.pos && (a->err = fd_write(a, a->out, out.pos)))
			return a->err;
	} while (in.pos < in.size || (end && left));
	return 0;
}

static void octal(char *field, size_t width, uint64_t v)
{
	snprintf(field, width, "%0*llo", (int)width - 1, (unsigned long long)v);
}

static int header(struct archive *a, const char *name, char type, uint64_t size, unsigned mode,
		  const char *link)
{
	char h[BLOCK] = { 0 };
	unsigned sum = 0;

	snprintf(h, 100, "%s", name);
	octal(h + 100, 8, mode);
	octal(h + 108, 8, 0);
	octal(h + 116, 8, 0);
	octal(h + 124, 12, size);
	octal(h + 136, 12, (uint64_t)a->mtime);
	h[156] = type;
	if (link)
		snprintf(h + 157, 100, "%s", link);
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memcpy(h + 265, "root", 4);
	memcpy(h + 297, "root", 4);
	memset(h + 148, ' ', 8);
	for (size_t i = 0; i < BLOCK; i++)
		sum += (unsigned char)h[i];
	snprintf(h + 148, 7, "%06o", sum);
	return emit(a, h, BLOCK, 0);
}

/* One pax record "LEN key=value\n", LEN counting itself. */
static int pax_record(struct perfsink_kit_buf *b, const char *key, const char *value)
{
	size_t body = strlen(key) + strlen(value) + 3, n = body + 1;
	char len[24];

	while ((size_t)snprintf(len, sizeof(len), "%zu", n) + body != n)
		n = (size_t)snprintf(len, sizeof(len), "%zu", n) + body;
	return perfsink_kit_buf_append(b, len, strlen(len)) ||
	       perfsink_kit_buf_append(b, " ", 1) || perfsink_kit_buf_append(b, key, strlen(key)) ||
	       perfsink_kit_buf_append(b, "=", 1) || perfsink_kit_buf_append(b, value, strlen(value)) ||
	       perfsink_kit_buf_append(b, "\n", 1) ? -ENOMEM : 0;
}

static int pad(struct archive *a, uint64_t size)
{
	static const char zero[BLOCK];

	return size % BLOCK ? emit(a, zero, BLOCK - size % BLOCK, 0) : 0;
}

/* A member: regular file (data) or symbolic link (link). */
static int member(struct archive *a, const char *name, const uint8_t *data, uint64_t size,
		  unsigned mode, const char *link)
{
	int rc = 0;

	if (strlen(name) >= 100 || (link && strlen(link) >= 100)) {
		struct perfsink_kit_buf pax = { 0 };

		rc = pax_record(&pax, "path", name);
		if (!rc && link)
			rc = pax_record(&pax, "linkpath", link);
		if (!rc)
			rc = header(a, "././@PaxHeader", 'x', pax.len, 0644, NULL);
		if (!rc)
			rc = emit(a, pax.data, pax.len, 0);
		if (!rc)
			rc = pad(a, pax.len);
		perfsink_kit_buf_free(&pax);
	}
	if (!rc)
		rc = header(a, name, link ? '2' : '0', link ? 0 : size, mode, link);
	if (!rc && !link && size)
		rc = emit(a, data, size, 0);
	if (!rc && !link)
		rc = pad(a, size);
	return rc;
}

/* A recorded path placed under the cache: relative, no ".." component. */
static int rel_ok(const char *p)
{
	for (const char *s = p; (s = strstr(s, "..")); s += 2)
		if ((s == p || s[-1] == '/') && (s[2] == '/' || !s[2]))
			return 0;
	return *p != '\0';
}

/* One build-id: its file, its debug file, and the .build-id link. */
static int entry(struct archive *a, const struct perfsink_kit_build_id *b, struct perfsink_kit_buf *buf,
		 struct perfsink_kit_symarchive_stats *st)
{
	const char *rel = b->name[0] == '/' ? b->name + 1 : b->name;
	size_t n = strlen(rel) + 128;
	char *name = malloc(n), *link = malloc(n), ln[2 * PERFSINK_KIT_BUILD_ID_MAX + 16];
	uint64_t size;
	int rc = 0, r, how;

	if (!name || !link) {
		rc = -ENOMEM;
		goto out;
	}
	r = rel_ok(rel) ? perfsink_kit_sym_read(b, 0, buf, &size) : -EINVAL;
	if (r == -ESTALE)
		st->changed++;
	if (r) {
		st->missing += r != -ESTALE;
		goto out; /* nothing for this one; perf falls back to the path */
	}
	snprintf(name, n, "%s/%s/%s", rel, b->hex, perfsink_kit_sym_cache_name(b->kind));
	/* kallsyms 0600 as perfsink record caches it: real kernel addresses. */
	rc = member(a, name, buf->data, buf->len,
		    b->kind == PERFSINK_KIT_SYM_ELF ? 0755 : b->kind == PERFSINK_KIT_SYM_KALLSYMS ? 0600 : 0644,
		    NULL);
	st->files++;
	st->bytes += buf->len;
	if (!rc && b->kind == PERFSINK_KIT_SYM_ELF && perfsink_kit_debug_read_of(b, 0, buf, &size, &how) == 0) {
		snprintf(name, n, "%s/%s/debug", rel, b->hex);
		rc = member(a, name, buf->data, buf->len, 0644, NULL);
		st->debug++;
		st->bytes += buf->len;
	}
	snprintf(ln, sizeof(ln), ".build-id/%.2s/%s", b->hex, b->hex + 2);
	snprintf(link, n, "../../%s/%s", rel, b->hex);
	if (!rc)
		rc = member(a, ln, NULL, 0, 0777, link);
out:
	free(name);
	free(link);
	return rc;
}

int perfsink_kit_symarchive_write(int fd, const uint8_t *build_ids, size_t len,
				  struct perfsink_kit_symarchive_stats *st, char *why, size_t whylen)
{
	static const char zero[2 * BLOCK];
	struct archive *a = calloc(1, sizeof(*a));
	struct perfsink_kit_buf buf = { 0 };
	struct perfsink_kit_build_id b;
	size_t off = 0;
	int rc = 0;

	memset(st, 0, sizeof(*st));
	if (!a || !(a->cctx = ZSTD_createCCtx())) {
		free(a);
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	a->fd = fd;
	a->mtime = time(NULL);
	ZSTD_CCtx_setParameter(a->cctx, ZSTD_c_compressionLevel, 3);
	while (!rc && perfsink_kit_build_id_next(build_ids, len, &off, &b)) {
		st->entries++;
		rc = entry(a, &b, &buf, st);
	}
	if (!rc)
		rc = emit(a, zero, sizeof(zero), 1); /* tar's end: two zero blocks */
	st->out_bytes = a->out_bytes;
	if (rc)
		snprintf(why, whylen, "cannot write the symbol archive: %s", strerror(-rc));
	perfsink_kit_buf_free(&buf);
	ZSTD_freeCCtx(a->cctx);
	free(a);
	return rc;
}

#else

int perfsink_kit_symarchive_write(int fd, const uint8_t *build_ids, size_t len,
				  struct perfsink_kit_symarchive_stats *st, char *why, size_t whylen)
{
	(void)fd;
	(void)build_ids;
	(void)len;
	memset(st, 0, sizeof(*st));
	snprintf(why, whylen, "this build of the sink kit has no zstd");
	return -ENOTSUP;
}

#endif

/* The archive of a perf.data file's build-ids, written aside and renamed. */
int perfsink_kit_symarchive_of_file(const char *path, const char *archive,
				    struct perfsink_kit_symarchive_stats *st, char *why, size_t whylen)
{
	struct perfsink_kit_buf ids = { 0 };
	struct perfsink_kit_output o;
	int rc, fd;

	memset(st, 0, sizeof(*st));
	rc = fd = perfsink_kit_input_open(AT_FDCWD, path, "archive", why, whylen);
	if (fd >= 0) {
		rc = kit_build_ids_of_fd(fd, &ids);
		close(fd);
		if (rc)
			snprintf(why, whylen, "%s: %s", path, rc == -EBADMSG ?
				 "not a perf.data file with a readable feature index" : strerror(-rc));
	}
	if (rc) {
		perfsink_kit_buf_free(&ids);
		return rc;
	}
	/*
	 * Written aside and renamed: a reader never sees half an archive.
	 * Mode 0600 as perf.data: it holds root's view of /proc/kallsyms
	 * (the kernel's addresses) and files only their owners may read.
	 */
	rc = perfsink_kit_output_create(&o, archive, why, whylen);
	if (rc == 0) {
		rc = perfsink_kit_symarchive_write(o.fd, ids.data, ids.len, st, why, whylen);
		if (rc == 0)
			rc = perfsink_kit_output_replace(&o, why, whylen);
		if (rc == 0)
			rc = perfsink_kit_output_close(&o);
		else
			perfsink_kit_output_discard(&o);
	}
	perfsink_kit_buf_free(&ids);
	return rc;
}
