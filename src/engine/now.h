/* The engine's clock readings.  Any thread. */
#ifndef PS_NOW_H
#define PS_NOW_H
#include <stdint.h>
#include <time.h>

/* clock_gettime(clk) in nanoseconds. */
static inline int64_t engine_now_ns(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#endif
