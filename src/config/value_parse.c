/* Parsing of option and config values: whole strings only, no silent clamping. */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/value_parse.h"

/* Digits of one unsigned number in base 10 or 16; -EINVAL on overflow or no digit. */
static int digits_parse(const char **sp, unsigned base, uint64_t *out)
{
	const char *s = *sp;
	uint64_t v = 0;
	int any = 0;

	for (;; s++, any = 1) {
		unsigned d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (base == 16 && isxdigit((unsigned char)*s))
			d = (unsigned)(tolower((unsigned char)*s) - 'a' + 10);
		else
			break;
		if (v > (UINT64_MAX - d) / base)
			return -EINVAL;
		v = v * base + d;
	}
	if (!any)
		return -EINVAL;
	*sp = s;
	*out = v;
	return 0;
}

/* "123" or "0x7b", nothing else; the end is returned in *end. */
static int uint_parse(const char *s, const char **end, uint64_t *out)
{
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		if (digits_parse(&s, 16, out))
			return -EINVAL;
	} else if (digits_parse(&s, 10, out)) {
		return -EINVAL;
	}
	*end = s;
	return 0;
}

int parse_int(const char *s, int64_t min, int64_t max, int64_t *out)
{
	const char *end;
	uint64_t mag;
	int neg = 0;
	int64_t v;

	if (!s)
		return -EINVAL;
	if (*s == '-') {
		neg = 1;
		s++;
	}
	if (uint_parse(s, &end, &mag) || *end)
		return -EINVAL;
	if (neg) {
		if (mag > (uint64_t)INT64_MAX + 1)
			return -EINVAL;
		v = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
	} else {
		if (mag > (uint64_t)INT64_MAX)
			return -EINVAL;
		v = (int64_t)mag;
	}
	if (v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* Shift for a K/M/G/T suffix, 0 for none, -1 for anything else. */
static int size_suffix_shift(const char *s)
{
	static const char units[] = "KMGT";
	const char *u;
	int shift = 0;

	if (*s) {
		u = strchr(units, toupper((unsigned char)*s));
		if (u && *u) {
			shift = 10 * (int)(u - units + 1);
			s++;
		}
	}
	if (*s == 'b' || *s == 'B')
		s++;
	return *s ? -1 : shift;
}

int parse_size(const char *s, uint64_t *out)
{
	const char *end;
	uint64_t v;
	int shift;

	if (!s || uint_parse(s, &end, &v))
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		/* hex is a plain byte count: "0x40g" would read as 0x40 GiB or 0x40g */
		if (*end)
			return -EINVAL;
		*out = v;
		return 0;
	}
	shift = size_suffix_shift(end);
	if (shift < 0 || (shift && v > (UINT64_MAX >> shift)))
		return -EINVAL;
	*out = v << shift;
	return 0;
}

int parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };

	if (!s)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

/* Milliseconds per unit; 0 for an unknown unit. */
static uint64_t duration_unit_ms(const char *u)
{
	if (!*u || !strcmp(u, "s"))
		return 1000;
	if (!strcmp(u, "ms"))
		return 1;
	if (!strcmp(u, "m"))
		return 60 * 1000;
	if (!strcmp(u, "h"))
		return 3600 * 1000;
	return 0;
}

int parse_duration_ms(const char *s, uint64_t *out)
{
	uint64_t whole, frac = 0, frac_div = 1, unit;

	if (!s || digits_parse(&s, 10, &whole))
		return -EINVAL;
	if (*s == '.') {
		s++;
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		for (; isdigit((unsigned char)*s); s++) {
			if (frac_div >= 1000000000ULL)
				return -EINVAL; /* more precision than makes sense */
			frac = frac * 10 + (uint64_t)(*s - '0');
			frac_div *= 10;
		}
	}
	unit = duration_unit_ms(s);
	if (!unit || whole > UINT64_MAX / unit)
		return -EINVAL;
	/* "1.5s" is exact; "0.5ms" is not a whole millisecond */
	if ((frac * unit) % frac_div)
		return -EINVAL;
	if (whole * unit > UINT64_MAX - frac * unit / frac_div)
		return -EINVAL;
	uint64_t ms = whole * unit + frac * unit / frac_div;
	/* Callers turn it into signed nanoseconds: stay within that (~292 years). */
	if (ms > (uint64_t)INT64_MAX / 1000000)
		return -EINVAL;
	*out = ms;
	return 0;
}

int parse_enum(const char *s, const char *choices)
{
	size_t len;
	int idx = 0;

	if (!s || !choices || !*s)
		return -EINVAL;
	len = strlen(s);
	for (const char *c = choices;; idx++) {
		const char *bar = strchr(c, '|');
		size_t clen = bar ? (size_t)(bar - c) : strlen(c);

		if (clen == len && !strncmp(c, s, len))
			return idx;
		if (!bar)
			return -EINVAL;
		c = bar + 1;
	}
}

/* One "N" or "N-M" element of a CPU list; sets bits in the map. */
static int cpu_range_parse(const char **sp, unsigned max_cpu, unsigned char *map)
{
	uint64_t lo, hi;

	if (digits_parse(sp, 10, &lo))
		return -EINVAL;
	hi = lo;
	if (**sp == '-') {
		(*sp)++;
		if (digits_parse(sp, 10, &hi) || hi < lo)
			return -EINVAL;
	}
	if (hi >= max_cpu)
		return -EINVAL;
	for (uint64_t c = lo; c <= hi; c++)
		map[c] = 1;
	return 0;
}

int parse_cpu_list(const char *s, unsigned max_cpu, int **out, unsigned *n)
{
	unsigned char *map;
	unsigned cnt = 0;
	int *cpus;

	if (!s || !*s || !max_cpu)
		return -EINVAL;
	map = calloc(max_cpu, 1);
	if (!map)
		return -ENOMEM;
	for (;;) {
		if (cpu_range_parse(&s, max_cpu, map))
			goto bad;
		if (!*s)
			break;
		if (*s++ != ',')
			goto bad;
	}
	for (unsigned c = 0; c < max_cpu; c++)
		cnt += map[c];
	cpus = malloc(cnt * sizeof(*cpus));
	if (!cpus) {
		free(map);
		return -ENOMEM;
	}
	cnt = 0;
	for (unsigned c = 0; c < max_cpu; c++)
		if (map[c])
			cpus[cnt++] = (int)c;
	free(map);
	*out = cpus;
	*n = cnt;
	return 0;
bad:
	free(map);
	return -EINVAL;
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

int parse_mmap_pages(const char *s, unsigned page_size, uint32_t *pages)
{
	uint64_t v;
	size_t len;

	if (!s || !*s || !page_size)
		return -EINVAL;
	len = strlen(s);
	if (isdigit((unsigned char)s[len - 1]) || (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))) {
		int64_t n;

		/* a bare number counts pages */
		if (parse_int(s, 1, UINT32_MAX, &n) || !is_pow2((uint64_t)n))
			return -EINVAL;
		*pages = (uint32_t)n;
		return 0;
	}
	if (parse_size(s, &v) || v % page_size)
		return -EINVAL;
	v /= page_size;
	if (!is_pow2(v) || v > UINT32_MAX)
		return -EINVAL;
	*pages = (uint32_t)v;
	return 0;
}
