/*
 * The object shipper's units between themselves (ship_queue.c, ship_send.c,
 * ship_spool.c); its contract is <perfsink/collector_ship.h>.
 */
#ifndef COLLECTOR_SHIP_PRIV_H
#define COLLECTOR_SHIP_PRIV_H
#include <perfsink/collector_ship.h>

int ship_in_memory(const struct part *p);
void ship_spill(struct ship *s, struct part *p);
void ship_leaves(struct ship *s, const struct part *p, int sent);
void ship_policy(struct ship *s);
void ship_unlink_head(struct part **head, struct part **tail, struct part *p);

/* What the log calls the objects: the sink's word, "parts" by default. */
static inline const char *ship_objects(const struct ship *s)
{
	return s->conf->objects ? s->conf->objects : "parts";
}

#define SHIP_LOG(s, lvl, ...) (s)->host->log((s)->inst, PERFSINK_LOG_##lvl, __VA_ARGS__)


#endif
