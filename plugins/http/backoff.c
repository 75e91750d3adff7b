/* Jittered exponential backoff; see backoff.h. */
#include "backoff.h"

void backoff_init(struct backoff *b, int64_t base_ms, int64_t cap_ms, uint64_t seed)
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

int64_t backoff_next(struct backoff *b)
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

void backoff_reset(struct backoff *b)
{
	b->attempt = 0;
}
