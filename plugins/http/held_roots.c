/* Held roots of container processes; see held_roots.h. */
#define _GNU_SOURCE /* O_PATH */
#include "held_roots.h"
#include "proc_root.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct held_root *find(const struct held_roots *h, int32_t pid)
{
	for (size_t i = 0; i < h->n; i++)
		if (h->v[i].pid == pid)
			return &h->v[i];
	return NULL;
}

/* Open pid's root and mount namespace into r; 0 or -1 (nothing open). */
static int hold(struct held_root *r, int32_t pid)
{
	char path[64];
	int nspid = proc_nspid(pid);

	snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
	r->root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	r->mntns = open(path, O_RDONLY | O_CLOEXEC);
	if (r->root < 0 || r->mntns < 0 || nspid <= 0) {
		if (r->root >= 0)
			close(r->root);
		if (r->mntns >= 0)
			close(r->mntns);
		return -1;
	}
	r->pid = pid;
	r->nspid = nspid;
	return 0;
}

void held_roots_see(struct held_roots *h, int32_t pid)
{
	struct held_root *old = find(h, pid), r;

	if (pid <= 0 || proc_other_mntns(pid) != 1)
		return;
	if (!old && h->n == HELD_ROOTS_MAX) {
		pid_set_add(&h->unheld, pid);
		return;
	}
	if (!h->v && !(h->v = calloc(HELD_ROOTS_MAX, sizeof(*h->v))))
		return;
	if (hold(&r, pid) < 0)
		return; /* gone meanwhile: an older hold, if any, stays */
	if (old) {
		close(old->root);
		close(old->mntns);
		*old = r;
	} else {
		h->v[h->n++] = r;
	}
}

const struct held_root *held_roots_find(const struct held_roots *h, int32_t pid)
{
	return find(h, pid);
}

size_t held_roots_unheld(const struct held_roots *h)
{
	return h->unheld.n;
}

void held_roots_move(struct held_roots *to, struct held_roots *from)
{
	*to = *from;
	memset(from, 0, sizeof(*from));
}

void held_roots_close(struct held_roots *h)
{
	for (size_t i = 0; i < h->n; i++) {
		close(h->v[i].root);
		close(h->v[i].mntns);
	}
	free(h->v);
	pid_set_free(&h->unheld);
	memset(h, 0, sizeof(*h));
}
