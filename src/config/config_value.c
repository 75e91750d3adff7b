/* Typed values of sink keys: parse, range-check, explain what is accepted. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_file.h"
#include "config/value_parse.h"

static void range_text(char *buf, size_t len, int64_t min, int64_t max, const char *unit)
{
	if (max)
		snprintf(buf, len, "from %" PRId64 " to %" PRId64 "%s", min, max, unit);
	else
		snprintf(buf, len, "from %" PRId64 "%s", min, unit);
}

static int unsigned_in_range(const struct perfsink_key *k, const char *text, uint64_t v,
			     const char *unit, struct perfsink_value *out, char *err, size_t errlen)
{
	char range[96];

	if (v > INT64_MAX || (int64_t)v < k->min || (k->max && (int64_t)v > k->max)) {
		range_text(range, sizeof(range), k->min, k->max, unit);
		snprintf(err, errlen, "'%s' is out of range; accepted: %s", text, range);
		return -EINVAL;
	}
	out->num = (int64_t)v;
	return 0;
}

static void choices_text(char *buf, size_t len, const char *choices)
{
	size_t j = 0;

	for (const char *c = choices; *c && j + 3 < len; c++) {
		if (*c == '|') {
			buf[j++] = ',';
			buf[j++] = ' ';
		} else {
			buf[j++] = *c;
		}
	}
	buf[j] = '\0';
}

int config_parse_value(const struct perfsink_key *k, const char *text,
		       struct perfsink_value *v, char *err, size_t errlen)
{
	char buf[256];
	uint64_t u;
	bool b;
	int idx;

	v->str = text;
	v->num = 0;
	switch (k->type) {
	case PERFSINK_KEY_STRING:
		return 0;
	case PERFSINK_KEY_PATH:
		if (*text)
			return 0;
		snprintf(err, errlen, "empty path");
		return -EINVAL;
	case PERFSINK_KEY_INT:
		if (!parse_int(text, k->min, k->max ? k->max : INT64_MAX, &v->num))
			return 0;
		range_text(buf, sizeof(buf), k->min, k->max, "");
		snprintf(err, errlen, "'%s' is not an integer %s (decimal or 0x hex)", text, buf);
		return -EINVAL;
	case PERFSINK_KEY_SIZE:
		if (!parse_size(text, &u))
			return unsigned_in_range(k, text, u, " bytes", v, err, errlen);
		snprintf(err, errlen, "'%s' is not a size; give bytes with an optional K, M, G or "
			 "T suffix (e.g. 4096, 16K, 2M)", text);
		return -EINVAL;
	case PERFSINK_KEY_DURATION:
		if (!parse_duration_ms(text, &u))
			return unsigned_in_range(k, text, u, " ms", v, err, errlen);
		snprintf(err, errlen, "'%s' is not a duration; give a number with an optional "
			 "unit ms, s, m or h (e.g. 250ms, 10s, 1.5m; no unit: seconds)", text);
		return -EINVAL;
	case PERFSINK_KEY_BOOL:
		if (!parse_bool(text, &b)) {
			v->num = b;
			return 0;
		}
		snprintf(err, errlen, "'%s' is not a boolean; accepted: true, false, yes, no, "
			 "on, off, 1, 0", text);
		return -EINVAL;
	case PERFSINK_KEY_ENUM:
		idx = parse_enum(text, k->choices);
		if (idx >= 0) {
			v->num = idx;
			return 0;
		}
		choices_text(buf, sizeof(buf), k->choices);
		snprintf(err, errlen, "'%s' is not accepted; accepted: %s", text, buf);
		return -EINVAL;
	}
	snprintf(err, errlen, "key type %d is unknown", (int)k->type);
	return -EINVAL;
}

/* '_' and '-' are the same in key names. */
int key_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char ca = *a == '_' ? '-' : *a, cb = *b == '_' ? '-' : *b;

		if (ca != cb)
			return 0;
	}
	return *a == *b;
}

int key_index(const struct perfsink_key *keys, const char *name)
{
	for (int i = 0; keys[i].name; i++)
		if (key_eq(keys[i].name, name))
			return i;
	return -1;
}
