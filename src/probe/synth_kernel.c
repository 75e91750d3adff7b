/*
 * The kernel's MMAP records: the text map perf uses to undo KASLR, and one
 * map per module, as perf record 6.1 synthesizes them.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <linux/perf_event.h>
#include "format/events.h"
#include "format/record.h"
#include "probe/synth.h"
#include "probe/synth_parse.h"

static void emit_kernel_mmap(struct bytes *b, const struct ps_events *evs, uint64_t start,
			     uint64_t len, uint64_t pgoff, const char *name)
{
	/* Trailer as the body: the kernel "process" is pid -1. */
	struct ps_sample_id sid = { .pid = (uint32_t)-1, .tid = 0 };
	size_t off = record_begin(b, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);

	bytes_u32(b, (uint32_t)-1);
	bytes_u32(b, 0);
	bytes_u64(b, start);
	bytes_u64(b, len);
	bytes_u64(b, pgoff);
	record_string(b, name);
	record_end(b, off, evs, &sid);
}

/* With text_only, stop at _text and leave kt->end at 0. */
static int kallsyms_text(const char *kallsyms_path, struct kernel_text *kt, bool text_only)
{
	uint64_t text = 0, stext = 0, etext = 0;
	bool have_text = false, have_stext = false, have_etext = false;
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen(kallsyms_path, "re");

	if (!f)
		return -errno;
	/* _etext is ~120k lines in: stop there rather than read all symbols. */
	while (!have_etext && !(text_only && have_text) && getline(&line, &cap, f) > 0) {
		struct ksym_entry s;

		if (kallsyms_line_parse(line, &s) || *s.module)
			continue;
		if (!strcmp(s.name, "_text"))
			text = s.addr, have_text = true;
		else if (!strcmp(s.name, "_stext"))
			stext = s.addr, have_stext = true;
		else if (!strcmp(s.name, "_etext"))
			etext = s.addr, have_etext = true;
	}
	free(line);
	fclose(f);
	if (!have_text && !have_stext)
		return -ENOENT;
	kt->ref = have_text ? "_text" : "_stext";
	kt->start = have_text ? text : stext;
	if (kt->start == 0)
		return -EACCES; /* kptr_restrict hides addresses */
	/* Without _etext the map runs to the end, as perf's fallback does. */
	kt->end = text_only ? 0 : etext > kt->start ? etext : UINT64_MAX;
	return 0;
}

int kernel_text_read(const char *kallsyms_path, struct kernel_text *kt)
{
	return kallsyms_text(kallsyms_path, kt, false);
}

int kernel_code_len(const char *iomem_path, uint64_t *len)
{
	char line[256];
	FILE *f = fopen(iomem_path, "re");
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end;
		int name = 0;

		if (sscanf(line, " %llx-%llx : %n", &start, &end, &name) != 2 || !name)
			continue;
		if (strncmp(line + name, "Kernel code", 11) || (line[name + 11] && line[name + 11] != '\n'))
			continue;
		/* Without CAP_SYS_ADMIN the kernel shows zeros. */
		err = end > start ? 0 : -EACCES;
		*len = end > start ? end - start + 1 : 0;
		break;
	}
	fclose(f);
	return err;
}

int kernel_text_quick(const char *kallsyms_path, const char *iomem_path, struct kernel_text *kt)
{
#if defined(__x86_64__)
	uint64_t len;
	int err = kallsyms_text(kallsyms_path, kt, true);

	if (err)
		return err;
	if (!strcmp(kt->ref, "_text") && kernel_code_len(iomem_path, &len) == 0) {
		kt->end = kt->start + len;
		return 0;
	}
#else
	(void)iomem_path;
#endif
	return kernel_text_read(kallsyms_path, kt);
}

/* ---- module paths ---- */

struct kmod_path {
	char *name; /* normalized: '-' -> '_' */
	char *path;
};

struct kmod_index {
	struct kmod_path *v;
	size_t n, cap;
};

static void kmod_name_normalize(char *s)
{
	for (; *s; s++)
		if (*s == '-')
			*s = '_';
}

/* "foo-bar.ko.xz" -> "foo_bar"; NULL if not a module file. */
static char *kmod_name_of(const char *file)
{
	static const char *const ext[] = { ".ko", ".ko.gz", ".ko.xz", ".ko.zst" };
	size_t len = strlen(file);

	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		size_t el = strlen(ext[i]);
		if (len > el && !strcmp(file + len - el, ext[i])) {
			char *name = strndup(file, len - el);
			if (name)
				kmod_name_normalize(name);
			return name;
		}
	}
	return NULL;
}

static void kmod_index_add(struct kmod_index *ix, char *name, const char *path)
{
	if (ix->n == ix->cap) {
		size_t cap = ix->cap ? ix->cap * 2 : 64;
		struct kmod_path *v = realloc(ix->v, cap * sizeof(*v));
		if (!v) {
			free(name);
			return;
		}
		ix->v = v;
		ix->cap = cap;
	}
	char *p = strdup(path);
	if (!p) {
		free(name);
		return;
	}
	ix->v[ix->n++] = (struct kmod_path){ name, p };
}

/* A real directory, symlinks not followed. */
static bool dirent_is_dir(const char *path, const struct dirent *e)
{
	struct stat st;

	if (e->d_type != DT_UNKNOWN)
		return e->d_type == DT_DIR;
	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Depth-limited walk: /lib/modules/R/kernel/drivers/x/y/z.ko is depth 5. */
static void kmod_index_walk(struct kmod_index *ix, const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[4096];
		char *name;

		if (e->d_name[0] == '.')
			continue;
		/* build and source link to kernel trees, as perf knows */
		if (depth == 0 && (!strcmp(e->d_name, "build") || !strcmp(e->d_name, "source")))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= sizeof(path))
			continue;
		if (dirent_is_dir(path, e)) {
			if (depth < 8)
				kmod_index_walk(ix, path, depth + 1);
			continue;
		}
		if ((name = kmod_name_of(e->d_name)))
			kmod_index_add(ix, name, path);
	}
	closedir(d);
}

static void kmod_index_free(struct kmod_index *ix)
{
	for (size_t i = 0; i < ix->n; i++) {
		free(ix->v[i].name);
		free(ix->v[i].path);
	}
	free(ix->v);
	memset(ix, 0, sizeof(*ix));
}

static const char *kmod_index_find(const struct kmod_index *ix, const char *modname)
{
	char name[256];

	snprintf(name, sizeof(name), "%s", modname);
	kmod_name_normalize(name);
	for (size_t i = 0; i < ix->n; i++)
		if (!strcmp(ix->v[i].name, name))
			return ix->v[i].path;
	return NULL;
}

int kmodule_path_find(const char *dir, const char *name, char *out, size_t outlen)
{
	struct kmod_index ix = { 0 };
	const char *p;
	int err = -ENOENT;

	kmod_index_walk(&ix, dir, 0);
	if ((p = kmod_index_find(&ix, name)))
		err = (size_t)snprintf(out, outlen, "%s", p) < outlen ? 0 : -ENAMETOOLONG;
	kmod_index_free(&ix);
	return err;
}

static void default_modules_dir(char *buf, size_t len)
{
	struct utsname u;

	if (uname(&u) == 0)
		snprintf(buf, len, "/lib/modules/%s", u.release);
	else
		snprintf(buf, len, "/lib/modules");
}

/* One MMAP per module; name "[mod]" when no file is found, like perf. */
static void synth_modules(struct bytes *b, const struct ps_events *evs, const char *modules,
			  const char *dir)
{
	struct kmod_index ix = { 0 };
	bool indexed = false;
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen(modules, "re");

	if (!f)
		return; /* no module support */
	while (getline(&line, &cap, f) > 0) {
		struct module_entry m;
		char bracketed[300];
		const char *path;

		if (modules_line_parse(line, &m) || m.addr == 0)
			continue;
		if (!indexed) {
			kmod_index_walk(&ix, dir, 0);
			indexed = true;
		}
		path = kmod_index_find(&ix, m.name);
		if (!path) {
			snprintf(bracketed, sizeof(bracketed), "[%s]", m.name);
			path = bracketed;
		}
		emit_kernel_mmap(b, evs, m.addr, m.size, 0, path);
	}
	free(line);
	fclose(f);
	kmod_index_free(&ix);
}

static int synth_kernel_mmap_src(struct bytes *b, const struct ps_events *evs,
				 const struct synth_kernel_src *src,
				 int (*text_get)(struct kernel_text *kt))
{
	struct kernel_text kt;
	char name[64], moddir[300];
	int err;

	if (text_get)
		err = text_get(&kt);
	else
		err = kernel_text_read(src->kallsyms ? src->kallsyms : "/proc/kallsyms", &kt);
	if (err)
		return err == -EPERM ? -EACCES : err;
	snprintf(name, sizeof(name), "[kernel.kallsyms]%s", kt.ref);
	emit_kernel_mmap(b, evs, kt.start, kt.end - kt.start, kt.start, name);
	if (src->modules_dir)
		snprintf(moddir, sizeof(moddir), "%s", src->modules_dir);
	else
		default_modules_dir(moddir, sizeof(moddir));
	synth_modules(b, evs, src->modules ? src->modules : "/proc/modules", moddir);
	return b->err;
}

int synth_kernel_mmap_from(struct bytes *b, const struct ps_events *evs,
			   const struct synth_kernel_src *src)
{
	return synth_kernel_mmap_src(b, evs, src, NULL);
}

/*
 * The kernel text cannot move while we run, and reading /proc/kallsyms
 * down to _etext costs ~45 ms of kernel CPU: find it once per process, not
 * at every rotation, and from /proc/iomem where it can.
 */
static pthread_mutex_t live_text_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kernel_text live_text;
static bool live_text_valid;

static int kernel_text_live(struct kernel_text *kt)
{
	int err = 0;

	pthread_mutex_lock(&live_text_lock);
	if (!live_text_valid) {
		err = kernel_text_quick("/proc/kallsyms", "/proc/iomem", &live_text);
		live_text_valid = err == 0;
	}
	*kt = live_text;
	pthread_mutex_unlock(&live_text_lock);
	return err;
}

int synth_kernel_mmap(struct bytes *b, const struct ps_events *evs)
{
	static const struct synth_kernel_src live;
	return synth_kernel_mmap_src(b, evs, &live, kernel_text_live);
}
