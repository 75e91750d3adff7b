/* Sample filters; see pp_filter.h. */
#include "pprof/pp_filter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int pp_filter_pids(struct pp_filter *f, const char *list)
{
	const char *p = list;
	do {
		char *end;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (errno || v > INT32_MAX || (*end && *end != ','))
			return -EINVAL;
		if (f->npid == PP_FILTER_MAX)
			return -E2BIG;
		f->pid[f->npid++] = (int32_t)v;
		p = *end ? end + 1 : end;
	} while (*p);
	return p > list && p[-1] == ',' ? -EINVAL : 0;
}

int pp_filter_comms(struct pp_filter *f, const char *list)
{
	const char *p = list;
	for (;;) {
		size_t n = strcspn(p, ",");
		if (!n)
			return -EINVAL;
		if (f->ncomm == PP_FILTER_MAX)
			return -E2BIG;
		size_t k = n < 15 ? n : 15;
		memcpy(f->comm[f->ncomm], p, k);
		f->comm[f->ncomm++][k] = 0;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

/* "SEC[.FRAC]" up to the end or a comma, in ns; *end after it.  -EINVAL. */
static int seconds(const char *s, const char **end, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0, scale = 1000000000;
	const char *p = s;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (sec > UINT64_MAX / 10000000000ull)
			return -EINVAL;
		sec = sec * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (scale > 1)
				frac += (uint64_t)(*p - '0') * (scale /= 10);
	if (p == s || (p == s + 1 && *s == '.'))
		return -EINVAL;
	*end = p;
	*ns = sec * 1000000000ull + frac;
	return 0;
}

int pp_filter_time(struct pp_filter *f, const char *spec)
{
	const char *p = spec;
	uint64_t t0 = 0, t1 = 0;
	if (*p != ',' && (seconds(p, &p, &t0) || *p != ','))
		return -EINVAL;
	p++;
	if (*p && (seconds(p, &p, &t1) || *p || t1 < t0))
		return -EINVAL;
	if (!t0 && !t1)
		return -EINVAL;
	f->has_time = 1;
	f->t0 = t0;
	f->t1 = t1;
	return 0;
}

int pp_filter_any(const struct pp_filter *f)
{
	return f->npid || f->ncomm || f->has_time;
}

int pp_filter_match(const struct pp_filter *f, int32_t pid, const char *comm, uint64_t time)
{
	int ok = !f->npid;
	for (unsigned i = 0; !ok && i < f->npid; i++)
		ok = f->pid[i] == pid;
	if (!ok)
		return 0;
	ok = !f->ncomm;
	for (unsigned i = 0; !ok && comm && i < f->ncomm; i++)
		ok = !strncmp(f->comm[i], comm, 15);
	if (!ok)
		return 0;
	return !f->has_time || (time && time >= f->t0 && (!f->t1 || time <= f->t1));
}
