/*
 * recover_fuzz: a seeded mutator of real recordings for `perfsink recover`
 * (issue 27, item 16).  Mutant i of seed S is a pure function of (S, i):
 * one of the corpus files (tests/fuzz/recover/) with one to three of: bit
 * flips, bytes set to edge values, a truncation, a header length or offset
 * field, an attr field, a feature index entry, a count or length inside a
 * feature section, a record's header.size or type, a u64 inside a record,
 * a chunk of the data section deleted or doubled.
 *
 * Each mutant is repaired by recover_file (the code of `perfsink recover
 * -o`) in a child process with a deadline: a crash, a sanitizer report or a
 * hang fails the run and leaves the mutant as crash-I.data.  The outputs
 * of the first KEEP mutants recover called complete (and changed from
 * their seed) and of the first KEEP it repaired are left as ok-I.data for
 * the caller to read with perf.
 *
 *   recover_fuzz CORPUS_DIR WORK_DIR SEED SECONDS KEEP [MAX]
 *   recover_fuzz --one CORPUS_DIR SEED I OUT   (write mutant I, for a report)
 *
 * Prints the seed, the counts, and one line per kept or failed mutant;
 * exit 0, 1 on a crash or hang, 2 on bad usage.
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "recover/recover.h"

#define MAX_SEEDS 32
#define DEADLINE_S 30 /* one recover of a few KB; a loaded sanitizer build stays far below */
enum { CHILD_COMPLETE = 10, CHILD_REPAIRED = 11, CHILD_REFUSED = 12 };

struct buf {
	uint8_t *p;
	size_t len;
	char name[256];
};

static struct buf seeds[MAX_SEEDS];
static unsigned nr_seeds;

/* splitmix64: mutant i's own stream from (seed, i). */
static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t below(uint64_t *s, uint64_t n)
{
	return n ? rnd(s) % n : 0;
}

/* Whether n bytes at off lie in b (off may be anything a mutant holds). */
static bool fits(const struct buf *b, size_t off, size_t n)
{
	return off <= b->len && n <= b->len - off;
}

static uint64_t get64(const struct buf *b, size_t off)
{
	uint64_t v = 0;
	if (fits(b, off, 8))
		memcpy(&v, b->p + off, 8);
	return v;
}

static void put64(struct buf *b, size_t off, uint64_t v)
{
	if (fits(b, off, 8))
		memcpy(b->p + off, &v, 8);
}

static void put32(struct buf *b, size_t off, uint32_t v)
{
	if (fits(b, off, 4))
		memcpy(b->p + off, &v, 4);
}

static void put16(struct buf *b, size_t off, uint16_t v)
{
	if (fits(b, off, 2))
		memcpy(b->p + off, &v, 2);
}

/* A value near the old one, or one that length fields get wrong. */
static uint64_t edge(uint64_t *s, uint64_t old, uint64_t file_len)
{
	static const uint64_t fixed[] = { 0, 1, 7, 8, 16, 64, 128, 4096, 65535, 0x7fffffff,
					  0xffffffff, UINT64_MAX, 1ULL << 32, 1ULL << 63 };
	switch (below(s, 4)) {
	case 0:
		return fixed[below(s, sizeof(fixed) / sizeof(fixed[0]))];
	case 1:
		return old + (below(s, 2) ? 1 : -1) * (uint64_t)(1u << below(s, 13));
	case 2:
		return old ^ (1ULL << below(s, 64));
	default:
		return below(s, 2) ? file_len + below(s, 64) : old * 2;
	}
}

/* Offsets of the records in the data section, as far as they chain. */
static size_t records(const struct buf *b, size_t *at, size_t max)
{
	uint64_t off = get64(b, 40), end = off + get64(b, 48);
	size_t n = 0;

	if (end > b->len || end < off)
		end = b->len;
	while (n < max && off < end && end - off >= 8) {
		uint16_t size;
		memcpy(&size, b->p + off + 6, 2);
		if (size < 8)
			break;
		at[n++] = (size_t)off;
		off += size;
	}
	return n;
}

/* The feature index: where it is and how many entries. */
static size_t feat_index(const struct buf *b, size_t *nr)
{
	uint64_t idx = get64(b, 40) + get64(b, 48);
	*nr = 0;
	for (size_t i = 72; i < 104 && i < b->len; i++)
		*nr += (size_t)__builtin_popcount(b->p[i]);
	return idx < b->len ? (size_t)idx : 0;
}

static void m_bits(struct buf *b, uint64_t *s)
{
	for (uint64_t k = 1 + below(s, 8); k--;)
		b->p[below(s, b->len)] ^= (uint8_t)(1u << below(s, 8));
}

static void m_bytes(struct buf *b, uint64_t *s)
{
	static const uint8_t v[] = { 0, 0xff, 0x7f, 0x80, 0x01 };
	size_t at = below(s, b->len);
	for (uint64_t k = 1 + below(s, 4); k-- && at < b->len; at++)
		b->p[at] = v[below(s, sizeof(v))];
}

static void m_truncate(struct buf *b, uint64_t *s)
{
	size_t at[512], n = records(b, at, 512);
	size_t near;
	if (n && below(s, 2)) /* near a record boundary: what a kill leaves */
		b->len = (near = at[below(s, n)] + below(s, 24)) < b->len ? near : b->len;
	else
		b->len = below(s, b->len);
	if (b->len < 16)
		b->len = 16;
}

static void m_header(struct buf *b, uint64_t *s)
{
	static const size_t fields[] = { 8, 16, 24, 32, 40, 48, 72, 80 };
	size_t off = fields[below(s, sizeof(fields) / sizeof(fields[0]))];
	put64(b, off, edge(s, get64(b, off), b->len));
}

static void m_attr(struct buf *b, uint64_t *s)
{
	size_t base = (size_t)get64(b, 24), asz = (size_t)get64(b, 16);
	static const size_t fields[] = { 0, 4, 8, 16, 24, 32, 40, 64, 72 };
	size_t f = fields[below(s, sizeof(fields) / sizeof(fields[0]))];

	if (!asz || base >= b->len)
		return m_bits(b, s);
	base += asz * below(s, (get64(b, 32) / asz) ? get64(b, 32) / asz : 1);
	if (f == 4)
		put32(b, base + 4, (uint32_t)edge(s, 128, b->len));
	else if (f == 72)
		put64(b, base + asz - 16 + 8 * below(s, 2), edge(s, get64(b, base + asz - 16), b->len));
	else
		put64(b, base + f, edge(s, get64(b, base + f), b->len));
}

static void m_feat_index(struct buf *b, uint64_t *s)
{
	size_t nr, idx = feat_index(b, &nr);
	if (!idx || !nr)
		return m_header(b, s);
	size_t at = idx + 16 * below(s, nr) + 8 * below(s, 2);
	put64(b, at, edge(s, get64(b, at), b->len));
}

static void m_feat_body(struct buf *b, uint64_t *s)
{
	size_t nr, idx = feat_index(b, &nr);
	if (!idx || !nr)
		return m_bits(b, s);
	size_t e = idx + 16 * below(s, nr);
	uint64_t off = get64(b, e), size = get64(b, e + 8);
	if (off >= b->len || size < 4)
		return m_bits(b, s);
	/* the counts and lengths sit at the front and between strings */
	size_t at = (size_t)off + (below(s, 2) ? below(s, 16) : below(s, size)) / 4 * 4;
	put32(b, at, (uint32_t)edge(s, 0, size));
}

static void m_record(struct buf *b, uint64_t *s)
{
	size_t at[512], n = records(b, at, 512);
	if (!n)
		return m_bits(b, s);
	size_t r = at[below(s, n)];
	uint16_t size;
	memcpy(&size, b->p + r + 6, 2);
	switch (below(s, 3)) {
	case 0:
		put16(b, r + 6, (uint16_t)edge(s, size, size));
		break;
	case 1:
		put32(b, r, (uint32_t)(below(s, 2) ? below(s, 90) : edge(s, 9, 0)));
		break;
	default:
		put64(b, r + 8 + 8 * below(s, size > 8 ? (size - 8u) / 8u : 1),
		      edge(s, get64(b, r + 8), size));
	}
}

static void m_splice(struct buf *b, uint64_t *s)
{
	size_t at[512], n = records(b, at, 512), from, len;
	if (n < 2)
		return m_truncate(b, s);
	from = at[below(s, n)];
	len = below(s, 256);
	if (from + len > b->len)
		len = b->len - from;
	if (below(s, 2)) { /* delete */
		memmove(b->p + from, b->p + from + len, b->len - from - len);
		b->len -= len;
	} else { /* double; the buffer has room for it */
		memmove(b->p + from + len, b->p + from, b->len - from);
		b->len += len;
	}
}

static void (*const ops[])(struct buf *, uint64_t *) = {
	m_bits, m_bytes, m_truncate, m_header, m_attr, m_feat_index, m_feat_body, m_record,
	m_record, m_splice,
};

/* Mutant i of seed: a copy of one corpus file, mutated. */
static struct buf mutant(uint64_t seed, uint64_t i, unsigned *from)
{
	uint64_t s = seed ^ (i * 0xd1342543de82ef95ULL);
	struct buf b;

	*from = (unsigned)below(&s, nr_seeds);
	b.len = seeds[*from].len;
	b.p = malloc(b.len + 3 * 256); /* room for three splices that double a chunk */
	memcpy(b.p, seeds[*from].p, b.len);
	for (uint64_t k = 1 + below(&s, 3); k-- && b.len;)
		ops[below(&s, sizeof(ops) / sizeof(ops[0]))](&b, &s);
	return b;
}

static int corpus_load(const char *dir)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;
		FILE *f;
		size_t len = strlen(ents[i]->d_name);
		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		if (nr_seeds < MAX_SEEDS && len > 5 && !strcmp(ents[i]->d_name + len - 5, ".data") &&
		    !stat(path, &st) && (f = fopen(path, "rb"))) {
			struct buf *b = &seeds[nr_seeds];
			b->len = (size_t)st.st_size;
			b->p = malloc(b->len);
			if (b->p && fread(b->p, 1, b->len, f) == b->len) {
				snprintf(b->name, sizeof(b->name), "%s", ents[i]->d_name);
				nr_seeds++;
			}
			fclose(f);
		}
		free(ents[i]);
	}
	free(n >= 0 ? ents : NULL);
	return nr_seeds ? 0 : -1;
}

static int write_file(const char *path, const struct buf *b)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	bool ok = fd >= 0 && write(fd, b->p, b->len) == (ssize_t)b->len;
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/* recover_file on in, into out, in a child: CHILD_* or how it died (-signal, or its exit status). */
static int recover_child(const char *in, const char *out)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		struct recover_report rep;
		char err[512];
		alarm(DEADLINE_S);
		int r = recover_file(in, out, &rep, err, sizeof(err));
		exit(r < 0 ? CHILD_REFUSED : rep.complete ? CHILD_COMPLETE : CHILD_REPAIRED);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -SIGKILL;
	return WIFSIGNALED(st) ? -WTERMSIG(st) : WEXITSTATUS(st);
}

static bool same_as_seed(const struct buf *b, unsigned from)
{
	return b->len == seeds[from].len && !memcmp(b->p, seeds[from].p, b->len);
}

struct counts {
	unsigned long run, complete, repaired, refused, failed, kept_complete, kept_repaired;
};

/* One mutant: 0, or -1 when recover crashed or hung on it. */
static int one(const char *work, uint64_t seed, uint64_t i, unsigned keep, struct counts *c)
{
	char in[4096], out[4096];
	unsigned from;
	struct buf b = mutant(seed, i, &from);
	int r;

	snprintf(in, sizeof(in), "%s/m.data", work);
	snprintf(out, sizeof(out), "%s/ok-%llu.data", work, (unsigned long long)i);
	if (write_file(in, &b) < 0) {
		free(b.p);
		return -1;
	}
	r = recover_child(in, out);
	c->run++;
	if (r == CHILD_COMPLETE && !same_as_seed(&b, from) && c->kept_complete < keep) {
		c->kept_complete++;
		printf("keep %llu complete (%s)\n", (unsigned long long)i, seeds[from].name);
	} else if (r == CHILD_REPAIRED && c->kept_repaired < keep) {
		c->kept_repaired++;
		printf("keep %llu repaired (%s)\n", (unsigned long long)i, seeds[from].name);
	} else {
		unlink(out);
	}
	c->complete += r == CHILD_COMPLETE;
	c->repaired += r == CHILD_REPAIRED;
	c->refused += r == CHILD_REFUSED;
	if (r < CHILD_COMPLETE || r > CHILD_REFUSED) {
		snprintf(out, sizeof(out), "%s/crash-%llu.data", work, (unsigned long long)i);
		rename(in, out);
		printf("FAIL %llu (%s): recover %s %d; the mutant is %s\n", (unsigned long long)i,
		       seeds[from].name, r < 0 ? "died of signal" : "exited", r < 0 ? -r : r, out);
		c->failed++;
	}
	free(b.p);
	return c->failed ? -1 : 0;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct counts c = { 0 };
	uint64_t seed, max;
	double end;

	if (argc == 6 && !strcmp(argv[1], "--one")) {
		unsigned from;
		if (corpus_load(argv[2]) < 0)
			return 2;
		struct buf b = mutant(strtoull(argv[3], NULL, 0), strtoull(argv[4], NULL, 0), &from);
		int r = write_file(argv[5], &b) < 0;
		free(b.p);
		return r;
	}
	if (argc < 6 || corpus_load(argv[1]) < 0) {
		fprintf(stderr, "usage: recover_fuzz CORPUS_DIR WORK_DIR SEED SECONDS KEEP [MAX]\n");
		return 2;
	}
	seed = strtoull(argv[3], NULL, 0);
	end = now_s() + atof(argv[4]);
	max = argc > 6 ? strtoull(argv[6], NULL, 0) : UINT64_MAX;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("seed %llu, %u corpus files, %s s\n", (unsigned long long)seed, nr_seeds, argv[4]);
	for (uint64_t i = 0; i < max && now_s() < end; i++)
		one(argv[2], seed, i, (unsigned)atoi(argv[5]), &c);
	printf("%lu mutants: %lu complete, %lu repaired, %lu refused, %lu crashed or hung\n", c.run,
	       c.complete, c.repaired, c.refused, c.failed);
	return c.failed ? 1 : 0;
}
