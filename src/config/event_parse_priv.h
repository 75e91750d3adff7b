/*
 * Shared by the event parser's files (event_parse.c: events, groups and
 * lists; event_terms.c: modifiers and /terms/; event_cursor.c: the cursor
 * and errors).  Private to src/config.
 */
#ifndef PS_EVENT_PARSE_PRIV_H
#define PS_EVENT_PARSE_PRIV_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/event_lex.h"
#include "config/event_spec.h"

struct parser {
	const char *text;
	size_t pos;
	struct ev_list *out;
	char *err;
	size_t errlen;
	int ret;
};

/* One error, the first: "'TEXT' at column N: ..." into p->err; returns p->ret. */
int evp_fail(struct parser *p, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int evp_oom(struct parser *p);
/* The token at the cursor, and moving the cursor past a token. */
struct ev_token evp_peek(const struct parser *p, enum ev_lex_mode mode);
void evp_take(struct parser *p, struct ev_token t);
/* The token quoted for messages ("'x'", "the end") into buf. */
const char *evp_tok_what(const struct parser *p, struct ev_token t, char *buf, size_t n);
/* Take a token of this type, or fail saying what was expected. */
int evp_expect(struct parser *p, int type, const char *what);
char *evp_tok_dup(const struct parser *p, struct ev_token t);
bool evp_tok_is(const struct parser *p, struct ev_token t, const char *s);

/* [':'] MODIFIERS into dst (EV_MODS_MAX); colon: whether ':' is required. */
int evp_mods_opt(struct parser *p, char *dst, bool colon);
/* '/' [term (',' term)*] '/' into t. */
int evp_terms_parse(struct parser *p, struct ev_terms *t);
/* A tracepoint takes fewer terms (perf's config_term_tracepoint). */
int evp_tracepoint_terms_check(struct parser *p, const struct ev_spec *e, size_t at);

#endif
