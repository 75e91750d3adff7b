/*
 * Jittered exponential backoff ("full jitter"): the n-th consecutive retry
 * waits a uniformly random time in [ceil/2, ceil], ceil = min(cap, base * 2^n).
 * The lower half bound keeps retries from hammering a collector that just
 * came back, the jitter keeps many recorders from retrying in lockstep.
 */
#ifndef HTTP_BACKOFF_H
#define HTTP_BACKOFF_H
#include <stdint.h>

struct backoff {
	int64_t base_ms;
	int64_t cap_ms;
	unsigned attempt;   /* consecutive failures so far */
	uint64_t rng;       /* xorshift state; never 0 */
};

void backoff_init(struct backoff *b, int64_t base_ms, int64_t cap_ms, uint64_t seed);
/* Record one more failure; returns the delay before the next try, in ms. */
int64_t backoff_next(struct backoff *b);
/* A success: the next failure starts again from base. */
void backoff_reset(struct backoff *b);

#endif
