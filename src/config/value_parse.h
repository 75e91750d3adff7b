/* Parsing of option and config values.  Pure functions; 0 or -EINVAL. */
#ifndef PS_VALUE_PARSE_H
#define PS_VALUE_PARSE_H
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

/* Decimal or 0x hex, whole string, within [min, max]. */
int parse_int(const char *s, int64_t min, int64_t max, int64_t *out);
/* Bytes: "4096", "16K", "512k", "2M", "1G", "1T" (powers of 1024; optional B). */
int parse_size(const char *s, uint64_t *out);
/* true/false/yes/no/on/off/1/0, any case. */
int parse_bool(const char *s, bool *out);
/*
 * Milliseconds from "250ms", "10s", "5m", "2h", "1.5s"; no suffix = seconds.
 * At most INT64_MAX nanoseconds (about 292 years).
 */
int parse_duration_ms(const char *s, uint64_t *out);
/* Index of s in "a|b|c", or -EINVAL. */
int parse_enum(const char *s, const char *choices);
/* CPU list "0-3,6": sorted unique CPUs < max_cpu into out (caller frees). */
int parse_cpu_list(const char *s, unsigned max_cpu, int **out, unsigned *n);
/* -m value: a page count (power of two) or a size; result in pages. */
int parse_mmap_pages(const char *s, unsigned page_size, uint32_t *pages);

#endif
