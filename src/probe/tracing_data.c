/*
 * perf's TRACING_DATA blob, as perf 6.1 writes it (trace-event-info.c):
 *
 *   "\x17\x08Dtracing" "0.6\0" u8 endian u8 sizeof(long) u32 page_size
 *   "header_page\0"  u64 size, bytes      (events/header_page)
 *   "header_event\0" u64 size, bytes      (events/header_event)
 *   u32 nr ftrace formats, each u64 size + bytes (only recorded ftrace:* events)
 *   u32 nr systems, each: name\0, u32 nr events, each u64 size + format file
 *   u32 kallsyms size (perf 6.1 writes 0), u32 printk_formats size + bytes,
 *   u64 saved_cmdlines size + bytes
 *
 * tracefs files report no size in stat(), so each file is read to EOF and its
 * size patched in afterwards.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>
#include "probe/tracing_data.h"

#define TRACING_DATA_VERSION "0.6"

static const char *tracefs_find(void)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[64];

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(path, sizeof(path), "%s/events", roots[i]);
		if (access(path, R_OK | X_OK) == 0)
			return roots[i];
	}
	return NULL;
}

const char *tracefs_root(void)
{
	const char *root = tracefs_find();

	/* Like perf (tracefs__mount): a fresh boot may not have tracefs mounted
	 * yet; root can mount it on its usual mount point. */
	if (!root && mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0)
		root = tracefs_find();
	return root;
}

/* A system or event name must stay one path component. */
static bool name_ok(const char *s)
{
	return s && *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

/* root/events/sys/name/file into path; -EINVAL, -ENOENT or -ENAMETOOLONG. */
static int event_path(char *path, size_t len, const char *sys, const char *name,
		      const char *file)
{
	const char *root = tracefs_root();

	if (!name_ok(sys) || !name_ok(name))
		return -EINVAL;
	if (!root)
		return -ENOENT;
	int n = snprintf(path, len, "%s/events/%s/%s/%s", root, sys, name, file);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Append the whole content of path; returns bytes appended or -errno. */
static int64_t file_append(struct bytes *b, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int64_t total = 0;
	for (;;) {
		uint8_t *dst = bytes_reserve(b, 4096);
		if (!dst) {
			close(fd);
			return b->err;
		}
		ssize_t r = read(fd, dst, 4096);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int err = -errno;
			close(fd);
			return err;
		}
		if (r == 0)
			break;
		b->len += (size_t)r;
		total += r;
	}
	close(fd);
	return total;
}

/* Size field of size_len bytes (4 or 8, little-endian host) then the file. */
static int file_append_sized(struct bytes *b, const char *path, size_t size_len)
{
	size_t at = b->len;
	bytes_zero(b, size_len);
	int64_t n = file_append(b, path);
	if (n < 0)
		return (int)n;
	if (size_len == 4) {
		uint32_t v = (uint32_t)n;
		bytes_put_at(b, at, &v, sizeof(v));
	} else {
		uint64_t v = (uint64_t)n;
		bytes_put_at(b, at, &v, sizeof(v));
	}
	return 0;
}

int64_t tracefs_event_id(const char *sys, const char *name)
{
	char path[512], text[32];
	int err = event_path(path, sizeof(path), sys, name, "id");
	if (err)
		return err;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t r = read(fd, text, sizeof(text) - 1);
	int rerr = errno;
	close(fd);
	if (r <= 0)
		return r < 0 ? -rerr : -EINVAL;
	text[r] = '\0';
	char *end;
	errno = 0;
	long long id = strtoll(text, &end, 10);
	if (errno || end == text || id < 0)
		return -EINVAL;
	return id;
}

/* Whether system sys of tracefs has an event with this id; its name to *name. */
static int system_find_id(const char *root, const char *sys, uint64_t id, char **name)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/events/%s", root, sys);
	DIR *d = opendir(path);
	if (!d)
		return -ENOENT;
	int r = -ENOENT;
	struct dirent *de;
	while (r == -ENOENT && (de = readdir(d))) {
		if (de->d_name[0] == '.' || tracefs_event_id(sys, de->d_name) != (int64_t)id)
			continue;
		*name = strdup(de->d_name);
		r = *name ? 0 : -ENOMEM;
	}
	closedir(d);
	return r;
}

int tracefs_event_by_id(uint64_t id, char **sys, char **name)
{
	const char *root = tracefs_root();
	char path[256];
	if (!root)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/events", root);
	DIR *d = opendir(path);
	if (!d)
		return -errno;
	int r = -ENOENT;
	struct dirent *de;
	while (r == -ENOENT && (de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type == DT_REG)
			continue;
		r = system_find_id(root, de->d_name, id, name);
		if (!r && !(*sys = strdup(de->d_name))) {
			free(*name);
			r = -ENOMEM;
		}
	}
	closedir(d);
	return r;
}

static void add_preamble(struct bytes *b)
{
	static const uint8_t magic[10] = { 0x17, 0x08, 'D', 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	bytes_add(b, magic, sizeof(magic));
	bytes_add(b, TRACING_DATA_VERSION, sizeof(TRACING_DATA_VERSION));
	const uint16_t probe = 1;
	uint8_t big_endian = *(const uint8_t *)&probe == 0;
	uint8_t long_size = sizeof(long);
	bytes_add(b, &big_endian, 1);
	bytes_add(b, &long_size, 1);
	bytes_u32(b, (uint32_t)sysconf(_SC_PAGESIZE));
}

static int add_header_files(struct bytes *b, const char *root)
{
	static const char *const names[] = { "header_page", "header_event" };
	char path[256];

	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/events/%s", root, names[i]);
		bytes_add(b, names[i], strlen(names[i]) + 1);
		int err = file_append_sized(b, path, 8);
		if (err)
			return err;
	}
	return 0;
}

/* Whether sys[i]/name[i] already appeared at an index below i. */
static bool seen_before(const char *const *sys, const char *const *name, unsigned i)
{
	for (unsigned j = 0; j < i; j++)
		if (!strcmp(sys[j], sys[i]) && !strcmp(name[j], name[i]))
			return true;
	return false;
}

static bool system_seen_before(const char *const *sys, unsigned i)
{
	for (unsigned j = 0; j < i; j++)
		if (!strcmp(sys[j], sys[i]))
			return true;
	return false;
}

/* u32 count, then u64 size + format of each distinct event of system sysname. */
static int add_system_formats(struct bytes *b, const char *sysname, const char *const *sys,
			      const char *const *name, unsigned n)
{
	char path[512];
	size_t count_at = b->len;
	uint32_t count = 0;

	bytes_u32(b, 0);
	for (unsigned i = 0; i < n; i++) {
		if (strcmp(sys[i], sysname) || seen_before(sys, name, i))
			continue;
		int err = event_path(path, sizeof(path), sys[i], name[i], "format");
		if (!err)
			err = file_append_sized(b, path, 8);
		if (err)
			return err;
		count++;
	}
	bytes_put_at(b, count_at, &count, sizeof(count));
	return 0;
}

static int add_event_systems(struct bytes *b, const char *const *sys, const char *const *name,
			     unsigned n)
{
	size_t count_at = b->len;
	uint32_t count = 0;

	bytes_u32(b, 0);
	for (unsigned i = 0; i < n; i++) {
		if (!strcmp(sys[i], "ftrace") || system_seen_before(sys, i))
			continue;
		bytes_add(b, sys[i], strlen(sys[i]) + 1);
		int err = add_system_formats(b, sys[i], sys, name, n);
		if (err)
			return err;
		count++;
	}
	bytes_put_at(b, count_at, &count, sizeof(count));
	return 0;
}

/* printk_formats and saved_cmdlines; an unreadable file is recorded empty, as perf does. */
static void add_optional_file(struct bytes *b, const char *root, const char *file,
			      size_t size_len)
{
	char path[256];
	size_t at = b->len;

	snprintf(path, sizeof(path), "%s/%s", root, file);
	if (file_append_sized(b, path, size_len) < 0 && !b->err) {
		b->len = at;
		bytes_zero(b, size_len);
	}
}

int tracing_data_build(const char *const *sys, const char *const *name, unsigned n,
		       struct bytes *out)
{
	const char *root = tracefs_root();
	if (!root)
		return -ENOENT;
	for (unsigned i = 0; i < n; i++)
		if (!name_ok(sys[i]) || !name_ok(name[i]))
			return -EINVAL;

	size_t start = out->len;
	add_preamble(out);
	int err = add_header_files(out, root);
	if (!err)
		err = add_system_formats(out, "ftrace", sys, name, n);
	if (!err)
		err = add_event_systems(out, sys, name, n);
	if (!err) {
		bytes_u32(out, 0); /* kallsyms: perf 6.1 no longer stores it */
		add_optional_file(out, root, "printk_formats", 4);
		add_optional_file(out, root, "saved_cmdlines", 8);
		err = out->err;
	}
	if (err && !out->err)
		out->len = start;
	return err;
}
