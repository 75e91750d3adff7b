/* perfsink_kit_seglist: see include/perfsink/kit.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <perfsink/kit.h>

struct seg {
	char *path; /* as reported to the host */
	char *name; /* in the directory */
	int dirfd;  /* its own, when not the list's directory; else -1 */
	dev_t dev;
	ino_t ino;
};

/*
 * One descriptor for the directory the segments are in (the outputs'
 * close with them, before the prune), not one per segment: max_files
 * may be in the thousands.
 */
struct perfsink_kit_seglist {
	struct seg *segs; /* oldest first */
	size_t n, cap;
	int dirfd;
	dev_t dir_dev;
	ino_t dir_ino;
};

int perfsink_kit_seglist_create(struct perfsink_kit_seglist **out)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	(*out)->dirfd = -1;
	return 0;
}

/* A descriptor of o's directory for s, or -1 when it is the list's. */
static int seg_dir(struct perfsink_kit_seglist *l, const struct perfsink_kit_output *o)
{
	struct stat st;
	if (fstat(o->dirfd, &st) < 0)
		return -2;
	if (l->dirfd >= 0 && st.st_dev == l->dir_dev && st.st_ino == l->dir_ino)
		return -1;
	int fd = fcntl(o->dirfd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0 || l->dirfd >= 0)
		return fd < 0 ? -2 : fd;
	l->dirfd = fd;
	l->dir_dev = st.st_dev;
	l->dir_ino = st.st_ino;
	return -1;
}

static void seg_free(struct seg *s)
{
	free(s->path);
	free(s->name);
	if (s->dirfd >= 0)
		close(s->dirfd);
}

void perfsink_kit_seglist_destroy(struct perfsink_kit_seglist *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		seg_free(&l->segs[i]);
	free(l->segs);
	if (l->dirfd >= 0)
		close(l->dirfd);
	free(l);
}

int perfsink_kit_seglist_add(struct perfsink_kit_seglist *l, const struct perfsink_kit_output *o)
{
	struct seg s = { strdup(o->path), strdup(o->name), -1, o->dev, o->ino };

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		struct seg *ns = realloc(l->segs, cap * sizeof(*ns));
		if (ns) {
			l->segs = ns;
			l->cap = cap;
		}
	}
	if (!s.path || !s.name || l->n == l->cap) {
		seg_free(&s);
		return -ENOMEM;
	}
	if ((s.dirfd = seg_dir(l, o)) < -1) {
		int e = errno;
		s.dirfd = -1;
		seg_free(&s);
		return -e;
	}
	l->segs[l->n++] = s;
	return 0;
}

int perfsink_kit_seglist_prune(struct perfsink_kit_seglist *l, const struct perfsink_instance *inst,
			       unsigned keep)
{
	size_t drop = l->n > keep ? l->n - keep : 0;
	int removed = 0, err = 0;

	for (size_t i = 0; i < drop; i++) {
		struct seg *s = &l->segs[i];
		int dfd = s->dirfd >= 0 ? s->dirfd : l->dirfd;
		struct stat st;
		/* Only the very file this run wrote: a name since taken by another stays. */
		if (fstatat(dfd, s->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
		    st.st_dev == s->dev && st.st_ino == s->ino) {
			if (unlinkat(dfd, s->name, 0) == 0)
				removed++;
			else if (!err)
				err = -errno;
		}
		if (inst)
			perfsink_output(inst, PERFSINK_OUTPUT_REMOVED, s->path, 0);
		seg_free(s);
	}
	memmove(l->segs, l->segs + drop, (l->n - drop) * sizeof(*l->segs));
	l->n -= drop;
	return err ? err : removed;
}
