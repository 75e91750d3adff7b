/*
 * The profile being built, in pprof's terms: a string table, value types,
 * mappings, functions, locations and samples, each deduplicated as it is
 * added (one Location per mapping and address, one Function per name,
 * system name and file, one Sample per stack and label set, values summed).
 * Ids are pprof's: 1-based, in the order first added; string 0 is "".
 * Pure: no I/O, no symbols; pp_write.c turns it into profile.proto bytes.
 * Single-threaded.
 */
#ifndef PS_PPROF_PROFILE_H
#define PS_PPROF_PROFILE_H
#include <stddef.h>
#include <stdint.h>
#include "pprof/pp_intern.h"

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
	struct bytes key;         /* scratch: the key of the sample being added */
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

#endif
