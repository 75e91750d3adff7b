/*
 * When to try a collector again: see <perfsink/collector.h>.  The http
 * sink's jittered backoff and Retry-After reading, here so that every
 * user of the collector client (the pprof sink to come) has the same
 * policy.
 */
#include <perfsink/collector.h>

#include <stdlib.h>
#include <time.h>

int64_t perfsink_coll_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void perfsink_coll_backoff_init(struct perfsink_coll_backoff *b, int64_t base_ms, int64_t cap_ms,
				uint64_t seed)
{
	b->base_ms = base_ms > 0 ? base_ms : 1;
	b->cap_ms = cap_ms >= b->base_ms ? cap_ms : b->base_ms;
	b->attempt = 0;
	b->rng = seed ? seed : 0x9e3779b97f4a7c15ull;
}

static uint64_t xorshift64(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

int64_t perfsink_coll_backoff_next(struct perfsink_coll_backoff *b)
{
	int64_t ceil = b->base_ms;
	int64_t half;
	unsigned i;

	for (i = 0; i < b->attempt && ceil < b->cap_ms; i++)
		ceil *= 2;
	if (ceil > b->cap_ms)
		ceil = b->cap_ms;
	if (b->attempt < 64)
		b->attempt++;
	half = ceil / 2;
	return half + (int64_t)(xorshift64(&b->rng) % (uint64_t)(ceil - half + 1));
}

void perfsink_coll_backoff_reset(struct perfsink_coll_backoff *b)
{
	b->attempt = 0;
}

int64_t perfsink_coll_backoff_wait(struct perfsink_coll_backoff *b, int64_t retry_after_ms)
{
	int64_t delay = perfsink_coll_backoff_next(b);

	if (retry_after_ms < 0)
		return delay;
	if (retry_after_ms < b->base_ms)
		return b->base_ms;
	return retry_after_ms < b->cap_ms ? retry_after_ms : b->cap_ms;
}

int64_t perfsink_coll_retry_after_parse(const char *v)
{
	char *end;
	long long sec;
	time_t when;

	while (*v == ' ' || *v == '\t')
		v++;
	if (*v >= '0' && *v <= '9') {
		sec = strtoll(v, &end, 10);
		while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
			end++;
		if (*end || sec < 0 || sec > 86400 * 365)
			return -1;
		return (int64_t)sec * 1000;
	}
	when = curl_getdate(v, NULL);
	if (when == (time_t)-1)
		return -1;
	return when > time(NULL) ? (int64_t)(when - time(NULL)) * 1000 : 0;
}
