/*
 * Pure parsers for the /proc and /sys text that synth reads.  No I/O, no
 * allocation: each takes one line (or one small file's text) and fills a
 * struct whose strings point into the caller's buffer.  Thread-safe.
 */
#ifndef PS_SYNTH_PARSE_H
#define PS_SYNTH_PARSE_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* One line of /proc/PID/maps. */
struct maps_entry {
	uint64_t start, end, pgoff, ino;
	uint32_t maj, min;
	uint32_t prot;    /* PROT_READ | PROT_WRITE | PROT_EXEC */
	uint32_t flags;   /* MAP_PRIVATE or MAP_SHARED */
	const char *path; /* into the line; "" for an anonymous map; kept verbatim
			   * (spaces, " (deleted)", "[vdso]") as perf does */
};

/*
 * Parse "start-end perms pgoff maj:min ino [path]".  Writes a NUL over the
 * trailing newline of line.  Returns 0, or -EINVAL for a malformed line.
 */
int maps_line_parse(char *line, struct maps_entry *e);

/* One line of /proc/kallsyms: "addr type name[\t[module]]". */
struct ksym_entry {
	uint64_t addr;
	char type;
	const char *name;   /* into the line, NUL-terminated by the parser */
	const char *module; /* "" for the core kernel */
};

/* Returns 0 or -EINVAL.  Modifies line. */
int kallsyms_line_parse(char *line, struct ksym_entry *s);

/* One line of /proc/modules: "name size refcnt deps state addr [taints]". */
struct module_entry {
	const char *name;
	uint64_t size;
	uint64_t addr; /* 0 when kptr_restrict hides it */
};

/* Returns 0 or -EINVAL.  Modifies line. */
int modules_line_parse(char *line, struct module_entry *m);

/*
 * One line of /proc/self/mounts: "dev mountpoint type options 0 0".  Octal
 * escapes in the mount point (\040 for a space) are decoded in place.
 * Returns 0 or -EINVAL.  Modifies line.
 */
int mounts_line_parse(char *line, const char **mnt, const char **type);

/* What synth needs from /proc/PID/task/TID/status. */
struct task_status {
	char name[16];      /* "Name:" cut to 15 bytes, like a COMM record */
	pid_t tgid, ppid;
	bool kernel_thread; /* no Vm* lines: perf's test for a kernel thread */
};

/* Parse the text of a status file.  Returns 0, or -EINVAL without Name/Tgid. */
int task_status_parse(const char *text, struct task_status *st);

#endif
