/*
 * Readers (node_exporter's textfile collector, a script reading the JSON)
 * must never see half a file: they get the old one or the new one.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include "cli/atomic_file.h"

int atomic_file_open(struct atomic_file *a, const char *path)
{
	a->path = path;
	if (snprintf(a->tmp, sizeof(a->tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(a->tmp))
		return -ENAMETOOLONG;
	a->f = fopen(a->tmp, "we");
	return a->f ? 0 : -errno;
}

int atomic_file_commit(struct atomic_file *a)
{
	int err = ferror(a->f) ? EIO : 0;

	if (fclose(a->f) != 0 && !err)
		err = errno;
	a->f = NULL;
	if (!err && rename(a->tmp, a->path) < 0)
		err = errno;
	if (err)
		unlink(a->tmp);
	return -err;
}
