/* Shared by bind.c, bind_select.c and sink_conf.c: one sink instance's values. */
#ifndef PS_BIND_PRIV_H
#define PS_BIND_PRIV_H
#include <stddef.h>
#include "loader/bind.h"

#define ERR_MAX 1024

/* A new instance of plugin p with every key at its default; takes p. */
int sink_conf_init(struct sink_conf *s, const char *name, struct plugin *p,
		   const char *where, char *why, size_t whylen);
/*
 * Store text as value i of s (copied); set: the user gave it; origin: the
 * "FILE:LINE" or option that gave it (copied).
 */
int sink_value_set(struct sink_conf *s, unsigned i, const char *text, const char *origin,
		   int set, char *why, size_t whylen);
void sink_conf_clear(struct sink_conf *s);
/* Name of the first required key still unset, or NULL. */
const char *sink_missing_key(const struct sink_conf *s);

#endif
