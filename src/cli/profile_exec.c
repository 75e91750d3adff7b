/*
 * perfsink pprof / flamegraph run in a program of their own,
 * perfsink-profile: the reading, unwinding and symbol libraries they need
 * (libdw, libelf, protobuf-c, zlib and theirs) are then not loaded into
 * every `perfsink record`, which would pay their pages and relocations
 * for nothing.  The program next to this one's file is used (the build
 * tree), else the installed one (PKGLIBEXECDIR).  As root, the file run
 * is the file checked: opened through plugin_trust_open (owner, modes,
 * every directory above it) and run from that descriptor.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "base/log.h"
#include "engine/engine.h"
#include "loader/exe_dir.h"
#include "loader/plugin_trust.h"

#define PROFILE_PROG "perfsink-profile"

/* The program beside perfsink's own file, into buf; 0 or -1. */
static int beside_self(char *buf, size_t n)
{
	char dir[PATH_MAX];

	if (exe_dir(dir, sizeof(dir)) < 0)
		return -1;
	return (size_t)snprintf(buf, n, "%s/%s", dir, PROFILE_PROG) < n ? 0 : -1;
}

/* An fd on the trusted program, or -1 with one line said. */
static int profile_open(void)
{
	char path[PATH_MAX], err[PATH_MAX + 128];
	int fd = -ENOENT;

	if (beside_self(path, sizeof(path)) == 0)
		fd = plugin_trust_open(path, err, sizeof(err));
	if (fd == -ENOENT) {
		snprintf(path, sizeof(path), "%s/%s", PKGLIBEXECDIR, PROFILE_PROG);
		fd = plugin_trust_open(path, err, sizeof(err));
	}
	if (fd < 0)
		pr_err("cannot run %s: %s", PROFILE_PROG, err);
	return fd;
}

int cmd_profile_exec(int argc, char **argv)
{
	extern char **environ;
	char *args[argc + 2];
	int fd = profile_open();

	if (fd < 0)
		return EXIT_RECORD_FAILED;
	/* perfsink-profile VERB ARGS...: argv[0] is the verb. */
	args[0] = (char *)"perfsink";
	memcpy(args + 1, argv, (size_t)argc * sizeof(*argv));
	args[argc + 1] = NULL;
	fexecve(fd, args, environ);
	pr_err("cannot run %s: %s", PROFILE_PROG, strerror(errno));
	close(fd);
	return EXIT_RECORD_FAILED;
}
