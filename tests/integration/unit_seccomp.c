/*
 * unit_seccomp: run a command under the seccomp filters a systemd unit's
 * [Service] lines put on it, built the way systemd 252 builds them
 * (src/core/execute.c, src/shared/seccomp-util.c), so a test can run the
 * shipped unit's restrictions without systemd as PID 1:
 *
 *   unit_seccomp [--allow FILE [--errno NAME]] [--families LIST] [--mdwe] -- CMD [ARGS...]
 *   unit_seccomp --unknown FILE   the names in FILE this libseccomp does not know
 *
 *   --allow FILE     SystemCallFilter= as an allow list: the system call
 *                    names in FILE (one a line, the unit's groups already
 *                    expanded, @default included as systemd adds it); a
 *                    name this libseccomp does not know is skipped, as
 *                    systemd skips it.  Any other call kills the process
 *                    (SIGSYS), or, with --errno (SystemCallErrorNumber=),
 *                    fails with that errno.  Calls of another architecture
 *                    are killed (SystemCallArchitectures=native).
 *   --families LIST  RestrictAddressFamilies=: socket() of a family not in
 *                    LIST (AF_UNIX,AF_INET,AF_INET6,AF_NETLINK,AF_PACKET)
 *                    fails with EAFNOSUPPORT.
 *   --mdwe           MemoryDenyWriteExecute=yes: a writable and executable
 *                    mapping, mprotect to executable, shmat SHM_EXEC fail
 *                    with EPERM.
 *
 * Each restriction is its own filter, as systemd loads them; the kernel
 * applies the strictest answer.  Exit 2 on a usage error, 126 when a filter
 * cannot be built or loaded, 127 when CMD cannot be run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_FAMILY 64 /* above AF_MAX: every family number the kernel has */

static int fail(const char *what, int rc)
{
	fprintf(stderr, "unit_seccomp: %s: %s\n", what, strerror(rc < 0 ? -rc : rc));
	return 126;
}

/* An errno by its name (EPERM), or -1. */
static int errno_by_name(const char *name)
{
	for (int e = 1; e < 256; e++) {
		const char *n = strerrorname_np(e);

		if (n && !strcmp(n, name))
			return e;
	}
	return -1;
}

static int load(scmp_filter_ctx ctx, const char *what)
{
	int rc = seccomp_load(ctx);

	seccomp_release(ctx);
	return rc < 0 ? fail(what, rc) : 0;
}

/* The allow list: every name in path, the rest killed or failed with err. */
static int allow_list(const char *path, int err)
{
	scmp_filter_ctx ctx = seccomp_init(err > 0 ? SCMP_ACT_ERRNO(err) : SCMP_ACT_KILL_PROCESS);
	char line[128];
	FILE *f = fopen(path, "re");
	int rc = 0;

	if (!ctx || !f) {
		if (f)
			fclose(f);
		return fail(path, ctx ? errno : ENOMEM);
	}
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		line[strcspn(line, " \t\r\n")] = '\0';
		if (!line[0])
			continue;
		int nr = seccomp_syscall_resolve_name(line);

		if (nr == __NR_SCMP_ERROR)
			continue;
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
		if (rc == -EACCES || rc == -EOPNOTSUPP) /* a pseudo call of another arch */
			rc = 0;
	}
	fclose(f);
	if (rc < 0) {
		seccomp_release(ctx);
		return fail("seccomp_rule_add", rc);
	}
	return load(ctx, "the allow list");
}

static int family_by_name(const char *name)
{
	static const struct { const char *name; int af; } t[] = {
		{ "AF_UNIX", AF_UNIX }, { "AF_INET", AF_INET }, { "AF_INET6", AF_INET6 },
		{ "AF_NETLINK", AF_NETLINK }, { "AF_PACKET", AF_PACKET },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(t[i].name, name))
			return t[i].af;
	return -1;
}

/* socket() of a family not in list (comma separated) fails with EAFNOSUPPORT. */
static int families(char *list)
{
	int allowed[MAX_FAMILY] = { 0 };
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int rc = 0;

	if (!ctx)
		return fail("seccomp_init", ENOMEM);
	for (char *s = strtok(list, ","); s; s = strtok(NULL, ",")) {
		int af = family_by_name(s);

		if (af < 0) {
			fprintf(stderr, "unit_seccomp: unknown address family %s\n", s);
			seccomp_release(ctx);
			return 2;
		}
		allowed[af] = 1;
	}
	for (int af = 0; af < MAX_FAMILY && rc == 0; af++)
		if (!allowed[af])
			rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1,
					      SCMP_A0(SCMP_CMP_EQ, af));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1,
				      SCMP_A0(SCMP_CMP_GE, MAX_FAMILY));
	if (rc < 0) {
		seccomp_release(ctx);
		return fail("seccomp_rule_add socket", rc);
	}
	return load(ctx, "the address families");
}

/* MemoryDenyWriteExecute=yes, as systemd's seccomp_memory_deny_write_execute. */
static int mdwe(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int rc;

	if (!ctx)
		return fail("seccomp_init", ENOMEM);
	rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mmap), 1,
			      SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC | PROT_WRITE, PROT_EXEC | PROT_WRITE));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mprotect), 1,
				      SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(pkey_mprotect), 1,
				      SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(shmat), 1,
				      SCMP_A2(SCMP_CMP_MASKED_EQ, SHM_EXEC, SHM_EXEC));
	if (rc < 0) {
		seccomp_release(ctx);
		return fail("seccomp_rule_add (MemoryDenyWriteExecute)", rc);
	}
	return load(ctx, "MemoryDenyWriteExecute");
}

static int unknown(const char *path)
{
	char line[128];
	FILE *f = fopen(path, "re");

	if (!f)
		return fail(path, errno);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, " \t\r\n")] = '\0';
		if (line[0] && seccomp_syscall_resolve_name(line) == __NR_SCMP_ERROR)
			puts(line);
	}
	fclose(f);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: unit_seccomp [--allow FILE [--errno NAME]] [--families LIST] [--mdwe] "
			"-- CMD [ARGS...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *allow = NULL;
	char *fams = NULL;
	int err = 0, deny_wx = 0, i, rc;

	if (argc == 3 && !strcmp(argv[1], "--unknown"))
		return unknown(argv[2]);

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--allow") && i + 1 < argc) {
			allow = argv[++i];
		} else if (!strcmp(argv[i], "--errno") && i + 1 < argc) {
			if ((err = errno_by_name(argv[++i])) < 0) {
				fprintf(stderr, "unit_seccomp: unknown errno %s\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--families") && i + 1 < argc) {
			fams = argv[++i];
		} else if (!strcmp(argv[i], "--mdwe")) {
			deny_wx = 1;
		} else {
			return usage();
		}
	}
	if (i + 1 >= argc)
		return usage();
	/* systemd sets it for these filters; it also lets us load them unprivileged. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return fail("PR_SET_NO_NEW_PRIVS", errno);
	if (fams && (rc = families(fams)))
		return rc;
	if (deny_wx && (rc = mdwe()))
		return rc;
	/* Last: the allow list has to let the loads above through, not this one. */
	if (allow && (rc = allow_list(allow, err)))
		return rc;
	execvp(argv[i + 1], argv + i + 1);
	fprintf(stderr, "unit_seccomp: %s: %s\n", argv[i + 1], strerror(errno));
	return 127;
}
