/* Buffer ends not yet on file; see kit.h (perfsink_kit_ends_*). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <perfsink/kit.h>

struct ends_mark {
	uint64_t end;       /* file offset where a buffer ends */
	uint64_t records;   /* records written to the file up to end */
};

struct perfsink_kit_ends {
	pthread_mutex_t lock;
	struct ends_mark *v; /* ring of pushed ends, increasing */
	size_t cap, head, n;
	uint64_t taken;     /* the largest end taken so far */
	uint64_t taken_records; /* its records */
};

int perfsink_kit_ends_create(struct perfsink_kit_ends **out)
{
	struct perfsink_kit_ends *e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	pthread_mutex_init(&e->lock, NULL);
	*out = e;
	return 0;
}

void perfsink_kit_ends_reset(struct perfsink_kit_ends *e)
{
	pthread_mutex_lock(&e->lock);
	e->head = e->n = 0;
	e->taken = 0;
	e->taken_records = 0;
	pthread_mutex_unlock(&e->lock);
}

static int grow(struct perfsink_kit_ends *e)
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

int perfsink_kit_ends_push(struct perfsink_kit_ends *e, uint64_t end, uint64_t records)
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

uint64_t perfsink_kit_ends_take(struct perfsink_kit_ends *e, uint64_t upto)
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

uint64_t perfsink_kit_ends_taken_records(struct perfsink_kit_ends *e)
{
	pthread_mutex_lock(&e->lock);
	uint64_t r = e->taken_records;
	pthread_mutex_unlock(&e->lock);
	return r;
}

void perfsink_kit_ends_destroy(struct perfsink_kit_ends *e)
{
	if (!e)
		return;
	free(e->v);
	pthread_mutex_destroy(&e->lock);
	free(e);
}
