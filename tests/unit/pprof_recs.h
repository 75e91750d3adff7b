/*
 * Perf records for the pprof sink's unit tests (test_pprof_sink,
 * test_pprof_symcache): a buffer of MMAP2, FORK, EXIT and SAMPLE records, a pipe
 * header with one attr, a shipped window read back with protobuf-c, and
 * the map of this process that holds an address.  Include after cmocka.h.
 */
#ifndef TEST_PPROF_RECS_H
#define TEST_PPROF_RECS_H
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <linux/perf_event.h>
#include "profile.pb-c.h"

struct rec {
	uint8_t b[512];
	size_t n;
};

static inline void put(struct rec *r, const void *p, size_t n)
{
	memcpy(r->b + r->n, p, n);
	r->n += n;
}
static inline void put64(struct rec *r, uint64_t v) { put(r, &v, 8); }
static inline void put32(struct rec *r, uint32_t v) { put(r, &v, 4); }
static inline void hdr(struct rec *r, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { type, misc, 0 };
	put(r, &h, sizeof(h));
}
static inline void end(struct rec *r, size_t start)
{
	uint16_t size = (uint16_t)(r->n - start);
	memcpy(r->b + start + 6, &size, 2);
}

static inline void mmap2o(struct rec *r, int32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		   const char *path, const uint8_t *bid)
{
	size_t s = r->n;
	hdr(r, PERF_RECORD_MMAP2, bid ? (1u << 14) : 0);
	put32(r, (uint32_t)pid);
	put32(r, (uint32_t)pid);
	put64(r, start);
	put64(r, len);
	put64(r, pgoff);
	uint8_t u[24] = { 0 };
	if (bid) {
		u[0] = 20;
		memcpy(u + 4, bid, 20);
	}
	put(r, u, sizeof(u));
	put32(r, 5);   /* PROT_READ|PROT_EXEC */
	put32(r, 2);
	char name[256] = { 0 };
	strncpy(name, path, sizeof(name) - 1);
	put(r, name, (strlen(name) + 8) & ~(size_t)7);
	end(r, s);
}

/* FORK (pid from ppid) or EXIT (pid, tid) records. */
static inline void task(struct rec *r, uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid)
{
	size_t s = r->n;
	hdr(r, type, 0);
	put32(r, pid);
	put32(r, ppid);
	put32(r, tid);
	put32(r, ppid);
	put64(r, 0);
	end(r, s);
}

/* A pipe header with one cpu-clock-like attr: IP, TID, PERIOD, CALLCHAIN. */
static inline size_t pipe_header(struct rec *r)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	a.sample_period = 1000;
	r->n = 0;
	put(r, "PERFILE2", 8);
	put64(r, 16);
	hdr(r, 64, 0);
	put(r, &a, sizeof(a));
	put64(r, 1);
	end(r, 16);
	return r->n;
}

static inline void sample(struct rec *r, uint32_t pid, uint16_t misc, const uint64_t *chain, uint64_t n)
{
	size_t s = r->n;
	hdr(r, PERF_RECORD_SAMPLE, misc);
	put64(r, chain[n - 1]);
	put32(r, pid);
	put32(r, pid);
	put64(r, 1000);
	put64(r, n);
	for (uint64_t i = 0; i < n; i++)
		put64(r, chain[i]);
	end(r, s);
}

static inline Perftools__Profiles__Profile *unpack(const uint8_t *gz, size_t n)
{
	FILE *f = tmpfile();
	assert_non_null(f);
	assert_int_equal(fwrite(gz, 1, n, f), n);
	fflush(f);
	rewind(f);
	gzFile z = gzdopen(dup(fileno(f)), "rb");
	static uint8_t buf[1 << 16];
	int k = gzread(z, buf, sizeof(buf));
	gzclose(z);
	fclose(f);
	assert_true(k > 0);
	return perftools__profiles__profile__unpack(NULL, (size_t)k, buf);
}

/* The map of this process that holds addr, from /proc/self/maps. */
static inline void own_map(uint64_t addr, uint64_t *start, uint64_t *len, uint64_t *pgoff, char *path)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4352];
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b, off;
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %4095s", &a, &b, &off, path) == 4 &&
		    addr >= a && addr < b) {
			*start = a;
			*len = b - a;
			*pgoff = off;
			fclose(f);
			return;
		}
	}
	fclose(f);
	fail_msg("no map holds %#llx", (unsigned long long)addr);
}

#endif
