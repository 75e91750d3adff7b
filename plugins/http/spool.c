/* The local spool directory; see spool.h. */
#include "spool.h"
#include "part.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int mkdir_p(const char *path)
{
	char *tmp = strdup(path);
	char *p;
	int rc = 0;

	if (!tmp)
		return -ENOMEM;
	for (p = tmp + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(tmp, 0700) < 0 && errno != EEXIST) {
			rc = -errno;
			break;
		}
		*p = c;
		if (!c)
			break;
	}
	free(tmp);
	return rc;
}

static char *path_join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "%s/%s", a, b);
	return s;
}

/* Sum of file sizes below dir, deleting leftover .tmp files. */
static uint64_t dir_usage(const char *dir, struct part **list);

int spool_open(struct spool *s, const char *spool_dir, const char *instance,
	       uint64_t max, char *err, size_t errlen)
{
	char *probe;
	int rc, fd;

	memset(s, 0, sizeof(*s));
	s->max = max;
	s->dir = path_join(spool_dir, instance);
	if (!s->dir)
		return -ENOMEM;
	rc = mkdir_p(s->dir);
	if (rc < 0) {
		snprintf(err, errlen, "spool_dir %s: cannot create: %s", s->dir, strerror(-rc));
		goto fail;
	}
	probe = path_join(s->dir, ".probe.tmp");
	if (!probe) {
		rc = -ENOMEM;
		goto fail;
	}
	fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	rc = fd < 0 ? -errno : 0;
	if (fd >= 0) {
		close(fd);
		unlink(probe);
	}
	free(probe);
	if (rc < 0) {
		snprintf(err, errlen, "spool_dir %s: not writable: %s", s->dir, strerror(-rc));
		goto fail;
	}
	s->used = dir_usage(s->dir, NULL);
	return 0;
fail:
	spool_close(s);
	return rc;
}

void spool_close(struct spool *s)
{
	free(s->dir);
	s->dir = NULL;
}

static int write_all(int fd, const uint8_t *d, size_t len)
{
	while (len) {
		ssize_t n = write(fd, d, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		d += n;
		len -= (size_t)n;
	}
	return 0;
}

int spool_put(struct spool *s, struct part *p)
{
	char *path, *tmp, *slash;
	int fd, rc;

	if (p->spool_path)
		return 0;
	if (p->kind == PART_DATA && s->used + p->len > s->max)
		return -ENOSPC;
	path = path_join(s->dir, p->key);
	tmp = path ? malloc(strlen(path) + 5) : NULL;
	if (!tmp) {
		free(path);
		return -ENOMEM;
	}
	sprintf(tmp, "%s.tmp", path);
	slash = strrchr(path, '/');
	*slash = '\0';
	rc = mkdir_p(path);
	*slash = '/';
	fd = rc < 0 ? -1 : open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (rc == 0 && fd < 0)
		rc = -errno;
	if (fd >= 0) {
		rc = write_all(fd, p->data, p->len);
		if (close(fd) < 0 && rc == 0)
			rc = -errno;
		if (rc == 0 && rename(tmp, path) < 0)
			rc = -errno;
		if (rc < 0)
			unlink(tmp);
	}
	free(tmp);
	if (rc < 0) {
		free(path);
		return rc;
	}
	p->spool_path = path;
	s->used += p->len;
	return 0;
}

int spool_load(struct spool *s, struct part *p)
{
	struct stat st;
	int fd, rc = 0;
	size_t off = 0;

	(void)s;
	fd = open(p->spool_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		goto out;
	}
	free(p->data);
	p->len = p->cap = (size_t)st.st_size;
	p->data = malloc(p->cap ? p->cap : 1);
	if (!p->data) {
		rc = -ENOMEM;
		goto out;
	}
	while (off < p->len) {
		ssize_t n = read(fd, p->data + off, p->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : -EIO;
			break;
		}
		off += (size_t)n;
	}
out:
	close(fd);
	return rc;
}

void spool_remove(struct spool *s, struct part *p)
{
	struct stat st;
	char *slash;
	int up;

	if (!p->spool_path)
		return;
	if (stat(p->spool_path, &st) == 0 && unlink(p->spool_path) == 0)
		s->used -= (uint64_t)st.st_size <= s->used ? (uint64_t)st.st_size : s->used;
	/* Remove the session and host directories once they are empty. */
	for (up = 0; up < 2; up++) {
		slash = strrchr(p->spool_path, '/');
		if (!slash)
			break;
		*slash = '\0';
		if (strlen(p->spool_path) <= strlen(s->dir) || rmdir(p->spool_path) < 0)
			break;
	}
	free(p->spool_path);
	p->spool_path = NULL;
}

struct scan {
	struct part **v;
	size_t n, cap;
	uint64_t bytes;
};

static int scan_add(struct scan *sc, const char *dir, const char *rel, const char *path,
		    size_t size)
{
	struct part *p;

	(void)dir;
	if (sc->n == sc->cap) {
		size_t cap = sc->cap ? sc->cap * 2 : 64;
		struct part **v = realloc(sc->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		sc->v = v;
		sc->cap = cap;
	}
	p = part_new(strtoull(strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel, NULL, 10), PART_DATA);
	if (!p || !(p->key = strdup(rel)) || !(p->spool_path = strdup(path))) {
		part_free(p);
		return -ENOMEM;
	}
	p->len = size; /* bytes on disk; data stays NULL until spool_load */
	sc->v[sc->n++] = p;
	return 0;
}

/* Walk dir up to depth levels; files at exactly that depth are parts. */
static int scan_dir(struct scan *sc, const char *base, const char *rel, int depth)
{
	char *dir = rel[0] ? path_join(base, rel) : strdup(base);
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if (!dir)
		return -ENOMEM;
	d = opendir(dir);
	if (!d) {
		free(dir);
		return 0;
	}
	while (rc == 0 && (de = readdir(d))) {
		char *r, *path;
		struct stat st;
		size_t nl = strlen(de->d_name);

		if (de->d_name[0] == '.')
			continue;
		r = rel[0] ? path_join(rel, de->d_name) : strdup(de->d_name);
		path = path_join(dir, de->d_name);
		if (!r || !path) {
			rc = -ENOMEM;
		} else if (stat(path, &st) < 0) {
			/* gone meanwhile */
		} else if (S_ISDIR(st.st_mode) && depth > 1) {
			rc = scan_dir(sc, base, r, depth - 1);
		} else if (S_ISREG(st.st_mode) && nl > 4 && !strcmp(de->d_name + nl - 4, ".tmp")) {
			unlink(path);
		} else if (S_ISREG(st.st_mode) && depth == 1) {
			sc->bytes += (uint64_t)st.st_size;
			rc = scan_add(sc, base, r, path, (size_t)st.st_size);
		}
		free(r);
		free(path);
	}
	closedir(d);
	free(dir);
	return rc;
}

static int part_key_cmp(const void *a, const void *b)
{
	const struct part *pa = *(struct part *const *)a, *pb = *(struct part *const *)b;

	return strcmp(pa->key, pb->key);
}

static uint64_t dir_usage(const char *dir, struct part **list)
{
	struct scan sc = { 0 };
	size_t i;

	scan_dir(&sc, dir, "", 3);
	if (list && sc.n) {
		qsort(sc.v, sc.n, sizeof(*sc.v), part_key_cmp);
		for (i = 0; i + 1 < sc.n; i++)
			sc.v[i]->next = sc.v[i + 1];
		*list = sc.v[0];
	} else {
		for (i = 0; i < sc.n; i++)
			part_free(sc.v[i]);
	}
	free(sc.v);
	return sc.bytes;
}

int spool_scan(struct spool *s, struct part **out)
{
	struct part *p;
	int n = 0;

	*out = NULL;
	s->used = dir_usage(s->dir, out);
	for (p = *out; p; p = p->next)
		n++;
	return n;
}
