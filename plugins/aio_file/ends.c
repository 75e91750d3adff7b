/* Buffer ends not yet on file; see ends.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ends.h"

void ends_init(struct ends *e)
{
	memset(e, 0, sizeof(*e));
	pthread_mutex_init(&e->lock, NULL);
}

void ends_reset(struct ends *e)
{
	pthread_mutex_lock(&e->lock);
	e->head = e->n = 0;
	e->taken = 0;
	e->taken_records = 0;
	pthread_mutex_unlock(&e->lock);
}

static int grow(struct ends *e)
{
	size_t cap = e->cap ? 2 * e->cap : 64;
	struct ends_mark *v = malloc(cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < e->n; i++)
		v[i] = e->v[(e->head + i) % e->cap];
	free(e->v);
	e->v = v;
	e->cap = cap;
	e->head = 0;
	return 0;
}

int ends_push(struct ends *e, uint64_t end, uint64_t records)
{
	int r = 0;
	pthread_mutex_lock(&e->lock);
	if (e->n == e->cap)
		r = grow(e);
	if (r == 0)
		e->v[(e->head + e->n++) % e->cap] = (struct ends_mark){ end, records };
	pthread_mutex_unlock(&e->lock);
	return r;
}

uint64_t ends_take(struct ends *e, uint64_t upto)
{
	pthread_mutex_lock(&e->lock);
	while (e->n && e->v[e->head].end <= upto) {
		e->taken = e->v[e->head].end;
		e->taken_records = e->v[e->head].records;
		e->head = (e->head + 1) % e->cap;
		e->n--;
	}
	uint64_t t = e->taken;
	pthread_mutex_unlock(&e->lock);
	return t;
}

uint64_t ends_taken_records(struct ends *e)
{
	pthread_mutex_lock(&e->lock);
	uint64_t r = e->taken_records;
	pthread_mutex_unlock(&e->lock);
	return r;
}

void ends_free(struct ends *e)
{
	free(e->v);
	e->v = NULL;
	pthread_mutex_destroy(&e->lock);
}
