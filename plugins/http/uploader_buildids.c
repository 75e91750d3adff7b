/*
 * The build-id hand-off: a part of an earlier run's stream, sent from the
 * spool, that holds only HEADER_BUILD_ID records was that stream's
 * build-id part; its symbols could not be shipped when the stream ended
 * (the collector was down), so the sink is told now (uploader.h).
 */
#include "uploader_int.h"

#include <stdlib.h>
#include <string.h>

/* Whether data is HEADER_BUILD_ID records and nothing else: a stream's build-id part. */
static int only_build_ids(const uint8_t *data, size_t len)
{
	struct perfsink_kit_rec_iter it;
	struct perfsink_kit_rec r;

	perfsink_kit_rec_iter_init(&it, data, len);
	while (perfsink_kit_rec_next(&it, &r))
		if (r.type != PERFSINK_RECORD_HEADER_BUILD_ID)
			return 0;
	return len > 0 && it.stop == PERFSINK_KIT_REC_END;
}

/* p, of an earlier run, was delivered: its build-ids' symbols may still be unshipped. */
void backlog_buildids(void *up, const struct part *p)
{
	struct uploader *u = up;
	uploader_buildids_fn fn;
	const char *slash = strrchr(p->key, '/');
	char *key_base;
	void *arg;

	pthread_mutex_lock(&u->ship.lock);
	fn = u->on_buildids;
	arg = u->on_buildids_arg;
	pthread_mutex_unlock(&u->ship.lock);
	if (!fn || p->kind != PART_DATA || !p->seq || !slash || !p->body.data ||
	    !only_build_ids(p->body.data, p->body.len))
		return;
	key_base = strndup(p->key, (size_t)(slash - p->key));
	if (key_base)
		fn(arg, key_base, p->body.data, p->body.len);
	free(key_base);
}
