#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <perfsink/kit.h>

#define STAMP_DIGITS 14
#define SEQ_DIGITS 6

char *perfsink_kit_segment_path(const char *base, const struct perfsink_stream *s)
{
	if (!(s->flags & PERFSINK_STREAM_ROTATING))
		return strdup(base);
	time_t t = (time_t)(s->start_realtime_ns / 1000000000);
	struct tm tm;
	char stamp[32];
	localtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
	size_t n = strlen(base) + 32;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s.%s.%0*u", base, stamp, SEQ_DIGITS, s->segment);
	return p;
}

static int all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

int perfsink_kit_segment_name_matches(const char *bname, const char *name)
{
	size_t b = strlen(bname);
	if (strncmp(name, bname, b) || name[b] != '.')
		return 0;
	const char *p = name + b + 1;
	if (strlen(p) < STAMP_DIGITS + 1 + SEQ_DIGITS || !all_digits(p, STAMP_DIGITS) ||
	    p[STAMP_DIGITS] != '.')
		return 0;
	p += STAMP_DIGITS + 1;
	return all_digits(p, strlen(p)) && strlen(p) >= SEQ_DIGITS;
}

/*
 * Only our own regular files are old segments: in a shared directory such
 * as /tmp, a link or another user's file with a segment's name stays.
 */
static int own_file(int dfd, const char *name)
{
	struct stat st;
	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	       st.st_uid == geteuid();
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void report_removed(const struct perfsink_instance *inst, const char *dir,
			   const char *name)
{
	size_t n = (dir ? strlen(dir) + 1 : 0) + strlen(name) + 1;
	char *path = inst ? malloc(n) : NULL;

	if (!path)
		return;
	/* Spelled as perfsink_kit_segment_path spelled it when the output began. */
	snprintf(path, n, "%s%s%s", dir ? dir : "", dir ? "/" : "", name);
	perfsink_output(inst, PERFSINK_OUTPUT_REMOVED, path, 0);
	free(path);
}

int perfsink_kit_segments_prune(const char *base, unsigned keep)
{
	return perfsink_kit_segments_prune_report(NULL, base, keep);
}

int perfsink_kit_segments_prune_report(const struct perfsink_instance *inst, const char *base,
				       unsigned keep)
{
	char *d1 = strdup(base), *d2 = strdup(base);
	if (!d1 || !d2) {
		free(d1);
		free(d2);
		return -ENOMEM;
	}
	const char *dir = dirname(d1), *bname = basename(d2);
	DIR *dh = opendir(dir);
	if (!dh) {
		int e = errno;
		free(d1);
		free(d2);
		return -e;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int ret = 0;
	while ((de = readdir(dh))) {
		if (!perfsink_kit_segment_name_matches(bname, de->d_name) || !own_file(dirfd(dh), de->d_name))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			char **nn = realloc(names, cap * sizeof(*names));
			if (!nn) {
				ret = -ENOMEM;
				break;
			}
			names = nn;
		}
		if (!(names[n] = strdup(de->d_name))) {
			ret = -ENOMEM;
			break;
		}
		n++;
	}
	if (ret == 0 && n > keep) {
		qsort(names, n, sizeof(*names), cmp_names);
		for (size_t i = 0; i < n - keep; i++) {
			if (unlinkat(dirfd(dh), names[i], 0) < 0 && errno != ENOENT && ret >= 0)
				ret = -errno;
			else if (ret >= 0)
				ret++;
			report_removed(inst, strchr(base, '/') ? dir : NULL, names[i]);
		}
	}
	closedir(dh);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(d1);
	free(d2);
	return ret;
}
