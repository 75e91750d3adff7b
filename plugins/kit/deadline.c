/* A condition variable's deadline: see kit.h. */
#include <time.h>
#include <perfsink/kit.h>

void perfsink_kit_deadline(clockid_t clock, int64_t ms, struct timespec *ts)
{
	clock_gettime(clock, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}
