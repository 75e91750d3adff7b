/*
 * The bounded start of a collector's answer, for the shipper's transfers
 * and ls/fetch's error messages alike; see <perfsink/collector.h>.
 */
#include <perfsink/collector.h>

#include <stdio.h>
#include <string.h>

void perfsink_coll_answer_reset(struct perfsink_coll_answer *a)
{
	a->len = 0;
	a->text[0] = '\0';
}

size_t perfsink_coll_answer_add(struct perfsink_coll_answer *a, const char *p, size_t len)
{
	size_t room = sizeof(a->text) - 1 - a->len, take = len < room ? len : room;

	memcpy(a->text + a->len, p, take);
	a->len += take;
	a->text[a->len] = '\0';
	return len;
}

size_t perfsink_coll_answer_write(char *p, size_t size, size_t n, void *a)
{
	return perfsink_coll_answer_add(a, p, size * n);
}

int perfsink_coll_answer_xml(const struct perfsink_coll_answer *a, const char *tag, char *out,
			     size_t n)
{
	char open[64], close[64];
	int ol = snprintf(open, sizeof(open), "<%s>", tag);
	int cl = snprintf(close, sizeof(close), "</%s>", tag);

	if (ol < 0 || cl < 0 || (size_t)cl >= sizeof(close))
		return 0;
	/* memmem (_GNU_SOURCE, from config.h): a NUL in an answer hides nothing after it. */
	const char *s = memmem(a->text, a->len, open, (size_t)ol);
	if (!s)
		return 0;
	s += ol;
	const char *e = memmem(s, a->len - (size_t)(s - a->text), close, (size_t)cl);
	if (!e || (size_t)(e - s) >= n)
		return 0;
	memcpy(out, s, (size_t)(e - s));
	out[e - s] = '\0';
	return 1;
}
