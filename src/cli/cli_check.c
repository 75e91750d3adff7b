/*
 * perfsink check [--config FILE] [record options] [-- command]: everything
 * `record` resolves and validates before it records (options, config
 * sections, plugins and their keys, each sink's own checks in open(): url
 * syntax, paths writable, spool directory; the events, opened once on the
 * target and closed; the command; the --summary-json / --stats-file
 * directories), then the resolved configuration on stdout (check_ini.h;
 * nothing with -q).  Exit 0, or 2 with the first problem in one line.  Nothing is recorded and no output
 * file is created (the http sink's open() makes its spool directory, as
 * record would).
 */
#include <errno.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/log.h"
#include "cli/check_ini.h"
#include "cli/cli.h"
#include "engine/engine.h"
#include "engine/evlist.h"
#include "engine/sinkset.h"

static const char check_usage[] =
	"usage: perfsink check [--config FILE] [record options] [-- command [args]]\n"
	"\n"
	"Validate what `perfsink record` with the same arguments would use, without\n"
	"recording: options, config sections, plugins, keys, each sink's own checks\n"
	"(url syntax, paths writable, spool), the events (opened once on the target),\n"
	"the command.  Prints the resolved configuration; exit 0 when all is valid,\n"
	"2 with the first problem otherwise.  See perfsink(1), CHECK.\n";

/* Open every event on the target (this process for a command) and close it. */
static int check_events(const struct record_opts *o)
{
	struct ps_evlist evl = { 0 };
	char err[512] = "";
	int r = evlist_parse(&evl, o, err, sizeof(err));

	if (r == 0)
		r = evlist_set_targets(&evl, o, o->argv ? getpid() : 0, err, sizeof(err));
	if (r == 0)
		r = evlist_open(&evl, err, sizeof(err));
	if (r < 0)
		pr_err("%s", err[0] ? err : strerror(-r));
	evlist_close(&evl);
	evlist_free(&evl);
	return r;
}

/* The command runs as record would run it: found in PATH and executable. */
static int check_command(char *const *argv)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (!argv || !argv[0])
		return 0;
	if (strchr(argv[0], '/')) {
		if (access(argv[0], X_OK) == 0)
			return 0;
		pr_err("check: cannot run '%s': %s", argv[0], strerror(errno));
		return -errno;
	}
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? p : ".", argv[0]);
		if (access(buf, X_OK) == 0)
			return 0;
		p += n + (p[n] == ':');
	}
	pr_err("check: cannot run '%s': not found in PATH", argv[0]);
	return -ENOENT;
}

static bool wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	return false;
}

int cmd_check(int argc, char **argv)
{
	struct record_prep p;
	int r;

	if (wants_help(argc, argv)) {
		fputs(check_usage, stdout);
		return 0;
	}
	r = record_prepare(argc, argv, &p);
	if (r == 0)
		r = sinkset_check(&p.sinks); /* open() and close() each, as record opens them */
	if (r == 0)
		r = check_events(&p.o);
	if (r == 0)
		r = check_command(p.o.argv);
	/* -q: nothing on success (the unit's ExecStartPre). */
	if (r == 0 && log_verbosity() >= 0) {
		check_ini_print(&p.o, &p.sinks);
		fprintf(stderr, "perfsink check: valid: %u event%s into %u sink%s\n", p.o.nr_events,
			p.o.nr_events == 1 ? "" : "s", p.sinks.nr_sinks, p.sinks.nr_sinks == 1 ? "" : "s");
	}
	record_prep_free(&p);
	return r == 0 ? 0 : EXIT_BAD_INPUT;
}
