#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/atomic_file.h"

int atomic_file_check(const char *path, char *why, size_t n)
{
	return perfsink_kit_output_check(path, why, n);
}

int atomic_file_open(struct atomic_file *a, const char *path)
{
	int r = perfsink_kit_output_create(&a->o, path, a->why, sizeof(a->why));
	int fd = -1;

	a->f = NULL;
	if (r < 0)
		return r;
	/* For readers of other users (node_exporter): the kit creates 0600. */
	if (fchmod(a->o.fd, 0644) < 0 || (fd = dup(a->o.fd)) < 0 || !(a->f = fdopen(fd, "w"))) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		snprintf(a->why, sizeof(a->why), "cannot write '%s': %s", path, strerror(-r));
		perfsink_kit_output_discard(&a->o);
		return r;
	}
	return 0;
}

int atomic_file_commit(struct atomic_file *a)
{
	int err = ferror(a->f) ? EIO : 0;
	int r;

	if (fclose(a->f) != 0 && !err)
		err = errno;
	a->f = NULL;
	if (err) {
		snprintf(a->why, sizeof(a->why), "cannot write '%s': %s", a->o.path, strerror(err));
		perfsink_kit_output_discard(&a->o);
		return -err;
	}
	r = perfsink_kit_output_replace(&a->o, a->why, sizeof(a->why));
	if (r < 0)
		perfsink_kit_output_discard(&a->o);
	else
		r = perfsink_kit_output_close(&a->o);
	return r;
}
