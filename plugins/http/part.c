/* Parts and the part cutter; see part.h. */
#include "part.h"

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

void part_cutter_init(struct part_cutter *c, size_t part_size, int64_t max_latency_ms)
{
	memset(c, 0, sizeof(*c));
	c->part_size = part_size;
	c->max_latency_ms = max_latency_ms;
}

int part_cutter_append(struct part_cutter *c, const uint8_t *data, size_t len,
		       uint64_t records, int64_t now_ms, struct part **sealed)
{
	*sealed = NULL;
	if (c->open && c->open->body.len > 0 && c->open->body.len + len > c->part_size)
		*sealed = part_cutter_flush(c);
	if (!c->open) {
		c->open = part_new(c->next_seq, PART_DATA);
		/*
		 * Growing by doubling copied every byte again through realloc
		 * (4 % of the sink's CPU at 200 MB/s); untouched capacity costs
		 * no memory until it is written.
		 */
		if (!c->open || perfsink_kit_buf_resize(&c->open->body, len > c->part_size ? len : c->part_size) < 0) {
			part_free(c->open);
			c->open = NULL;
			return -ENOMEM;
		}
		c->next_seq++;
		c->open->opened_ms = now_ms;
	}
	if (part_append(c->open, data, len) < 0)
		return -ENOMEM;
	c->open->records += records;
	return 0;
}

struct part *part_cutter_expire(struct part_cutter *c, int64_t now_ms)
{
	if (c->open && now_ms - c->open->opened_ms >= c->max_latency_ms)
		return part_cutter_flush(c);
	return NULL;
}

struct part *part_cutter_flush(struct part_cutter *c)
{
	struct part *p = c->open;

	c->open = NULL;
	/* A part cut early by max_latency gives back what it did not use. */
	if (p && p->body.len && p->body.len < p->body.cap / 2)
		perfsink_kit_buf_resize(&p->body, p->body.len);
	return p;
}

int64_t part_cutter_deadline(const struct part_cutter *c)
{
	return c->open ? c->open->opened_ms + c->max_latency_ms : -1;
}

struct part *part_cutter_meta(struct part_cutter *c, const void *data, size_t len)
{
	struct part *p = part_new(c->next_seq, PART_META);

	if (!p)
		return NULL;
	if (part_append(p, data, len) < 0) {
		part_free(p);
		return NULL;
	}
	c->next_seq++;
	return p;
}

void part_cutter_destroy(struct part_cutter *c)
{
	part_free(part_cutter_flush(c));
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
