/* One line of a small sysfs or procfs file; see sysfs_line.h. */
#include <config.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "probe/sysfs_line.h"

bool machine_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	bool ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}
