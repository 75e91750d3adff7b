/* exe_dir: see exe_dir.h. */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include "loader/exe_dir.h"

int exe_dir(char *out, size_t len)
{
	char exe[PATH_MAX];

	out[0] = '\0';
	if (!realpath("/proc/self/exe", exe))
		return -1;
	if ((size_t)snprintf(out, len, "%s", dirname(exe)) >= len) {
		out[0] = '\0';
		return -1;
	}
	return 0;
}
