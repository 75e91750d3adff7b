#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include "engine/realtime.h"

int realtime_apply(int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	/* Sinks may have started threads already; the policy is per thread. */
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return sched_setscheduler(0, SCHED_FIFO, &sp) < 0 ? -errno : 0;
	int ret = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		if (sched_setscheduler((pid_t)atoi(de->d_name), SCHED_FIFO, &sp) < 0 && errno != ESRCH && !ret)
			ret = -errno;
	}
	closedir(d);
	return ret;
}
