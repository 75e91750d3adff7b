/*
 * fetch's input fuzzer: what a collector can send (listings, parts,
 * compressed parts, JIT names, end markers), mutated from the seed corpus
 * in tests/fuzz/fetch/, fed to fetch's parsers for a bounded time.  A seeded
 * mutator (xorshift), so a failure is reproduced by its seed:
 *
 *     FUZZ_SEED=N FUZZ_SECONDS=S fuzz_fetch [CORPUS_DIR]
 *
 * (CORPUS_DIR: else $FUZZ_CORPUS, else $TESTS_SRCDIR/fuzz/fetch.)
 *
 * Passing means: no crash, no sanitizer report (CI runs the suite again
 * under ASan+UBSan), and every parser's contract held (a listing parsed
 * fine has names without '/', a checked part converts, a JIT name that
 * parses is absolute and ends in jit-PID.dump).  TAP output, one line per
 * target with the inputs it took.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "fetch/fetch.h"
#include "fetch/jit_dumps.h"
#include "fetch/jit_maps.h"
#include <perfsink/collector.h>
#include "fetch/pipe_to_file.h"

#define MAX_INPUT (64u << 10)

enum target { T_PROPFIND, T_AUTOINDEX, T_S3, T_PART, T_JIT, T_END, T_COUNT };
static const char *const target_name[T_COUNT] = {
	"PROPFIND listing", "JSON autoindex listing", "S3 ListObjectsV2 page", "part (check, convert, decompress)",
	"JIT file names", "end marker",
};
static const char *const target_prefix[T_COUNT] = { "propfind", "autoindex", "s3", "part", "jit", "end" };

struct seed {
	enum target t;
	uint8_t *p;
	size_t len;
};

static uint64_t rng;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}
static size_t below(size_t n) { return n ? (size_t)(next() % n) : 0; }

static int failed;
static void fail(const char *what, const uint8_t *in, size_t len)
{
	printf("# contract broken: %s (input of %zu bytes)\n", what, len);
	(void)in;
	failed = 1;
}

/* ------------------------------------------------------------- mutator */

static const uint64_t interesting[] = { 0, 1, 7, 8, 15, 16, 0x7f, 0x80, 0xff, 0xffff, 0x10000,
					0x7fffffff, 0xffffffff, 0xffffffffffffffffull };
static const char tokens[] = "<>/\"{}[]:,&%_\\0123456789 ";

static size_t mutate(uint8_t *b, size_t len, const struct seed *seeds, size_t nseeds)
{
	unsigned n = 1 + (unsigned)below(8);
	for (unsigned i = 0; i < n; i++) {
		size_t at = below(len + 1), k;
		switch (below(8)) {
		case 0: /* flip a bit */
			if (len)
				b[below(len)] ^= (uint8_t)(1u << below(8));
			break;
		case 1: /* a token byte */
			if (len)
				b[below(len)] = (uint8_t)tokens[below(sizeof(tokens) - 1)];
			break;
		case 2: /* an interesting u16/u32/u64, little-endian */
			k = (size_t)1 << (1 + below(3));
			if (len >= k) {
				uint64_t v = interesting[below(sizeof(interesting) / sizeof(interesting[0]))];
				memcpy(b + below(len - k + 1), &v, k);
			}
			break;
		case 3: /* delete a range */
			k = below(len - (at < len ? at : len) + 1);
			if (at < len) {
				k = k > len - at ? len - at : k;
				memmove(b + at, b + at + k, len - at - k);
				len -= k;
			}
			break;
		case 4: /* insert random bytes */
			k = 1 + below(16);
			if (len + k <= MAX_INPUT) {
				memmove(b + at + k, b + at, len - at);
				for (size_t j = 0; j < k; j++)
					b[at + j] = (uint8_t)next();
				len += k;
			}
			break;
		case 5: /* duplicate a chunk */
			if (len) {
				size_t from = below(len), m = 1 + below(len - from);
				if (len + m <= MAX_INPUT) {
					memmove(b + at + m, b + at, len - at);
					memmove(b + at, b + (from < at ? from : from + m), m);
					len += m;
				}
			}
			break;
		case 6: { /* splice a piece of another seed */
			const struct seed *o = &seeds[below(nseeds)];
			size_t from = below(o->len), m = below(o->len - from + 1);
			if (at + m <= MAX_INPUT) {
				memcpy(b + at, o->p + from, m);
				len = at + m > len ? at + m : len;
			}
			break;
		}
		default: /* cut the end */
			len = below(len + 1);
			break;
		}
	}
	return len;
}

/* ------------------------------------------------------------- targets */

/* perfsink/collector.h: every entry is one path segment, not empty, no '/'. */
static void check_list(const struct perfsink_coll_list *l, int rc, const uint8_t *in, size_t len)
{
	if (rc)
		return;
	for (size_t i = 0; i < l->nr; i++)
		if (!l->e[i].name || !l->e[i].name[0] || strchr(l->e[i].name, '/'))
			fail("a listing entry that is not one path segment", in, len);
}

static void run_listing(enum target t, const uint8_t *in, size_t len)
{
	/* The parsers read text: the collector's bytes, then a NUL as libcurl's answer has none. */
	char *s = malloc(len + 1);
	struct perfsink_coll_list l = { 0 };
	int rc;
	memcpy(s, in, len);
	s[len] = '\0';
	if (t == T_PROPFIND)
		rc = perfsink_coll_list_propfind(s, len, "/c/h/s/", &l);
	else if (t == T_AUTOINDEX)
		rc = perfsink_coll_list_autoindex(s, len, &l);
	else
		rc = perfsink_coll_list_s3(s, len, "perf/h/", &l);
	if (rc && rc != -EBADMSG && rc != -ENOMEM)
		fail("a listing parser returned an undocumented error", in, len);
	check_list(&l, rc, in, len);
	perfsink_coll_list_free(&l);
	free(s);
}

/* A part checked, then converted (plain and --decompress) into a memfd. */
static void run_part(const uint8_t *in, size_t len)
{
	char err[600];
	int first = len >= 8 && !memcmp(in, "PERFILE2", 8);
	int rc = part_check(in, len, first, err, sizeof(err));
	if (rc && rc != -EBADMSG)
		fail("part_check returned an undocumented error", in, len);
	for (int d = 0; d < 2 && rc == 0; d++) {
		struct p2f w;
		int fd = memfd_create("fuzz-part", MFD_CLOEXEC);
		if (fd < 0 || p2f_init(&w, fd, d, 100) < 0) {
			fail("no memfd or p2f", in, len);
			if (fd >= 0)
				close(fd);
			return;
		}
		int r = p2f_part(&w, in, len, first, err, sizeof(err));
		if (r && r != -EBADMSG && r != -ENODATA)
			fail("p2f_part returned an undocumented error", in, len);
		if (r == 0 && w.nr_ev && p2f_checkpoint(&w) < 0)
			fail("p2f_checkpoint failed on a converted part", in, len);
		p2f_free(&w);
		close(fd);
	}
}

static void run_jit(const uint8_t *in, size_t len)
{
	char name[512], path[4096];
	size_t n = len < sizeof(name) - 1 ? len : sizeof(name) - 1;
	memcpy(name, in, n);
	name[n] = '\0';
	name[strcspn(name, "\n")] = '\0';
	jit_map_name_pid(name);
	if (jit_dump_name_path(name, path, sizeof(path)) == 0) {
		const char *leaf = strrchr(path, '/');
		if (path[0] != '/' || !leaf || jit_name_pid(leaf + 1, "jit-", ".dump") < 0 || strstr(path, "/../"))
			fail("jit_dump_name_path accepted a path it must refuse", in, len);
		jit_dump_base(path, "/root");
	}
}

static void run_end(const uint8_t *in, size_t len)
{
	uint64_t seq;
	char name[32];
	end_marker_parts((const char *)in, len);
	size_t n = len < sizeof(name) - 1 ? len : sizeof(name) - 1;
	memcpy(name, in, n);
	name[n] = '\0';
	if (part_name_seq(name, &seq) == 0 && strlen(name) < 10)
		fail("part_name_seq took a short name", in, len);
}

static void run(enum target t, const uint8_t *in, size_t len)
{
	switch (t) {
	case T_PROPFIND: case T_AUTOINDEX: case T_S3: run_listing(t, in, len); break;
	case T_PART: run_part(in, len); break;
	case T_JIT: run_jit(in, len); break;
	default: run_end(in, len); break;
	}
}

/* --------------------------------------------------------------- main */

static size_t corpus_load(const char *dir, struct seed *s, size_t max)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;
	while (d && n < max && (de = readdir(d))) {
		char path[4096];
		int t;
		for (t = 0; t < T_COUNT; t++)
			if (!strncmp(de->d_name, target_prefix[t], strlen(target_prefix[t])))
				break;
		if (t == T_COUNT)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		FILE *f = fopen(path, "rb");
		if (!f)
			continue;
		s[n].p = malloc(MAX_INPUT);
		s[n].len = fread(s[n].p, 1, MAX_INPUT, f);
		s[n].t = (enum target)t;
		fclose(f);
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	const char *src = getenv("TESTS_SRCDIR");
	char def[4096];
	snprintf(def, sizeof(def), "%s/fuzz/fetch", src ? src : ".");
	const char *dir = argc > 1 ? argv[1] : getenv("FUZZ_CORPUS") ? getenv("FUZZ_CORPUS") : def;
	const char *sec = getenv("FUZZ_SECONDS"), *sd = getenv("FUZZ_SEED");
	double seconds = sec ? atof(sec) : 3;
	struct seed seeds[64];
	unsigned long done[T_COUNT] = { 0 };
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	rng = sd ? strtoull(sd, NULL, 10) : (uint64_t)t0.tv_nsec ^ (uint64_t)getpid() << 32;
	rng = rng ? rng : 1;
	printf("1..%d\n# seed %" PRIu64 " (FUZZ_SEED=%" PRIu64 " reproduces this run), %.1f s\n", T_COUNT, rng,
	       rng, seconds);
	size_t n = dir ? corpus_load(dir, seeds, 64) : 0;
	if (!n) {
		printf("Bail out! no seeds in %s\n", dir);
		return 1;
	}
	uint8_t *buf = malloc(MAX_INPUT);
	/* The seeds as they are first, then mutants until the time is up. */
	for (size_t i = 0; i < n; i++) {
		run(seeds[i].t, seeds[i].p, seeds[i].len);
		done[seeds[i].t]++;
	}
	do {
		for (int k = 0; k < 64; k++) {
			const struct seed *s = &seeds[below(n)];
			memcpy(buf, s->p, s->len);
			run(s->t, buf, mutate(buf, s->len, seeds, n));
			done[s->t]++;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	for (int i = 0; i < T_COUNT; i++)
		printf("%s %d - %s: %lu inputs\n", done[i] && !failed ? "ok" : "not ok", i + 1, target_name[i],
		       done[i]);
	for (size_t i = 0; i < n; i++)
		free(seeds[i].p);
	free(buf);
	return failed;
}
