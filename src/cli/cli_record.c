/* perfsink record: the options resolved (record_prep.c), the engine run, the output renamed. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <perfsink/kit.h>
#include "cli/cli.h"
#include "cli/watch.h"
#include "loader/bind.h"
#include "engine/engine.h"
#include "base/log.h"
#include "config/opts.h"

/*
 * --timestamp-filename: the finished output renamed PATH.<YYYYmmddHHMMSScc>
 * (the end time, to the hundredth of a second), as perf names it.  Outputs
 * of --switch-output and --overwrite carry their time already.
 */
static void timestamp_rename(const char *path)
{
	char stamp[32], why[512], *to;
	const char *name;
	struct timeval tv;
	struct stat st;
	struct tm tm;
	int dfd;

	if (!path)
		return;
	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
	if (asprintf(&to, "%s.%s%02u", path, stamp, (unsigned)(tv.tv_usec / 10000)) < 0)
		return;
	/* Within the directory the sink wrote in, our own file, replacing nothing. */
	dfd = perfsink_kit_parent_open(path, 0, &name, "rename the output", why, sizeof(why));
	if (dfd < 0)
		pr_err("record: --timestamp-filename: %s", why);
	else if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
		 st.st_uid != geteuid())
		pr_err("record: --timestamp-filename: '%s' is no longer our output file", path);
	else if (renameat2(dfd, name, dfd, strrchr(to, '/') ? strrchr(to, '/') + 1 : to,
			   RENAME_NOREPLACE) == 0)
		log_summary(LOG_INFO, "[ perfsink record: Dump %s ]", to);
	else
		pr_err("record: --timestamp-filename: cannot rename %s to %s: %s", path, to,
		       strerror(errno));
	if (dfd >= 0)
		close(dfd);
	free(to);
}

int cmd_record(int argc, char **argv)
{
	struct record_prep p;
	int code = EXIT_BAD_INPUT;
	int r = record_prepare(argc, argv, &p);

	if (r > 0)
		code = 0; /* --help */
	if (r == 0 && p.o.dry_run)
		code = 0; /* as perf --dry-run: the options were parsed, nothing runs */
	else if (r == 0) {
		struct watch w;
		struct record_observer obs;
		watch_init(&w, &p.o);
		watch_observer(&w, &obs);
		code = engine_record(&p.o, &p.sinks, argc, argv, &obs);
		if (p.o.pf.timestamp_filename && p.o.switch_output == SWITCH_NONE && !p.o.overwrite &&
		    code != EXIT_BAD_INPUT)
			timestamp_rename(bind_output_path(&p.sinks));
	}
	record_prep_free(&p);
	return code;
}
