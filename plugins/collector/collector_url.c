/*
 * Where an object of a collector is: see <perfsink/collector.h>.  One
 * join for the sink's uploads and fetch's reads, so that both name an
 * object by the same URL (a virtual-hosted bucket too).
 */
#include <perfsink/collector.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *perfsink_coll_url(const char *base, const char *bucket, int path_style, const char *path)
{
	const char *sep = strstr(base, "://"), *host = sep ? sep + 3 : base;
	size_t n = strlen(base) + (bucket ? strlen(bucket) : 0) + strlen(path) + 4;
	char *out = malloc(n);

	if (!out)
		return NULL;
	if (!bucket)
		snprintf(out, n, "%s/%s", base, path);
	else if (path_style || !sep)
		snprintf(out, n, "%s/%s/%s", base, bucket, path);
	else /* virtual-hosted: the bucket becomes part of the host name */
		snprintf(out, n, "%.*s%s.%s/%s", (int)(host - base), base, bucket, host, path);
	return out;
}
