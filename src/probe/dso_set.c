#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <perfsink/kit.h>
#include "probe/buildid.h"
#include "probe/dso_hits.h"
#include "probe/dso_pending.h"
#include "probe/dso_set.h"
#include "probe/map_file.h"
#include "probe/proc_creds.h"

/* perf's NAME_ALIGN for file names in build-id records. */
#define NAME_ALIGN 64
#define KERNEL_NAME "[kernel.kallsyms]"
#define VDSO_NAME "[vdso]"
/* perf (tools/perf/util/event.h): the record carries the id's size. */
#define PERF_RECORD_MISC_BUILD_ID_SIZE (1 << 15)

/* Tries at opening a DSO whose process could not be shown to read it. */
#define TRIES_MAX 8

/* What an MMAP2 record says of the mapping (pid and range only for MMAP). */
struct map_file {
	uint32_t pid, maj, min;
	uint64_t start, len, ino, gen;
};

struct dso_entry {
	struct dso_entry *next;
	bool kernel;
	uint32_t maj, min;
	uint64_t ino;
	/*
	 * 0: not read yet, 1: id valid, <0: no id (errno); refused (not
	 * listed, not cached): -ESTALE the file at the name is not the one
	 * mapped, -EACCES its process could not read it, -EPERM its process
	 * was gone and the file is not one anyone may read.
	 */
	int state;
	unsigned tries;    /* opens tried (live) */
	bool hit;          /* a sample fell in it (dso_set_sample) */
	uint8_t id[BUILDID_MAX];
	size_t len;
	char name[];
};

void dso_set_init(struct dso_set *s)
{
	memset(s, 0, sizeof(*s));
}

void dso_set_free(struct dso_set *s)
{
	dso_hits_free(s->hits);
	dso_pending_free(s->pending);
	for (unsigned b = 0; b < s->nr_buckets; b++) {
		struct dso_entry *d = s->buckets[b], *nx;
		for (; d; d = nx) {
			nx = d->next;
			free(d);
		}
	}
	free(s->buckets);
	dso_set_init(s);
}

static unsigned hash_name(const char *s)
{
	unsigned h = 2166136261u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static int grow(struct dso_set *s)
{
	unsigned nb = s->nr_buckets ? s->nr_buckets * 2 : 256;
	struct dso_entry **b = calloc(nb, sizeof(*b));
	if (!b)
		return -ENOMEM;
	for (unsigned i = 0; i < s->nr_buckets; i++) {
		struct dso_entry *d = s->buckets[i], *nx;
		for (; d; d = nx) {
			nx = d->next;
			unsigned h = hash_name(d->name) & (nb - 1);
			d->next = b[h];
			b[h] = d;
		}
	}
	free(s->buckets);
	s->buckets = b;
	s->nr_buckets = nb;
	return 0;
}

/* Files perf can match by build-id; not anonymous or special maps. */
static bool worth_an_id(const char *name)
{
	if (name[0] == '[')
		return !strncmp(name, KERNEL_NAME, strlen(KERNEL_NAME)) || !strcmp(name, VDSO_NAME);
	return name[0] == '/' && strncmp(name, "//anon", 6) && strncmp(name, "/memfd:", 7) &&
	       !strstr(name, " (deleted)");
}

static uint64_t mntns_of(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

/* Whether live pid is in another mount namespace than ours (a container). */
static bool other_mntns(struct dso_set *s, uint32_t pid)
{
	char path[64];

	if (!s->self_mntns)
		s->self_mntns = mntns_of("/proc/self/ns/mnt");
	snprintf(path, sizeof(path), "/proc/%u/ns/mnt", pid);
	uint64_t ns = mntns_of(path);
	return ns && ns != s->self_mntns;
}

static bool refused(int state)
{
	return state == -ESTALE || state == -EACCES || state == -EPERM;
}

/*
 * Whether the process could read the file open as fd: as the kernel
 * answers for its credentials, or, when it is gone already, when anyone
 * could.  -EACCES / -EPERM when not.
 */
static int process_reads(bool have_creds, const struct proc_creds *cr, int fd)
{
	if (have_creds)
		return proc_creds_can_read(cr, fd) == 1 ? 0 : -EACCES;
	return proc_creds_anyone_reads(fd) ? 0 : -EPERM;
}

/*
 * A file a live recording's process mapped: opened through its mapping
 * (map_file.h), kept only if that process could read it itself, and its
 * build-id read from that fd.  Returns the fd, with ref describing the
 * file exactly (to open it again); -1 with d->state saying why not.
 */
static int open_checked(struct dso_set *s, struct dso_entry *d, const struct map_file *mf,
			struct map_ref *ref)
{
	bool live_pid = mf->pid && mf->pid != (uint32_t)-1;
	struct proc_creds cr;
	/* Before the open: the process may end meanwhile, its file stays open. */
	bool have_creds = live_pid && proc_creds_read((pid_t)mf->pid, &cr) == 0;
	struct stat st;
	int fd, r;

	*ref = (struct map_ref){ .name = d->name, .pid = mf->pid, .start = mf->start, .len = mf->len,
		.maj = mf->maj, .min = mf->min, .ino = mf->ino, .gen = mf->gen, .need_identity = true,
		.other_ns = live_pid && other_mntns(s, mf->pid) };
	d->tries++;
	fd = map_file_open(ref);
	r = fd < 0 ? fd : process_reads(have_creds, &cr, fd);
	if (r == 0 && fstat(fd, &st) < 0)
		r = -errno;
	if (r < 0) {
		if (fd >= 0)
			close(fd);
		d->state = r;
		return -1;
	}
	ref->exact = true;
	ref->dev = st.st_dev;
	ref->ino_exact = st.st_ino;
	r = buildid_read_fd(fd, d->id, &d->len);
	d->state = r == 0 ? 1 : (r < 0 ? r : -EIO);
	return fd;
}

/* A refused DSO mapped again by another process: it may be one that can read it. */
static bool worth_retry(const struct dso_set *s, const struct dso_entry *d)
{
	return s->live && (d->state == -EACCES || d->state == -EPERM) && d->tries < TRIES_MAX;
}

/* d, new or retried: opened and checked when live, then handed to on_new unless refused. */
static void take(struct dso_set *s, struct dso_entry *d, const struct map_file *mf)
{
	struct map_ref ref;
	struct dso_seen seen = { .name = d->name, .fd = -1, .id = d->id };
	bool file = !d->kernel && d->name[0] == '/';

	if (s->live && file) {
		seen.fd = open_checked(s, d, mf, &ref);
		/* Never by its name later: a file not opened now is not read. */
		if (seen.fd < 0)
			return;
		seen.ref = &ref;
	} else if (s->live && d->name[0] == '/') {
		/* A kernel module: a path perfsink found in root's own /lib/modules. */
		seen.fd = open(d->name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		int r = seen.fd < 0 ? -errno : buildid_read_fd(seen.fd, d->id, &d->len);
		d->state = r == 0 ? 1 : (r < 0 ? r : -EIO);
	}
	/* Live, a file comes with its fd; "[module]" and the like have none. */
	if (s->live && seen.fd < 0 && strcmp(d->name, KERNEL_NAME) && strcmp(d->name, VDSO_NAME))
		return;
	seen.id_len = d->state == 1 ? d->len : 0;
	if (s->on_new)
		s->on_new(s->on_new_arg, &seen);
	else if (seen.fd >= 0)
		close(seen.fd);
}

static bool same_dso(const struct dso_entry *d, const char *name, const struct map_file *mf)
{
	return d->ino == mf->ino && d->maj == mf->maj && d->min == mf->min && !strcmp(d->name, name);
}

static struct dso_entry *add(struct dso_set *s, const char *name, bool kernel,
			     const struct map_file *mf)
{
	if (!strncmp(name, KERNEL_NAME, strlen(KERNEL_NAME)))
		name = KERNEL_NAME; /* "[kernel.kallsyms]_text" */
	if ((s->n + 1) * 2 > s->nr_buckets && grow(s) < 0)
		return NULL;
	unsigned h = hash_name(name) & (s->nr_buckets - 1);
	for (struct dso_entry *d = s->buckets[h]; d; d = d->next)
		if (same_dso(d, name, mf)) {
			if (worth_retry(s, d))
				take(s, d, mf);
			return d;
		}
	size_t n = strlen(name) + 1;
	struct dso_entry *d = calloc(1, sizeof(*d) + n);
	if (!d)
		return NULL;
	memcpy(d->name, name, n);
	d->kernel = kernel;
	d->maj = mf->maj;
	d->min = mf->min;
	d->ino = mf->ino;
	d->next = s->buckets[h];
	s->buckets[h] = d;
	s->n++;
	take(s, d, mf);
	return d;
}

/* pid and range, and for MMAP2 without an inline build-id (misc bit 14) dev, inode, generation. */
static struct map_file map_file_of(const struct perfsink_kit_rec *r)
{
	struct map_file mf = { 0 };
	memcpy(&mf.pid, r->p + 8, sizeof(mf.pid));
	memcpy(&mf.start, r->p + 16, sizeof(mf.start));
	memcpy(&mf.len, r->p + 24, sizeof(mf.len));
	if (r->type == PERF_RECORD_MMAP2 && !(r->misc & (1 << 14))) {
		memcpy(&mf.maj, r->p + 40, sizeof(mf.maj));
		memcpy(&mf.min, r->p + 44, sizeof(mf.min));
		memcpy(&mf.ino, r->p + 48, sizeof(mf.ino));
		memcpy(&mf.gen, r->p + 56, sizeof(mf.gen));
	}
	return mf;
}

static void map_hits(struct dso_set *s, const struct perfsink_kit_rec *r, const struct map_file *mf,
		     struct dso_entry *d);

/* The file an MMAP or MMAP2 names, when it may be a DSO. */
void dso_set_record(struct dso_set *s, const struct perfsink_kit_rec *r)
{
	/* Offsets of the file name: MMAP after pid,tid,start,len,pgoff; MMAP2
	 * after those plus maj,min,ino,ino_generation,prot,flags. */
	size_t at = r->type == PERF_RECORD_MMAP ? 40 : r->type == PERF_RECORD_MMAP2 ? 72 : 0;
	/* Data maps (mmap_data): an ELF's read-only head carries the same
	 * name as its text, anything else is no DSO and opening it (a
	 * device, a big file) is a cost or a hazard; perf gives build-ids
	 * only to DSOs that samples hit, which are text. */
	if (r->misc & PERF_RECORD_MISC_MMAP_DATA)
		at = 0;
	if (!at || at >= r->size)
		return;
	const char *name = (const char *)r->p + at;
	if (memchr(name, '\0', r->size - at) && worth_an_id(name)) {
		unsigned cpumode = r->misc & PERF_RECORD_MISC_CPUMODE_MASK;
		struct map_file mf = map_file_of(r);
		struct dso_entry *d = add(s, name, cpumode == PERF_RECORD_MISC_KERNEL, &mf);
		if (d && s->hits && strcmp(d->name, KERNEL_NAME))
			map_hits(s, r, &mf, d);
	}
}

size_t dso_set_scan(struct dso_set *s, const uint8_t *p, size_t len)
{
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec r;
	size_t n = 0;
	perfsink_kit_rec_iter_init(&it, p, len);
	for (; perfsink_kit_rec_next(&it, &r); n++)
		dso_set_record(s, &r);
	return n;
}

unsigned dso_set_count(const struct dso_set *s)
{
	return s->n;
}

/* A file recorded earlier (recover): by its name, no link followed, when it is the file mapped. */
static int read_file_id(struct dso_entry *d)
{
	struct map_ref ref = { .name = d->name, .maj = d->maj, .min = d->min, .ino = d->ino };
	int fd = d->kernel ? open(d->name, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : map_file_open(&ref);
	int r;

	if (fd < 0)
		return d->kernel ? -errno : fd;
	r = buildid_read_fd(fd, d->id, &d->len);
	close(fd);
	return r;
}

static void read_id(struct dso_entry *d)
{
	int r = !strcmp(d->name, KERNEL_NAME) ? buildid_read_kernel(d->id, &d->len)
		: !strcmp(d->name, VDSO_NAME) ? buildid_read_vdso(d->id, &d->len)
					      : read_file_id(d);
	d->state = r == 0 ? 1 : (r < 0 ? r : -EIO);
}

/* struct perf_record_header_build_id (perf 6.1), then the padded name. */
static void put_record(struct bytes *b, const struct dso_entry *d, uint8_t hit)
{
	size_t nlen = strlen(d->name) + 1;
	size_t padded = (nlen + NAME_ALIGN - 1) & ~(size_t)(NAME_ALIGN - 1);
	struct perf_event_header h = {
		.type = 0,
		.misc = (d->kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER) |
			PERF_RECORD_MISC_BUILD_ID_SIZE,
		.size = (uint16_t)(sizeof(h) + 4 + 24 + padded),
	};
	bytes_add(b, &h, sizeof(h));
	int32_t pid = -1; /* the host, as perf writes it */
	bytes_add(b, &pid, sizeof(pid));
	uint8_t id[24] = { 0 };
	memcpy(id, d->id, d->len);
	id[20] = (uint8_t)d->len;
	id[DSO_HIT_BYTE] = hit;
	id[DSO_HITS_RULE_BYTE] = hit ? DSO_HITS_CHAIN : 0;
	bytes_add(b, id, sizeof(id));
	bytes_add(b, d->name, nlen);
	bytes_zero(b, padded - nlen);
}

/* Whether samples fell in d (DSO_HIT_BYTE's value; 0 when not tracked). */
static uint8_t dso_hit(const struct dso_set *s, const struct dso_entry *d)
{
	bool hit = d->kernel && !strcmp(d->name, KERNEL_NAME) ? s->kernel_hit : d->hit;

	if (!s->hits)
		return 0;
	return hit ? DSO_SAMPLED : DSO_MAPPED_ONLY;
}

static void mark_hit(struct dso_entry *d)
{
	d->hit = true;
}

int dso_set_build_ids(struct dso_set *s, struct bytes *out)
{
	bytes_free(out);
	if (s->pending)
		dso_pending_settle(s->pending, mark_hit);
	for (unsigned i = 0; i < s->nr_buckets; i++) {
		for (struct dso_entry *d = s->buckets[i]; d; d = d->next) {
			if (d->state == 0)
				read_id(d);
			if (d->state == 1 && strlen(d->name) < 4096)
				put_record(out, d, dso_hit(s, d));
		}
	}
	return out->err;
}

unsigned dso_set_refused(const struct dso_set *s, char *names, size_t n)
{
	unsigned count = 0;
	size_t k = 0;

	if (n)
		names[0] = '\0';
	for (unsigned i = 0; i < s->nr_buckets; i++)
		for (const struct dso_entry *d = s->buckets[i]; d; d = d->next) {
			if (d->kernel || !refused(d->state))
				continue;
			if (count++ < DSO_REFUSED_NAMED && k < n)
				k += (size_t)snprintf(names + k, n - k, "%s%s (%s)", k ? ", " : "", d->name,
						      dso_refusal_why(d->state));
		}
	if (count > DSO_REFUSED_NAMED && k < n)
		snprintf(names + k, n - k, " and %u more", count - DSO_REFUSED_NAMED);
	return count;
}

const char *dso_refusal_why(int state)
{
	return state == -ESTALE ? "not the file its process mapped"
	       : state == -EACCES ? "its process could not read it"
				  : "its process was gone and it is not a file anyone may read";
}

/* ------------------------------------------------------ sample hits */

int dso_set_track_hits(struct dso_set *s)
{
	if (!s->hits && !(s->hits = dso_hits_new()))
		return -ENOMEM;
	if (!s->pending && !(s->pending = dso_pending_new())) {
		dso_hits_free(s->hits);
		s->hits = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* The time in a non-sample record's sample_id trailer; 0 when it has none. */
static uint64_t record_time(const struct dso_set *s, const uint8_t *rec, uint16_t size)
{
	uint64_t t = 0;

	if (s->id_time_back && s->id_time_back + 8 <= size)
		memcpy(&t, rec + size - s->id_time_back, sizeof(t));
	return t;
}

/* An MMAP's range, as a waiting hit's lookup. */
struct range_find {
	uint64_t start, end;
	struct dso_entry *d;
};

static struct dso_entry *in_range(void *arg, uint64_t ip)
{
	const struct range_find *f = arg;

	return ip >= f->start && ip < f->end ? f->d : NULL;
}

/* pid mapped d: its range for later samples, and for the hits waiting for it. */
static void map_hits(struct dso_set *s, const struct perfsink_kit_rec *r, const struct map_file *mf,
		     struct dso_entry *d)
{
	int32_t pid = (int32_t)mf->pid;
	struct range_find f = { mf->start, mf->start + mf->len < mf->start ? UINT64_MAX : mf->start + mf->len, d };
	uint64_t t = record_time(s, r->p, r->size);

	dso_hits_map(s->hits, pid, mf->start, mf->len, d, t);
	if (dso_pending_has(s->pending, pid))
		dso_pending_offer(s->pending, pid, t, in_range, &f);
}

bool dso_set_sample(struct dso_set *s, int32_t pid, uint64_t ip, unsigned cpumode)
{
	struct dso_entry *d;

	if (!s->hits)
		return false;
	if (cpumode == PERF_RECORD_MISC_KERNEL) {
		if ((d = dso_hits_find(s->hits, -1, ip)))
			d->hit = true; /* a module */
		else
			s->kernel_hit = true; /* not in a module: the kernel's own text */
		return false;
	}
	if (cpumode != PERF_RECORD_MISC_USER)
		return false; /* a guest's or the hypervisor's ip */
	if (!(d = dso_hits_find(s->hits, pid, ip)))
		return true;
	d->hit = true;
	return false;
}

void dso_set_sample_wait(struct dso_set *s, int32_t pid, uint64_t ip, uint64_t time)
{
	(void)dso_pending_add(s->pending, pid, ip, time); /* counted when full */
}

/* A FORK's child: what it has now, from its parent. */
struct child_find {
	struct dso_hits *hits;
	int32_t pid;
};

static struct dso_entry *in_child(void *arg, uint64_t ip)
{
	const struct child_find *f = arg;

	return dso_hits_find(f->hits, f->pid, ip);
}

void dso_set_task(struct dso_set *s, const uint8_t *rec, uint32_t type, uint16_t misc, uint16_t size)
{
	int32_t pid, ppid, tid;
	uint64_t t = 0;

	if (!s->hits || size < 24)
		return;
	/* FORK and EXIT: pid, ppid, tid, ptid, time; COMM: pid, tid. */
	memcpy(&pid, rec + 8, 4);
	memcpy(&ppid, rec + 12, 4);
	memcpy(&tid, rec + 16, 4);
	if (type == PERF_RECORD_FORK) {
		struct child_find f = { s->hits, pid };

		if (size >= 32)
			memcpy(&t, rec + 24, sizeof(t));
		dso_hits_fork(s->hits, pid, ppid, t);
		if (pid != ppid && dso_pending_has(s->pending, pid))
			dso_pending_offer(s->pending, pid, t, in_child, &f);
	} else if (type == PERF_RECORD_EXIT && pid == tid) { /* the leader: the process is gone */
		dso_hits_drop(s->hits, pid, 0);
	} else if (type == PERF_RECORD_COMM && (misc & PERF_RECORD_MISC_COMM_EXEC)) {
		dso_hits_drop(s->hits, pid, 1);
		dso_pending_exec(s->pending, pid, record_time(s, rec, size));
	}
}

void dso_set_pass_end(struct dso_set *s)
{
	if (!s->hits)
		return;
	dso_pending_pass_end(s->pending, mark_hit);
	dso_hits_pass_end(s->hits);
}

void dso_set_pending_stats(const struct dso_set *s, struct dso_pending_stats *out)
{
	if (s->pending)
		dso_pending_stats(s->pending, out);
	else
		memset(out, 0, sizeof(*out));
}

unsigned dso_set_hit_count(const struct dso_set *s)
{
	unsigned n = 0;

	for (unsigned i = 0; i < s->nr_buckets; i++)
		for (const struct dso_entry *d = s->buckets[i]; d; d = d->next)
			n += dso_hit(s, d) != DSO_MAPPED_ONLY && d->state == 1;
	return n;
}
