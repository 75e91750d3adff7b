/* SPDX-License-Identifier: MIT */
/*
 * perfsink pprof model: the profile.proto model and its encoder, shared by
 * `perfsink pprof` (src/pprof) and the pprof sink (plugins/pprof), written
 * once: interning, the deduplicating profile (strings, mappings,
 * functions, locations, samples), a PERF_RECORD_SAMPLE decoder, and the
 * protobuf-c + zlib writer (a gzipped perftools.profiles.Profile).
 *
 * A convenience library of this tree (plugins/pprofmodel, libpprofmodel),
 * linked into the pprof plugin and the perfsink program; not installed,
 * like libcollector (docs/ARCHITECTURE.md says why).  The names are the
 * ones src/pprof had (pp_*): the code moved here unchanged in interface.
 * Pure apart from pp_write's FILE; nothing logs or exits; errors are
 * negative errno values.  An object is used by one thread at a time.
 * Growable memory is the kit's byte buffer (<perfsink/kit.h>), so users
 * link the kit too.
 */
#ifndef PERFSINK_PPROF_MODEL_H
#define PERFSINK_PPROF_MODEL_H
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <perfsink/kit.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Interning byte strings: each distinct key gets the next index (0, 1, ...)
 * in the order first seen, so a table of strings, mappings, locations or
 * stacks is deduplicated as it is built.  Keys are copied into one arena.
 * Pure; single-threaded.
 */

struct pp_intern {
	struct perfsink_kit_buf arena;  /* the keys, back to back */
	size_t *off;         /* key i starts at arena.data + off[i] ... */
	uint32_t *len;       /* ... and is len[i] bytes */
	uint64_t *hv;        /* its hash (rehashing reads no key) */
	uint32_t n, cap;
	uint32_t *slot;      /* index + 1, open addressing; 0: empty */
	uint32_t nslot;      /* a power of two, at least 2n */
};

void pp_intern_init(struct pp_intern *t);
void pp_intern_free(struct pp_intern *t);
/* The index of key (n bytes), added when new (*added = 1 then); -ENOMEM. */
int64_t pp_intern(struct pp_intern *t, const void *key, size_t n, int *added);
/* The index of key, or -1 when it was never added. */
int64_t pp_intern_find(const struct pp_intern *t, const void *key, size_t n);
/* Key i and its size. */
const void *pp_intern_key(const struct pp_intern *t, uint32_t i, size_t *n);

/*
 * The profile being built, in pprof's terms: a string table, value types,
 * mappings, functions, locations and samples, each deduplicated as it is
 * added (one Location per mapping and address, one Function per name,
 * system name and file, one Sample per stack and label set, values summed).
 * Ids are pprof's: 1-based, in the order first added; string 0 is "".
 * Pure: no I/O, no symbols; pp_write.c turns it into profile.proto bytes.
 * Single-threaded.
 */

#define PP_MAX_VALUES 16

struct pp_line {
	uint64_t function_id;
	int64_t line;        /* 0: not known */
};

/* A label: str (a string) or, when str is NULL, num. */
struct pp_label {
	const char *key;
	const char *str;
	int64_t num;
};

struct pp_mapping {
	uint64_t start, limit, offset;
	int64_t file, build_id;  /* string ids */
	int has_lines;           /* a location of it got a line number */
};

struct pp_function {
	int64_t name, system_name, file;  /* string ids */
};

struct pp_location {
	uint64_t mapping_id;     /* 0: none */
	uint64_t address;
	uint32_t line0, nlines;  /* lines[line0 .. line0 + nlines) */
};

struct pp_profile {
	struct pp_intern strs, maps, funcs, locs, samples;
	struct pp_mapping *map;
	struct pp_function *func;
	struct pp_location *loc;
	struct pp_line *lines;
	uint32_t nlines, cap_lines, cap_map, cap_func, cap_loc;
	int64_t *values;          /* samples.n rows of nvalues */
	size_t cap_values;        /* rows */
	int64_t vtype[PP_MAX_VALUES][2];  /* type, unit string ids */
	unsigned nvalues;
	int64_t period_type[2], period;
	int64_t time_nanos, duration_nanos;
	int64_t comment[8];
	unsigned ncomments;
	struct perfsink_kit_buf key; /* scratch: the key of the sample being added */
};

/* 0 or -ENOMEM. */
int pp_profile_init(struct pp_profile *p);
void pp_profile_free(struct pp_profile *p);
/* The id of s in the string table (added when new); -ENOMEM. */
int64_t pp_string(struct pp_profile *p, const char *s);
/* A string i, NUL-terminated. */
const char *pp_string_at(const struct pp_profile *p, uint64_t i);
/* Append a sample value type; its index, -E2BIG past PP_MAX_VALUES, -ENOMEM.
 * Samples added before it get 0 for it. */
int pp_value_type(struct pp_profile *p, const char *type, const char *unit);
/* Set the period type and period; a comment line.  0 or -ENOMEM/-E2BIG. */
int pp_period(struct pp_profile *p, const char *type, const char *unit, int64_t period);
int pp_comment(struct pp_profile *p, const char *text);
/* The id of the mapping (added when new: start/limit/offset/file/build-id all equal);
 * build_id may be NULL or "".  -ENOMEM. */
int64_t pp_mapping(struct pp_profile *p, uint64_t start, uint64_t limit, uint64_t offset,
		   const char *file, const char *build_id);
/* The id of the function (name, system name, file; file may be NULL).  -ENOMEM. */
int64_t pp_function(struct pp_profile *p, const char *name, const char *system_name, const char *file);
/* The id of the location at address in mapping_id, or 0 when not added yet. */
uint64_t pp_location_find(const struct pp_profile *p, uint64_t mapping_id, uint64_t address);
/* Add the location with its lines (innermost inline first); its id.  An
 * existing one keeps its lines.  -ENOMEM. */
int64_t pp_location_add(struct pp_profile *p, uint64_t mapping_id, uint64_t address,
			const struct pp_line *lines, unsigned nlines);
/* Give location id its lines when it has none yet (named after it was
 * added).  0 or -ENOMEM. */
int pp_location_set_lines(struct pp_profile *p, uint64_t id, const struct pp_line *lines, unsigned nlines);
/* Add values[0..nvalues) to the sample with this stack (leaf first) and
 * these labels, made when new.  0, -EINVAL (no value types), -ENOMEM. */
int pp_sample_add(struct pp_profile *p, const uint64_t *loc_ids, unsigned nlocs,
		  const struct pp_label *labels, unsigned nlabels, const int64_t *values);

/* A sample i's stack and labels, decoded from its key for the writer. */
struct pp_sample_view {
	const uint64_t *loc_ids;   /* unaligned-safe copy in the caller's buffer */
	unsigned nlocs, nlabels;
	const int64_t *values;
};
/* Decode sample i: its locations into locs (room for its nlocs; call with
 * locs NULL to learn nlocs), labels as (key, str, num) string ids/numbers
 * into lab (room for nlabels triples).  */
void pp_sample_get(const struct pp_profile *p, uint32_t i, uint64_t *locs, int64_t (*lab)[3],
		   struct pp_sample_view *v);

/*
 * One PERF_RECORD_SAMPLE decoded by its attr's sample_type, up to the
 * fields a profile needs (IP, TID, TIME, CPU, PERIOD, CALLCHAIN,
 * REGS_USER, STACK_USER).  Pointers point into the record.  Pure.
 */

struct pp_sample {
	uint64_t id, ip, time, period;
	uint32_t pid, tid, cpu;
	unsigned cpumode;                /* header.misc & CPUMODE_MASK */
	uint64_t nr_chain;
	const uint8_t *chain;            /* nr_chain u64s, maybe unaligned */
	uint64_t regs_abi, regs_mask;    /* abi 0: no user registers */
	const uint8_t *regs;             /* popcount(regs_mask) u64s */
	uint64_t stack_size;             /* the copy's bytes used (dyn_size) */
	const uint8_t *stack;
};

/* The id of sample r (IDENTIFIER or ID), to find its attr; 0 when it has none. */
uint64_t pp_sample_id(const uint8_t *r, uint16_t size, uint64_t sample_type);
/* Decode r (size bytes) with attr a.  0, or -EINVAL when r is too short for its fields. */
int pp_sample_decode(const uint8_t *r, uint16_t size, const struct perf_event_attr *a, struct pp_sample *s);
/* Entry i of the call chain. */
uint64_t pp_sample_chain(const struct pp_sample *s, uint64_t i);
/* User register perf_reg (PERF_REG_X86_*), or 0 when not recorded. */
uint64_t pp_sample_reg(const struct pp_sample *s, unsigned perf_reg);

/*
 * The profile model to bytes: a perftools.profiles.Profile packed by
 * protobuf-c (from profile.proto), gzip-compressed with zlib as pprof
 * files are.  Single-threaded.
 */


/* Write p to out, gzipped.  0, -ENOMEM, -EIO. */
int pp_write(const struct pp_profile *p, FILE *out);

/*
 * Bytes of memory the model holds now (its tables, arenas and samples):
 * what a caller with a memory budget (the pprof sink's max_memory)
 * compares with.  Pure.
 */
size_t pp_profile_bytes(const struct pp_profile *p);

#ifdef __cplusplus
}
#endif
#endif /* PERFSINK_PPROF_MODEL_H */
