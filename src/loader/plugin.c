/* Finding, checking and dlopen'ing sink plugins. */
#include <config.h>

#include <dirent.h>
#include <dlfcn.h>
#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "loader/exe_dir.h"
#include "loader/plugin.h"
#include "loader/plugin_guard.h"
#include "loader/plugin_trust.h"

#ifndef PKGLIBDIR
#define PKGLIBDIR "/usr/local/lib/perfsink"
#endif

#define NR_DIRS 3
#define MAX_KEYS 256 /* a table longer than this lost its NULL terminator */

/* The build tree's plugins/ when perfsink runs from it, else "". */
static void build_plugins_dir(char *out, size_t len)
{
	char dir[PATH_MAX];

	out[0] = '\0';
	if (exe_dir(dir, sizeof(dir)) < 0)
		return;
	/* <top>/src/perfsink -> <top>/plugins */
	snprintf(out, len, "%s/plugins", dirname(dir));
}

/* Candidate file for name in search slot i; "" when the slot is unused. */
static void candidate_path(unsigned i, const char *name, const char *extra_dir,
			   char *out, size_t len)
{
	char dir[PATH_MAX];
	int n = -1;

	if (i == 0 && extra_dir && *extra_dir) {
		n = snprintf(out, len, "%s/%s.so", extra_dir, name);
	} else if (i == 1) {
		build_plugins_dir(dir, sizeof(dir));
		if (*dir)
			n = snprintf(out, len, "%s/%s/.libs/%s.so", dir, name, name);
	} else if (i == 2) {
		n = snprintf(out, len, "%s/%s.so", PKGLIBDIR, name);
	}
	if (n < 0 || (size_t)n >= len)
		out[0] = '\0'; /* unused, or too long to exist */
}

/* Resolve name to an existing file in path; -ENOENT with the places looked in. */
static int plugin_find(const char *name, const char *extra_dir, char *path, size_t len,
		       char *err, size_t errlen)
{
	char looked[3 * PATH_MAX] = "";
	struct stat st;

	if (strchr(name, '/')) {
		snprintf(path, len, "%s", name);
		if (stat(path, &st) == 0)
			return 0;
		snprintf(err, errlen, "sink plugin '%s' not found: %s", name, strerror(errno));
		return -ENOENT;
	}
	for (unsigned i = 0; i < NR_DIRS; i++) {
		candidate_path(i, name, extra_dir, path, len);
		if (!*path)
			continue;
		if (stat(path, &st) == 0)
			return 0;
		snprintf(looked + strlen(looked), sizeof(looked) - strlen(looked), "%s%s",
			 *looked ? ", " : "", path);
	}
	snprintf(err, errlen, "sink plugin '%s' not found (looked in: %s)", name, looked);
	return -ENOENT;
}

static int key_check(const struct perfsink_key *k, const char *path, char *err, size_t errlen)
{
	if (k->type < PERFSINK_KEY_STRING || k->type > PERFSINK_KEY_PATH) {
		snprintf(err, errlen, "%s: key '%s' has unknown type %d", path, k->name, (int)k->type);
		return -EINVAL;
	}
	if (k->type == PERFSINK_KEY_ENUM && (!k->choices || !*k->choices)) {
		snprintf(err, errlen, "%s: enum key '%s' has no choices", path, k->name);
		return -EINVAL;
	}
	if (!strcmp(k->name, "plugin") || !strcmp(k->name, "on_error") || !strcmp(k->name, "rotate")) {
		snprintf(err, errlen, "%s: key '%s' is reserved for the core", path, k->name);
		return -EINVAL;
	}
	return 0;
}

/* The keys table: terminated, typed, and with "path" when -o may set it. */
static int keys_check(const struct perfsink_sink_ops *ops, const char *path,
		      char *err, size_t errlen)
{
	int has_path = 0;
	unsigned i;

	if (!ops->keys) {
		snprintf(err, errlen, "%s: sink '%s' has no keys table (an empty table is "
			 "{ { NULL } })", path, ops->name);
		return -EINVAL;
	}
	for (i = 0; i < MAX_KEYS && ops->keys[i].name; i++) {
		if (!*ops->keys[i].name) {
			snprintf(err, errlen, "%s: key %u has an empty name", path, i);
			return -EINVAL;
		}
		if (key_check(&ops->keys[i], path, err, errlen))
			return -EINVAL;
		has_path |= !strcmp(ops->keys[i].name, "path");
	}
	if (i == MAX_KEYS) {
		snprintf(err, errlen, "%s: keys table has no end (an entry with a NULL name)", path);
		return -EINVAL;
	}
	if ((ops->flags & PERFSINK_SINK_WRITES_FILES) && !has_path) {
		snprintf(err, errlen, "%s: sink writes files but has no 'path' key", path);
		return -EINVAL;
	}
	return 0;
}

/*
 * Bytes of the ops table that ABI minor `minor` defines.  1.0-1.3 end at
 * upload; 1.4 appended drain and available.  Older minors need only the
 * bytes up to their own last field, and the host must not call an op that
 * lies beyond ops->struct_size (sink_ops_has(), plugin_available).
 */
static size_t ops_size_needed(uint32_t minor)
{
	if (minor < 4)
		return offsetof(struct perfsink_sink_ops, upload) + sizeof(void (*)(void));
	return sizeof(struct perfsink_sink_ops);
}

/* What the host needs of an ops table before calling anything in it. */
static int ops_check(const struct perfsink_sink_ops *ops, const char *path,
		     char *err, size_t errlen)
{
	if (ops->abi_major != PERFSINK_ABI_MAJOR) {
		snprintf(err, errlen, "%s: plugin speaks sink ABI %u, this perfsink speaks ABI %u; "
			 "rebuild the plugin against this perfsink", path, ops->abi_major,
			 PERFSINK_ABI_MAJOR);
		return -EPROTO;
	}
	if (ops->abi_minor > PERFSINK_ABI_MINOR) {
		snprintf(err, errlen, "%s: plugin needs sink ABI %u.%u, newer than this perfsink's "
			 "%u.%u; upgrade perfsink", path, ops->abi_major, ops->abi_minor,
			 PERFSINK_ABI_MAJOR, PERFSINK_ABI_MINOR);
		return -EPROTO;
	}
	if (ops->struct_size < ops_size_needed(ops->abi_minor)) {
		snprintf(err, errlen, "%s: ops struct_size %u is smaller than the %zu bytes of "
			 "sink ABI %u.%u", path, ops->struct_size, ops_size_needed(ops->abi_minor),
			 ops->abi_major, ops->abi_minor);
		return -EPROTO;
	}
	if (!ops->name || !*ops->name) {
		snprintf(err, errlen, "%s: sink has no name", path);
		return -EINVAL;
	}
	if (!ops->open || !ops->start || !ops->write || !ops->barrier || !ops->close) {
		snprintf(err, errlen, "%s: sink '%s' lacks one of open, start, write, barrier, "
			 "close", path, ops->name);
		return -EINVAL;
	}
	return keys_check(ops, path, err, errlen);
}

/*
 * Whether the object dl was mapped from the file st describes: the mapping
 * of /proc/self/maps that holds its dynamic section names the device and
 * inode it came from.
 */
static bool mapped_from(void *dl, const struct stat *st)
{
	struct link_map *lm = NULL;
	unsigned long lo, hi, ino, dmaj, dmin;
	uintptr_t at;
	char line[512];
	bool same = false;
	FILE *maps;

	if (dlinfo(dl, RTLD_DI_LINKMAP, &lm) || !lm || !lm->l_ld)
		return false;
	at = (uintptr_t)lm->l_ld;
	maps = fopen("/proc/self/maps", "re");
	if (!maps)
		return false;
	while (fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%lx-%lx %*s %*s %lx:%lx %lu", &lo, &hi, &dmaj, &dmin, &ino) != 5 ||
		    at < lo || at >= hi)
			continue;
		same = ino == st->st_ino && dmaj == major(st->st_dev) && dmin == minor(st->st_dev);
		break;
	}
	fclose(maps);
	return same;
}

/* dlerror() names /proc/self/fd/N; name path instead. */
static void load_error(const char *path, char *err, size_t errlen)
{
	const char *why = dlerror();
	const char *fd_path = why ? strstr(why, "/proc/self/fd/") : NULL;

	if (fd_path && (fd_path = strstr(fd_path, ": ")))
		why = fd_path + 2;
	snprintf(err, errlen, "%s: cannot load plugin: %s", path,
		 why ? why : "every /proc/self/fd name tried is taken by another plugin");
}

#define FD_NAME_TRIES 16

/*
 * dlopen the file open on fd (st: its fstat) through /proc/self/fd/N, so
 * that what is loaded is what plugin_trust_open checked, whatever happens to
 * the path meanwhile.  glibc knows a loaded object by the name it was
 * opened with, so a /proc/self/fd/N of an earlier plugin whose fd has been
 * closed would answer for N: such a stale name is skipped by moving fd to
 * a higher number (*fd changes; the caller closes it).  A file not loaded
 * yet is loaded in a child first (plugin_guard.h).  0 with *dl, or
 * -EINVAL with the reason in err.
 */
static int dlopen_fd(int *fd, const struct stat *st, const char *path, void **dl, char *err,
		     size_t errlen)
{
	char fd_path[64];

	for (int i = 0; i < FD_NAME_TRIES; i++) {
		snprintf(fd_path, sizeof(fd_path), "/proc/self/fd/%d", *fd);
		*dl = dlopen(fd_path, RTLD_LAZY | RTLD_NOLOAD);
		if (!*dl) {
			if (plugin_guard_probe(fd_path, path, err, errlen) < 0)
				return -EINVAL;
			/*
			 * NODELETE: a plugin's libraries (libcurl, OpenSSL, libzstd) keep
			 * thread-local state and exit handlers; unmapping them before
			 * exit gains nothing and left LeakSanitizer reading freed DTLS.
			 */
			*dl = dlopen(fd_path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
			break;
		}
		if (mapped_from(*dl, st))
			return 0; /* this very file, loaded already: one more reference */
		dlclose(*dl);
		*dl = NULL;
		int higher = fcntl(*fd, F_DUPFD_CLOEXEC, *fd + 1);
		if (higher < 0)
			break;
		close(*fd);
		*fd = higher;
	}
	if (!*dl) {
		load_error(path, err, errlen);
		return -EINVAL;
	}
	return 0;
}

/*
 * dlopen the file plugin_trust_open checked (through its fd) and fetch its
 * ops; *dl is set on success.  The plugin's own code (constructors, entry)
 * runs under plugin_guard.h.
 */
static int plugin_open_file(const char *path, void **dl, const struct perfsink_sink_ops **ops,
			    char *err, size_t errlen)
{
	perfsink_entry_fn entry = NULL;
	struct stat st;
	int fd, ret;

	fd = plugin_trust_open(path, err, errlen);
	if (fd < 0)
		return fd == -EPERM || fd == -ENOENT ? fd : -EINVAL;
	if (fstat(fd, &st)) {
		snprintf(err, errlen, "%s: cannot stat: %s", path, strerror(errno));
		close(fd);
		return -EINVAL;
	}
	plugin_guard_begin(path);
	ret = dlopen_fd(&fd, &st, path, dl, err, errlen);
	close(fd);
	if (!ret)
		*(void **)&entry = dlsym(*dl, PERFSINK_ENTRY_SYMBOL);
	*ops = entry ? entry() : NULL;
	plugin_guard_end();
	if (ret)
		return ret;
	if (!entry) {
		snprintf(err, errlen, "%s: not a perfsink sink (no symbol %s)", path,
			 PERFSINK_ENTRY_SYMBOL);
		ret = -EINVAL;
	} else if (!*ops) {
		snprintf(err, errlen, "%s: %s() returned NULL", path, PERFSINK_ENTRY_SYMBOL);
		ret = -EINVAL;
	} else {
		ret = ops_check(*ops, path, err, errlen);
	}
	if (ret) {
		dlclose(*dl);
		*dl = NULL;
	}
	return ret;
}

static int plugin_load_file(const char *name, const char *extra_dir, struct plugin **out,
			    char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct plugin *p;
	int ret;

	if (!name || !*name) {
		snprintf(err, errlen, "empty sink plugin name");
		return -EINVAL;
	}
	ret = plugin_find(name, extra_dir, path, sizeof(path), err, errlen);
	if (ret)
		return ret;
	p = calloc(1, sizeof(*p));
	if (!p || !(p->name = strdup(name)) || !(p->path = strdup(path))) {
		plugin_unload(p);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = plugin_open_file(path, &p->dl, &p->ops, err, errlen);
	if (ret) {
		plugin_unload(p);
		return ret;
	}
	*out = p;
	return 0;
}

/* Whether the loaded plugin p says it can work here (ops->available, ABI 1.4). */
static int plugin_available(const struct plugin *p, char *why, size_t n)
{
	const struct perfsink_sink_ops *ops = p->ops;
	if (ops->struct_size < offsetof(struct perfsink_sink_ops, available) + sizeof(ops->available) ||
	    !ops->available)
		return 0;
	why[0] = '\0';
	int r = ops->available(why, n);
	return r < 0 ? r : 0;
}

/*
 * Aliases: a name that stands for the first of its sinks that is
 * installed and says it can work on this machine.  `file` is the default
 * file sink: io_uring where the kernel lets us use it, POSIX AIO
 * everywhere else.  A sink that is installed but refused (a plugin
 * others may write) or broken stops the choice with its error: falling
 * back past it would hide what is wrong with the installation.
 */
static const struct alias {
	const char *name;
	const char *sinks[3];
} aliases[] = {
	{ "file", { "uring_file", "aio_file", NULL } },
};

static const struct alias *alias_find(const char *name)
{
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(aliases[i].name, name))
			return &aliases[i];
	return NULL;
}

/* The note the summary shows: which sink the alias chose, and why not the first. */
static int alias_note(struct plugin *p, const struct alias *a, const char *skipped)
{
	char note[512];
	if (*skipped)
		snprintf(note, sizeof(note), "%s for plugin = %s; %s", p->ops->name, a->name, skipped);
	else
		snprintf(note, sizeof(note), "%s for plugin = %s", p->ops->name, a->name);
	p->note = strdup(note);
	return p->note ? 0 : -ENOMEM;
}

static int plugin_load_alias(const struct alias *a, const char *extra_dir, struct plugin **out,
			     char *err, size_t errlen)
{
	char skipped[256] = "", why[256];
	int ret = -ENOENT;
	for (const char *const *s = a->sinks; *s; s++) {
		struct plugin *p;
		ret = plugin_load_file(*s, extra_dir, &p, err, errlen);
		if (ret == -ENOENT) {
			if (!*skipped)
				snprintf(skipped, sizeof(skipped), "%s: not installed", *s);
			continue;
		}
		if (ret < 0)
			return ret;
		int av = plugin_available(p, why, sizeof(why));
		if (av < 0) {
			if (!*skipped)
				snprintf(skipped, sizeof(skipped), "%s: %s", *s, why);
			plugin_unload(p);
			ret = av;
			continue;
		}
		if ((ret = alias_note(p, a, skipped)) < 0) {
			plugin_unload(p);
			snprintf(err, errlen, "out of memory");
			return ret;
		}
		*out = p;
		return 0;
	}
	if (*skipped)
		snprintf(err, errlen, "plugin = %s: no sink of it works here (%s)", a->name, skipped);
	return ret;
}

int plugin_load(const char *name, const char *extra_dir, struct plugin **out,
		char *err, size_t errlen)
{
	const struct alias *a = name ? alias_find(name) : NULL;
	if (a)
		return plugin_load_alias(a, extra_dir, out, err, errlen);
	return plugin_load_file(name, extra_dir, out, err, errlen);
}

void plugin_unload(struct plugin *p)
{
	if (!p)
		return;
	free(p->note);
	if (p->dl)
		dlclose(p->dl);
	free(p->name);
	free(p->path);
	free(p);
}

static int names_add(char ***names, unsigned *n, const char *name, size_t len)
{
	char **v;

	for (unsigned i = 0; i < *n; i++)
		if (strlen((*names)[i]) == len && !strncmp((*names)[i], name, len))
			return 0;
	v = realloc(*names, (*n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	*names = v;
	v[*n] = strndup(name, len);
	if (!v[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* Adds every NAME.so of dir; with build_tree, every NAME/.libs/NAME.so. */
static int dir_scan(const char *dir, int build_tree, char ***names, unsigned *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX];
	struct stat st;
	int ret = 0;

	if (!d)
		return 0;
	while (!ret && (e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (e->d_name[0] == '.')
			continue;
		if (build_tree) {
			snprintf(path, sizeof(path), "%s/%s/.libs/%s.so", dir, e->d_name, e->d_name);
			if (stat(path, &st) == 0)
				ret = names_add(names, n, e->d_name, len);
		} else if (len > 3 && !strcmp(e->d_name + len - 3, ".so")) {
			ret = names_add(names, n, e->d_name, len - 3);
		}
	}
	closedir(d);
	return ret;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int plugin_list(const char *extra_dir, char ***names, unsigned *n)
{
	char build[PATH_MAX];
	int ret = 0;

	*names = NULL;
	*n = 0;
	build_plugins_dir(build, sizeof(build));
	if (extra_dir && *extra_dir)
		ret = dir_scan(extra_dir, 0, names, n);
	if (!ret && *build)
		ret = dir_scan(build, 1, names, n);
	if (!ret)
		ret = dir_scan(PKGLIBDIR, 0, names, n);
	if (ret) {
		for (unsigned i = 0; i < *n; i++)
			free((*names)[i]);
		free(*names);
		*names = NULL;
		*n = 0;
		return ret;
	}
	qsort(*names, *n, sizeof(**names), name_cmp);
	return 0;
}
