/*
 * NUMA nodes, CPU caches and memory blocks of the header, read from sysfs
 * the way perf 6.1 reads them (tools/perf/util/cputopo.c numa_topology__new,
 * header.c build_caches and build_mem_topology), so the features carry the
 * same values in the same order.
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "probe/machine_priv.h"
#include "probe/sysfs_line.h"

#define SYS_NODE "/sys/devices/system/node"
#define SYS_CPU "/sys/devices/system/cpu"
#define MAX_CACHE_INDEX 4 /* perf 6.1 looks at index0..index3 only */

/* Calls fn(n, arg) for each number of a sysfs list ("0-3,8"); stops on non-zero. */
static int for_each_in_list(const char *list, int (*fn)(unsigned n, void *arg), void *arg)
{
	for (const char *p = list; *p;) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;
		if (end == p)
			return 0;
		p = end;
		if (*p == '-') {
			hi = strtoul(p + 1, &end, 10);
			p = end;
		}
		for (unsigned long n = lo; n <= hi; n++) {
			int r = fn((unsigned)n, arg);
			if (r)
				return r;
		}
		while (*p == ',')
			p++;
	}
	return 0;
}

/* ------------------------------------------------------------ NUMA */

static void node_meminfo(struct ps_numa_node *n)
{
	char path[128], line[256], field[32];
	uint64_t v;
	snprintf(path, sizeof(path), SYS_NODE "/node%u/meminfo", n->node);
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	/* "Node 0 MemTotal:       5597000 kB" */
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %*d %31s %" SCNu64, field, &v) != 2)
			continue;
		if (!strcmp(field, "MemTotal:"))
			n->mem_total_kb = v;
		else if (!strcmp(field, "MemFree:"))
			n->mem_free_kb = v;
	}
	fclose(f);
}

static int numa_node_add(unsigned node, void *arg)
{
	struct ps_machine *m = arg;
	struct ps_numa_node *v = realloc(m->numa, (m->nr_numa + 1) * sizeof(*v));
	char path[128], cpus[1024] = "";
	if (!v)
		return -ENOMEM;
	m->numa = v;
	struct ps_numa_node *n = &v[m->nr_numa];
	*n = (struct ps_numa_node){ .node = node };
	node_meminfo(n);
	snprintf(path, sizeof(path), SYS_NODE "/node%u/cpulist", node);
	machine_read_line(path, cpus, sizeof(cpus));
	if (!(n->cpus = strdup(cpus)))
		return -ENOMEM;
	m->nr_numa++;
	return 0;
}

int machine_numa_read(struct ps_machine *m)
{
	char online[1024];
	if (!machine_read_line(SYS_NODE "/online", online, sizeof(online)))
		return 0;
	return for_each_in_list(online, numa_node_add, m);
}

/* ------------------------------------------------------------ caches */

static bool read_u32(const char *dir, const char *file, uint32_t *out)
{
	char path[256], buf[32];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (!machine_read_line(path, buf, sizeof(buf)))
		return false;
	*out = (uint32_t)strtoul(buf, NULL, 10);
	return true;
}

/* A sysfs string with surrounding blanks trimmed (perf's strim); NULL if unreadable. */
static char *read_str(const char *dir, const char *file)
{
	char path[256], buf[1024];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (!machine_read_line(path, buf, sizeof(buf)))
		return NULL;
	char *s = buf, *e = buf + strlen(buf);
	while (*s == ' ' || *s == '\t')
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	*e = '\0';
	return strdup(s);
}

static void cache_clear(struct ps_cache *c)
{
	free(c->type);
	free(c->size);
	free(c->map);
	memset(c, 0, sizeof(*c));
}

/* 1: read, 0: not there or incomplete (skipped), -ENOMEM. */
static int cache_read(struct ps_cache *c, const char *dir)
{
	memset(c, 0, sizeof(*c));
	if (!read_u32(dir, "level", &c->level) || !read_u32(dir, "coherency_line_size", &c->line_size) ||
	    !read_u32(dir, "number_of_sets", &c->sets) ||
	    !read_u32(dir, "ways_of_associativity", &c->ways))
		return 0;
	c->type = read_str(dir, "type");
	c->size = read_str(dir, "size");
	c->map = read_str(dir, "shared_cpu_list");
	if (c->type && c->size && c->map)
		return 1;
	cache_clear(c);
	return 0;
}

static bool cache_same(const struct ps_cache *a, const struct ps_cache *b)
{
	return a->level == b->level && a->line_size == b->line_size && a->sets == b->sets &&
	       a->ways == b->ways && !strcmp(a->type, b->type) && !strcmp(a->size, b->size) &&
	       !strcmp(a->map, b->map);
}

/* Keeps c (taking its strings) unless an equal cache is already listed. */
static int cache_keep(struct ps_machine *m, struct ps_cache *c)
{
	for (uint32_t i = 0; i < m->nr_caches; i++)
		if (cache_same(&m->caches[i], c)) {
			cache_clear(c);
			return 0;
		}
	struct ps_cache *v = realloc(m->caches, (m->nr_caches + 1) * sizeof(*v));
	if (!v) {
		cache_clear(c);
		return -ENOMEM;
	}
	m->caches = v;
	v[m->nr_caches++] = *c;
	return 0;
}

/* Stable by level, as perf's qsort (glibc's merge sort) leaves them. */
static void caches_sort(struct ps_machine *m)
{
	for (uint32_t i = 1; i < m->nr_caches; i++) {
		struct ps_cache c = m->caches[i];
		uint32_t j = i;
		for (; j > 0 && m->caches[j - 1].level > c.level; j--)
			m->caches[j] = m->caches[j - 1];
		m->caches[j] = c;
	}
}

static int cpu_caches(unsigned cpu, void *arg)
{
	char dir[128];
	struct stat st;
	for (int idx = 0; idx < MAX_CACHE_INDEX; idx++) {
		snprintf(dir, sizeof(dir), SYS_CPU "/cpu%u/cache/index%d", cpu, idx);
		if (stat(dir, &st))
			break;
		struct ps_cache c;
		int r = cache_read(&c, dir);
		if (r < 0)
			return r;
		if (r && (r = cache_keep(arg, &c)) < 0)
			return r;
	}
	return 0;
}

int machine_caches_read(struct ps_machine *m)
{
	char possible[1024];
	if (!machine_read_line(SYS_CPU "/possible", possible, sizeof(possible)))
		snprintf(possible, sizeof(possible), "0-%u", m->nr_cpus_avail - 1);
	int r = for_each_in_list(possible, cpu_caches, m);
	caches_sort(m);
	return r;
}

/* ------------------------------------------------------------ memory blocks */

/* Highest memoryB entry of dir, or -1. */
static long max_block(DIR *d)
{
	struct dirent *de;
	long max = -1;
	unsigned b;
	while ((de = readdir(d)))
		if (sscanf(de->d_name, "memory%u", &b) == 1 && (long)b > max)
			max = b;
	return max;
}

static int mem_node_read(struct ps_mem_node *n, unsigned node)
{
	char path[128];
	snprintf(path, sizeof(path), SYS_NODE "/node%u", node);
	DIR *d = opendir(path);
	*n = (struct ps_mem_node){ .node = node };
	if (!d)
		return 0;
	long max = max_block(d);
	n->nr_bits = (uint64_t)(max + 1);
	n->bits = calloc((n->nr_bits + 63) / 64 + 1, sizeof(uint64_t));
	if (!n->bits) {
		closedir(d);
		return -ENOMEM;
	}
	rewinddir(d);
	struct dirent *de;
	unsigned b;
	while ((de = readdir(d)))
		if (sscanf(de->d_name, "memory%u", &b) == 1)
			n->bits[b / 64] |= 1ULL << (b % 64);
	closedir(d);
	return 0;
}

static int mem_node_cmp(const void *a, const void *b)
{
	const struct ps_mem_node *x = a, *y = b;
	return x->node < y->node ? -1 : x->node > y->node;
}

int machine_mem_read(struct ps_machine *m)
{
	char buf[64];
	if (!machine_read_line("/sys/devices/system/memory/block_size_bytes", buf, sizeof(buf)))
		return 0;
	uint64_t bsize = strtoull(buf, NULL, 16);
	DIR *d = opendir(SYS_NODE);
	if (!d || !bsize) {
		if (d)
			closedir(d);
		return 0;
	}
	struct dirent *de;
	unsigned node;
	int r = 0;
	while (!r && (de = readdir(d))) {
		if (sscanf(de->d_name, "node%u", &node) != 1)
			continue;
		struct ps_mem_node *v = realloc(m->mem_nodes, (m->nr_mem_nodes + 1) * sizeof(*v));
		if (!v) {
			r = -ENOMEM;
			break;
		}
		m->mem_nodes = v;
		r = mem_node_read(&v[m->nr_mem_nodes], node);
		m->nr_mem_nodes++;
	}
	closedir(d);
	qsort(m->mem_nodes, m->nr_mem_nodes, sizeof(*m->mem_nodes), mem_node_cmp);
	m->mem_block_size = bsize;
	return r;
}

void machine_topo_free(struct ps_machine *m)
{
	for (uint32_t i = 0; i < m->nr_numa; i++)
		free(m->numa[i].cpus);
	free(m->numa);
	for (uint32_t i = 0; i < m->nr_caches; i++)
		cache_clear(&m->caches[i]);
	free(m->caches);
	for (uint32_t i = 0; i < m->nr_mem_nodes; i++)
		free(m->mem_nodes[i].bits);
	free(m->mem_nodes);
}
