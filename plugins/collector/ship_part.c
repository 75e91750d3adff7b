/* An object of the shipper: its bytes, and the end marker's format; see collector_ship.h. */
#include <perfsink/collector_ship.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct part *part_new(uint64_t seq, enum part_kind kind)
{
	struct part *p = calloc(1, sizeof(*p));

	if (p) {
		p->seq = seq;
		p->kind = kind;
		p->file_fd = -1;
	}
	return p;
}

int part_append(struct part *p, const void *data, size_t len)
{
	return perfsink_kit_buf_append(&p->body, data, len);
}

void part_unload(struct part *p)
{
	size_t len = p->body.len;

	if (p->file_fd >= 0)
		close(p->file_fd);
	p->file_fd = -1;
	perfsink_kit_buf_free(&p->body);
	p->body.len = len;
}

void part_free(struct part *p)
{
	if (!p)
		return;
	if (p->file_fd >= 0)
		close(p->file_fd);
	perfsink_kit_buf_free(&p->body);
	free(p->spool_path);
	free(p->key);
	free(p);
}

size_t part_end_format(char *buf, uint64_t parts, int64_t start_ns, int64_t end_ns)
{
	return (size_t)snprintf(buf, PART_END_MAX,
				"{\"parts\": %" PRIu64 ", \"start_ns\": %" PRId64 ", \"end_ns\": %" PRId64 "}\n",
				parts, start_ns, end_ns);
}

/* lit at *p (advanced past it): 0, or -1. */
static int take_lit(const uint8_t **p, const uint8_t *end, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(end - *p) < n || memcmp(*p, lit, n))
		return -1;
	*p += n;
	return 0;
}

/* 1 to 19 decimal digits at *p, no leading zero: 0 and *v, or -1. */
static int take_digits(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	size_t d = 0;

	*v = 0;
	while (*p + d < end && (*p)[d] >= '0' && (*p)[d] <= '9' && d < 20)
		*v = *v * 10 + (uint64_t)((*p)[d++] - '0');
	if (d == 0 || d > 19 || (d > 1 && (*p)[0] == '0'))
		return -1;
	*p += d;
	return 0;
}

int part_end_parse(const uint8_t *data, size_t len, uint64_t *parts, int64_t *start_ns,
		   int64_t *end_ns)
{
	const uint8_t *p = data, *end = data + len;
	uint64_t n, t0 = 0, t1 = 0;

	/* Byte for byte what part_end_format writes (or wrote before the times). */
	if (take_lit(&p, end, "{\"parts\": ") || take_digits(&p, end, &n) || n == 0)
		return -1;
	if (take_lit(&p, end, "}\n") &&
	    (take_lit(&p, end, ", \"start_ns\": ") || take_digits(&p, end, &t0) ||
	     take_lit(&p, end, ", \"end_ns\": ") || take_digits(&p, end, &t1) || take_lit(&p, end, "}\n")))
		return -1;
	if (p != end)
		return -1;
	*parts = n;
	if (start_ns)
		*start_ns = (int64_t)t0;
	if (end_ns)
		*end_ns = (int64_t)t1;
	return 0;
}
