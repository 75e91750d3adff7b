/* The local spool directory; see collector_ship.h. */
/* _GNU_SOURCE (renameat2): config.h, included first by the build. */
#include <perfsink/collector_ship.h>
#include "spool_read_priv.h"
#include <perfsink/kit.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define QUARANTINE "quarantine"
#define NAME_MAX_LEN 200
/* A session's end marker in its spool directory; sorts after every part. */
#define END_LEAF "end"

static char *path_join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "%s/%s", a, b);
	return s;
}

int spool_seq_name(const char *name, uint64_t *seq)
{
	size_t n = strspn(name, "0123456789");

	if (name[n] || n < 10 || n > 19 || (n > 10 && name[0] == '0'))
		return 0;
	if (seq)
		*seq = strtoull(name, NULL, 10);
	return 1;
}

/* A host or session directory name as the sink makes them. */
static int dir_name_ok(const char *name)
{
	size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");

	return n && !name[n] && n <= NAME_MAX_LEN && name[0] != '.';
}

/* A leaf the sink writes in a session directory: a part, or the end marker. */
static int leaf_name_ok(const char *name)
{
	return spool_seq_name(name, NULL) || !strcmp(name, END_LEAF);
}

/* "{seq}.tmp" or "end.tmp": a write cut short by a crash. */
static int tmp_name(const char *name)
{
	size_t n = strlen(name);
	char seq[32];

	if (n < 5 || n - 4 >= sizeof(seq) || strcmp(name + n - 4, ".tmp"))
		return 0;
	memcpy(seq, name, n - 4);
	seq[n - 4] = '\0';
	return leaf_name_ok(seq);
}

/*
 * Where p lives below the instance directory: its key, but the end marker
 * "{host}/{session}.end" is kept as "{host}/{session}/end", in its
 * session's directory, where the scan finds it after the session's parts.
 */
static int part_rel(const struct part *p, char *rel, size_t len)
{
	size_t n = strlen(p->key);

	if (p->kind != PART_END) {
		if (n >= len)
			return -EINVAL;
		memcpy(rel, p->key, n + 1);
		return 0;
	}
	if (n < 5 || strcmp(p->key + n - 4, ".end") || n + 1 >= len)
		return -EINVAL;
	snprintf(rel, len, "%.*s/" END_LEAF, (int)(n - 4), p->key);
	return 0;
}

/* Why name in parent could not be opened as a directory. */
static const char *not_dir_why(int parent, const char *name)
{
	struct stat st;

	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
		return "a symbolic link";
	return "not a directory";
}

/* Owned by the recording user and writable by nobody else. */
static int dir_check(int fd, const char *path, uid_t owner, char *err, size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		int e = errno;

		snprintf(err, errlen, "spool_dir %s: %s", path, strerror(e));
		return -e;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "spool_dir %s: not a directory", path);
		return -ENOTDIR;
	}
	if (st.st_uid != owner) {
		snprintf(err, errlen, "spool_dir %s: owned by uid %u, not by the recording user (uid %u): "
			 "refused", path, (unsigned)st.st_uid, (unsigned)owner);
		return -EPERM;
	}
	if (st.st_mode & 022) {
		snprintf(err, errlen, "spool_dir %s: mode %04o lets group or others write in it: refused "
			 "(chmod go-w it, or use another spool_dir)", path, (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/*
 * The directory name below parent (made 0700 when create), never through a
 * symlink, checked.  path names it in messages.  Returns an fd or a
 * negative errno with the reason in err.
 */
static int subdir_open(int parent, const char *name, int create, const char *path, uid_t owner,
		       char *err, size_t errlen)
{
	int fd, rc;

	if (create && mkdirat(parent, name, 0700) < 0 && errno != EEXIST) {
		rc = -errno;
		snprintf(err, errlen, "spool_dir %s: cannot create: %s", path, strerror(-rc));
		return rc;
	}
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		if (rc == -ELOOP || rc == -ENOTDIR)
			snprintf(err, errlen, "spool_dir %s: %s: refused", path, not_dir_why(parent, name));
		else
			snprintf(err, errlen, "spool_dir %s: %s", path, strerror(-rc));
		return rc;
	}
	rc = dir_check(fd, path, owner, err, errlen);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

/* ------------------------------------------------------------ quarantine */

/*
 * Open {qdir}/{dirs of rel}, made like the spool's own directories.
 * Returns an fd or a negative errno.
 */
static int quarantine_dir_open(struct spool *s, const char *rel, char *err, size_t errlen)
{
	char *copy = strdup(rel), *part, *slash;
	int fd, next;

	if (!copy)
		return -ENOMEM;
	fd = subdir_open(s->base_fd, QUARANTINE, 1, s->qdir, s->owner, err, errlen);
	if (fd >= 0) {
		next = subdir_open(fd, s->instance, 1, s->qdir, s->owner, err, errlen);
		close(fd);
		fd = next;
	}
	for (part = copy; fd >= 0 && (slash = strchr(part, '/')); part = slash + 1) {
		*slash = '\0';
		next = subdir_open(fd, part, 1, s->qdir, s->owner, err, errlen);
		close(fd);
		fd = next;
	}
	free(copy);
	return fd;
}

/*
 * Move the entry leaf of dirfd (rel below the instance dir) to the
 * quarantine, under a free name, and report it.  Never deletes it.
 */
static void quarantine(struct spool *s, int dirfd, const char *leaf, const char *rel, const char *why,
		       uint64_t bytes)
{
	char err[512] = "", to_name[300], *path = path_join(s->dir, rel);
	char *to = NULL;
	int qfd = quarantine_dir_open(s, rel, err, sizeof(err)), i, rc = -1;

	for (i = 0; qfd >= 0 && i < 100; i++) {
		if (i)
			snprintf(to_name, sizeof(to_name), "%s.%d", leaf, i);
		else
			snprintf(to_name, sizeof(to_name), "%s", leaf);
		rc = renameat2(dirfd, leaf, qfd, to_name, RENAME_NOREPLACE);
		if (rc == 0 || errno != EEXIST)
			break;
	}
	if (rc == 0) {
		size_t n = strlen(s->qdir) + strlen(rel) + 16;

		to = malloc(n);
		if (to)
			snprintf(to, n, "%s/%.*s%s", s->qdir, (int)(strlen(rel) - strlen(leaf)), rel, to_name);
	} else if (!err[0]) {
		snprintf(err, sizeof(err), "cannot move it to %s: %s", s->qdir, strerror(errno));
	}
	if (qfd >= 0)
		close(qfd);
	if (rc == 0 && s->used >= bytes)
		s->used -= bytes;
	if (s->on_quarantine) {
		char whyall[1100];

		snprintf(whyall, sizeof(whyall), "%s%s%s", why, rc == 0 ? "" : "; left in place: ", rc == 0 ? "" : err);
		s->on_quarantine(s->arg, path ? path : rel, rc == 0 ? (to ? to : s->qdir) : NULL, whyall, bytes);
	}
	free(to);
	free(path);
}

/* ------------------------------------------------------------- open/close */

static int walk(struct spool *s, int act, struct part **list);

int spool_open(struct spool *s, const char *spool_dir, const char *instance,
	       uint64_t max, char *err, size_t errlen)
{
	char qbase[4096];
	int rc, fd;

	memset(s, 0, sizeof(*s));
	s->base_fd = s->fd = -1;
	s->max = max;
	s->owner = geteuid();
	if (strchr(instance, '/') || instance[0] == '.' || !strcmp(instance, QUARANTINE)) {
		snprintf(err, errlen, "sink name '%s' cannot name a directory of spool_dir %s", instance,
			 spool_dir);
		return -EINVAL;
	}
	snprintf(qbase, sizeof(qbase), "%s/" QUARANTINE, spool_dir);
	s->dir = path_join(spool_dir, instance);
	s->qdir = path_join(qbase, instance);
	s->instance = strdup(instance);
	if (!s->dir || !s->qdir || !s->instance) {
		rc = -ENOMEM;
		goto fail;
	}
	/*
	 * Every component above walked without following links (missing ones
	 * made 0700), the spool directory itself checked by the spool's rules.
	 */
	char what[300];
	const char *leaf;
	snprintf(what, sizeof(what), "spool in '%.200s'", spool_dir);
	rc = perfsink_kit_parent_open(spool_dir, PERFSINK_KIT_DIR_MKDIR, &leaf, what, err, errlen);
	if (rc >= 0 && !*leaf) { /* "/" or a trailing slash */
		close(rc);
		rc = -EINVAL;
		snprintf(err, errlen, "spool_dir %s: name the directory without a trailing '/'",
			 spool_dir);
	}
	if (rc >= 0) {
		int parent = rc;
		s->base_fd = rc = subdir_open(parent, leaf, 1, spool_dir, s->owner, err, errlen);
		close(parent);
	}
	if (rc >= 0)
		rc = s->fd = subdir_open(s->base_fd, instance, 1, s->dir, s->owner, err, errlen);
	if (rc < 0)
		goto fail;
	fd = openat(s->fd, ".probe.tmp", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	rc = fd < 0 ? -errno : 0;
	if (fd >= 0) {
		close(fd);
		unlinkat(s->fd, ".probe.tmp", 0);
	}
	if (rc < 0) {
		snprintf(err, errlen, "spool_dir %s: not writable: %s", s->dir, strerror(-rc));
		goto fail;
	}
	walk(s, 0, NULL); /* counts the backlog; the thread's scan acts on it */
	return 0;
fail:
	spool_close(s);
	return rc;
}

void spool_close(struct spool *s)
{
	/* Nothing to do after a failed open, or for a zeroed struct (fds 0). */
	if (!s->dir)
		return;
	if (s->fd >= 0)
		close(s->fd);
	if (s->base_fd >= 0)
		close(s->base_fd);
	s->fd = s->base_fd = -1;
	free(s->dir);
	free(s->qdir);
	free(s->instance);
	s->dir = s->qdir = s->instance = NULL;
}

/* ----------------------------------------------------------- one part */

/* Where a key lives: its host and session directories, opened and checked. */
struct loc {
	int host_fd, sess_fd;
	char host[NAME_MAX_LEN + 1], sess[NAME_MAX_LEN + 1];
	const char *leaf;
};

static void loc_close(struct loc *l)
{
	if (l->sess_fd >= 0)
		close(l->sess_fd);
	if (l->host_fd >= 0)
		close(l->host_fd);
	l->host_fd = l->sess_fd = -1;
}

/* key: a part's place below the instance directory (part_rel). */
static int loc_open(struct spool *s, const char *key, int create, struct loc *l)
{
	const char *a = strchr(key, '/'), *b = a ? strchr(a + 1, '/') : NULL;
	char path[1024];
	int rc;

	l->host_fd = l->sess_fd = -1;
	if (!a || !b || strchr(b + 1, '/') || (size_t)(a - key) > NAME_MAX_LEN ||
	    (size_t)(b - a - 1) > NAME_MAX_LEN) {
		snprintf(s->err, sizeof(s->err), "spool: bad part key %s", key);
		return -EINVAL;
	}
	memcpy(l->host, key, (size_t)(a - key));
	l->host[a - key] = '\0';
	memcpy(l->sess, a + 1, (size_t)(b - a - 1));
	l->sess[b - a - 1] = '\0';
	l->leaf = b + 1;
	if (!dir_name_ok(l->host) || !dir_name_ok(l->sess) || !leaf_name_ok(l->leaf)) {
		snprintf(s->err, sizeof(s->err), "spool: bad part key %s", key);
		return -EINVAL;
	}
	/* Checked at every use: a directory changed under us is refused. */
	rc = dir_check(s->base_fd, s->dir, s->owner, s->err, sizeof(s->err));
	if (rc == 0)
		rc = dir_check(s->fd, s->dir, s->owner, s->err, sizeof(s->err));
	if (rc < 0)
		return rc;
	snprintf(path, sizeof(path), "%s/%s", s->dir, l->host);
	l->host_fd = subdir_open(s->fd, l->host, create, path, s->owner, s->err, sizeof(s->err));
	if (l->host_fd < 0)
		return l->host_fd;
	snprintf(path, sizeof(path), "%s/%s/%s", s->dir, l->host, l->sess);
	l->sess_fd = subdir_open(l->host_fd, l->sess, create, path, s->owner, s->err, sizeof(s->err));
	if (l->sess_fd < 0) {
		rc = l->sess_fd;
		loc_close(l);
		return rc;
	}
	return 0;
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
	char tmp[64], rel[1024];
	struct loc l;
	int fd, rc;

	if (p->spool_path)
		return 0;
	if (p->kind == PART_DATA && s->used + p->body.len > s->max)
		return -ENOSPC;
	rc = part_rel(p, rel, sizeof(rel));
	if (rc < 0) {
		snprintf(s->err, sizeof(s->err), "spool: bad part key %s", p->key);
		return rc;
	}
	rc = loc_open(s, rel, 1, &l);
	if (rc < 0)
		return rc;
	snprintf(tmp, sizeof(tmp), "%s.tmp", l.leaf);
	unlinkat(l.sess_fd, tmp, 0);
	fd = openat(l.sess_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	rc = fd < 0 ? -errno : 0;
	if (fd >= 0) {
		rc = write_all(fd, p->body.data, p->body.len);
		if (close(fd) < 0 && rc == 0)
			rc = -errno;
		if (rc == 0 && renameat(l.sess_fd, tmp, l.sess_fd, l.leaf) < 0)
			rc = -errno;
		if (rc < 0)
			unlinkat(l.sess_fd, tmp, 0);
	}
	loc_close(&l);
	if (rc == 0)
		p->spool_path = path_join(s->dir, rel);
	if (rc == 0 && !p->spool_path)
		rc = -ENOMEM;
	if (rc < 0) {
		snprintf(s->err, sizeof(s->err), "spool %s/%s: %s", s->dir, p->key, strerror(-rc));
		return rc;
	}
	s->used += p->body.len;
	return 0;
}

static int read_all(int fd, uint8_t *d, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = read(fd, d + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		off += (size_t)n;
	}
	return 0;
}

/* Why the opened entry st is not a part file we wrote, or NULL. */
static const char *file_refusal(const struct stat *st, uid_t owner, char *buf, size_t len)
{
	if (S_ISLNK(st->st_mode))
		return "a symbolic link";
	if (!S_ISREG(st->st_mode))
		return S_ISFIFO(st->st_mode) ? "a FIFO, not a regular file" :
		       S_ISDIR(st->st_mode) ? "a directory, not a part file" : "not a regular file";
	if (st->st_uid != owner) {
		snprintf(buf, len, "owned by uid %u, not by the recording user", (unsigned)st->st_uid);
		return buf;
	}
	if (st->st_nlink != 1) {
		snprintf(buf, len, "has %ju hard links", (uintmax_t)st->st_nlink);
		return buf;
	}
	return NULL;
}

/*
 * Why an end marker's bytes must not be sent, or NULL: they are not the
 * sink's {"parts": N}, or a part numbered N or more was in the session's
 * directory, at the scan (p->seq parts at least) or now (the marker would
 * tell a reader the stream has fewer parts than it has).
 */
static const char *end_refusal(int sess_fd, const struct part *p, char *buf, size_t len)
{
	const char *why = NULL;
	struct dirent *de;
	uint64_t n, seq;
	DIR *d;
	int fd;

	if (part_end_parse(p->body.data, p->body.len, &n, NULL, NULL) < 0)
		return "not an end marker ({\"parts\": N} as the sink writes it)";
	if (n < p->seq) {
		snprintf(buf, len, "says %" PRIu64 " parts, but part %010" PRIu64 " was in the spool", n,
			 p->seq - 1);
		return buf;
	}
	/* A description of its own: readdir must not move sess_fd's offset. */
	fd = openat(sess_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		snprintf(buf, len, "cannot list its session directory: %s", strerror(errno));
		return buf;
	}
	while (!why && (de = readdir(d)))
		if (spool_seq_name(de->d_name, &seq) && seq >= n) {
			snprintf(buf, len, "says %" PRIu64 " parts, but part %s was in the spool", n, de->d_name);
			why = buf;
		}
	closedir(d);
	return why;
}

/*
 * The checked bytes of the opened part file *fdp (size bytes): in memory,
 * or left in the file for a large data part (p->file_fd takes the fd, *fdp
 * becomes -1).  Returns why it must not be sent, or NULL; *rc gets an I/O
 * error.  Memory stays bounded whatever the file holds.
 */
static const char *part_read(const struct spool *s, int sess_fd, struct part *p, int *fdp, uint64_t size,
			     char *why, size_t whylen, int *rc)
{
	char rwhy[256];

	if (p->kind == PART_END && size >= PART_END_MAX)
		return "not an end marker ({\"parts\": N} as the sink writes it)";
	if (p->kind != PART_END && s->part_max && size > s->part_max) {
		snprintf(why, whylen, "%" PRIu64 " bytes, more than a part can have (%" PRIu64 ": part_size "
			 "plus %llu MiB): not read", size, s->part_max, SPOOL_PART_SLACK >> 20);
		return why;
	}
	if (p->kind != PART_END) {
		*rc = s->check_fd ? s->check_fd(*fdp, size, p, rwhy, sizeof(rwhy))
				  : spool_records_check_fd(*fdp, size, p->seq == 0, rwhy, sizeof(rwhy));
		if (*rc == -EBADMSG) {
			*rc = 0;
			snprintf(why, whylen, s->check_fd ? "%s" : "not whole perf records: %s", rwhy);
			return why;
		}
		if (*rc)
			return NULL;
	}
	perfsink_kit_buf_free(&p->body);
	p->body.len = (size_t)size;
	if (size > SPOOL_INMEM_MAX) {
		p->file_fd = *fdp;
		*fdp = -1;
		return NULL;
	}
	*rc = perfsink_kit_buf_resize(&p->body, (size_t)size);
	p->body.len = (size_t)size;
	if (*rc == 0)
		*rc = read_all(*fdp, p->body.data, p->body.len);
	return *rc || p->kind != PART_END ? NULL : end_refusal(sess_fd, p, why, whylen);
}

int spool_load(struct spool *s, struct part *p)
{
	char why[300], rwhy[256], rel[1024];
	const char *bad = NULL;
	struct stat st;
	struct loc l;
	int fd, rc;
	uint64_t bytes = 0;

	rc = part_rel(p, rel, sizeof(rel));
	if (rc == 0)
		rc = loc_open(s, rel, 0, &l);
	if (rc < 0)
		return rc;
	fd = openat(l.sess_fd, l.leaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		if (rc == -ELOOP)
			bad = "a symbolic link";
		else if (rc == -ENXIO)
			bad = "not a regular file";
	} else if (fstat(fd, &st) < 0) {
		rc = -errno;
	} else if ((bad = file_refusal(&st, s->owner, rwhy, sizeof(rwhy)))) {
		bytes = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	} else if ((bad = part_read(s, l.sess_fd, p, &fd, (uint64_t)st.st_size, why, sizeof(why), &rc))) {
		bytes = p->kind == PART_END ? 0 : (uint64_t)st.st_size; /* a marker holds no data */
	}
	if (fd >= 0)
		close(fd);
	if (bad) {
		quarantine(s, l.sess_fd, l.leaf, rel, bad, bytes);
		part_unload(p);
		perfsink_kit_buf_free(&p->body);
		free(p->spool_path);
		p->spool_path = NULL;
		rc = -EBADMSG;
	} else if (rc < 0 && rc != -ENOENT) {
		snprintf(s->err, sizeof(s->err), "spool %s/%s: cannot read: %s", s->dir, p->key, strerror(-rc));
	}
	loc_close(&l);
	return rc;
}

void spool_remove(struct spool *s, struct part *p)
{
	char rel[1024];
	struct stat st;
	struct loc l;

	if (!p->spool_path)
		return;
	if (part_rel(p, rel, sizeof(rel)) == 0 && loc_open(s, rel, 0, &l) == 0) {
		if (fstatat(l.sess_fd, l.leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
		    unlinkat(l.sess_fd, l.leaf, 0) == 0)
			s->used -= (uint64_t)st.st_size <= s->used ? (uint64_t)st.st_size : s->used;
		/* Remove the session and host directories once they are empty. */
		if (unlinkat(l.host_fd, l.sess, AT_REMOVEDIR) == 0)
			unlinkat(s->fd, l.host, AT_REMOVEDIR);
		loc_close(&l);
	}
	free(p->spool_path);
	p->spool_path = NULL;
}

/* ------------------------------------------------------------------ scan */

struct walk {
	struct spool *s;
	int act;               /* quarantine and delete; else only count */
	struct part **v;
	size_t n, cap;
	uint64_t bytes;
};

/* rel: the part's place (part_rel); an end marker's key is "{host}/{session}.end". */
static int walk_add(struct walk *w, const char *rel, enum part_kind kind, uint64_t seq, size_t size)
{
	size_t n = strlen(rel);
	struct part *p;

	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 64;
		struct part **v = realloc(w->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		w->v = v;
		w->cap = cap;
	}
	p = part_new(seq, kind);
	if (p && kind == PART_END && (p->key = malloc(n + 1)))
		snprintf(p->key, n + 1, "%.*s.end", (int)(n - strlen("/" END_LEAF)), rel);
	else if (p)
		p->key = strdup(rel);
	if (!p || !p->key || !(p->spool_path = path_join(w->s->dir, rel))) {
		part_free(p);
		return -ENOMEM;
	}
	p->body.len = size; /* bytes on disk; data stays NULL until spool_load */
	w->v[w->n++] = p;
	return 0;
}

static void walk_bad(struct walk *w, int dfd, const char *name, const char *rel, const char *why,
		     const struct stat *st)
{
	if (w->act)
		quarantine(w->s, dfd, name, rel, why, S_ISREG(st->st_mode) ? (uint64_t)st->st_size : 0);
}

static int walk_dir(struct walk *w, int dfd, const char *rel, int depth);

/* One entry of a host (depth 3) or session (depth 2) level. */
static int walk_subdir(struct walk *w, int dfd, const char *name, const char *rel, int depth,
		       const struct stat *st)
{
	char err[512];
	int fd, rc;

	if (!S_ISDIR(st->st_mode)) {
		walk_bad(w, dfd, name, rel, S_ISLNK(st->st_mode) ? "a symbolic link where a directory belongs" :
			 "not a directory", st);
		return 0;
	}
	if (!dir_name_ok(name)) {
		walk_bad(w, dfd, name, rel, "directory name is not a host or session name", st);
		return 0;
	}
	fd = subdir_open(dfd, name, 0, rel, w->s->owner, err, sizeof(err));
	if (fd == -ENOENT)
		return 0;
	if (fd < 0) {
		walk_bad(w, dfd, name, rel, err, st);
		return 0;
	}
	rc = walk_dir(w, fd, rel, depth - 1);
	close(fd);
	return rc;
}

/* One entry of a session directory: a part, a leftover .tmp, or bad. */
static int walk_leaf(struct walk *w, int dfd, const char *name, const char *rel, const struct stat *st)
{
	char buf[128];
	const char *why;
	uint64_t seq;

	if (S_ISREG(st->st_mode) && tmp_name(name)) {
		if (w->act)
			unlinkat(dfd, name, 0);
		return 0;
	}
	int end = !strcmp(name, END_LEAF);

	if (!end && !spool_seq_name(name, &seq))
		why = "name is not a part sequence number (10 to 19 digits) or " END_LEAF;
	else
		why = file_refusal(st, w->s->owner, buf, sizeof(buf));
	if (why) {
		walk_bad(w, dfd, name, rel, why, st);
		return 0;
	}
	w->bytes += (uint64_t)st->st_size;
	if (!w->act)
		return 0;
	return end ? walk_add(w, rel, PART_END, 0, (size_t)st->st_size)
		   : walk_add(w, rel, PART_DATA, seq, (size_t)st->st_size);
}

/* Walk dfd (rel below the instance dir); depth 1 holds the parts. */
static int walk_dir(struct walk *w, int dfd, const char *rel, int depth)
{
	/* A description of its own: readdir must not move dfd's offset. */
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;
	struct dirent *de;
	DIR *d;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while (rc == 0 && (de = readdir(d))) {
		char r[1024];
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (depth == 3 && !strcmp(de->d_name, ".probe.tmp"))
			continue;
		snprintf(r, sizeof(r), "%s%s%s", rel, rel[0] ? "/" : "", de->d_name);
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue; /* gone meanwhile */
		if (depth > 1)
			rc = walk_subdir(w, dfd, de->d_name, r, depth, &st);
		else
			rc = walk_leaf(w, dfd, de->d_name, r, &st);
	}
	closedir(d);
	return rc;
}

/* By place in the spool: a session's parts in seq order, then its end marker. */
static int part_place_cmp(const void *a, const void *b)
{
	const struct part *pa = *(struct part *const *)a, *pb = *(struct part *const *)b;

	return strcmp(pa->spool_path, pb->spool_path);
}

/*
 * An end marker's seq is how many parts its session has at least: the
 * last part the scan found beside it (prev, when of the same session) + 1.
 * Checked against the marker when it is loaded, once those parts are sent.
 */
static void end_after(const struct part *prev, struct part *end)
{
	size_t dir = strlen(end->spool_path) - strlen(END_LEAF);

	if (end->kind == PART_END && prev->kind == PART_DATA &&
	    !strncmp(prev->spool_path, end->spool_path, dir) && !strchr(prev->spool_path + dir, '/'))
		end->seq = prev->seq + 1;
}

static int walk(struct spool *s, int act, struct part **list)
{
	struct walk w = { s, act, NULL, 0, 0, 0 };
	size_t i;
	int rc = dir_check(s->base_fd, s->dir, s->owner, s->err, sizeof(s->err));

	if (rc == 0)
		rc = dir_check(s->fd, s->dir, s->owner, s->err, sizeof(s->err));
	if (rc == 0)
		rc = walk_dir(&w, s->fd, "", 3);
	if (rc == 0)
		s->used = w.bytes;
	if (rc == 0 && list && w.n) {
		qsort(w.v, w.n, sizeof(*w.v), part_place_cmp);
		for (i = 0; i + 1 < w.n; i++)
			w.v[i]->next = w.v[i + 1];
		for (i = 1; i < w.n; i++)
			end_after(w.v[i - 1], w.v[i]);
		*list = w.v[0];
	} else {
		for (i = 0; i < w.n; i++)
			part_free(w.v[i]);
		w.n = rc < 0 ? 0 : w.n;
	}
	free(w.v);
	return rc < 0 ? rc : (int)w.n;
}

int spool_scan(struct spool *s, struct part **out)
{
	*out = NULL;
	return walk(s, 1, out);
}
