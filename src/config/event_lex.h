/*
 * Tokens of perf's event syntax (see event_spec.h).  The parser asks for
 * one token at a time and says which names it expects: inside /terms/ a
 * value may hold ':' and '.' (name=a:b), elsewhere ':' separates.
 */
#ifndef PS_EVENT_LEX_H
#define PS_EVENT_LEX_H
#include <stddef.h>
#include <stdint.h>

enum ev_tok {
	TOK_END = 0,
	TOK_NAME,   /* [A-Za-z_*?[\]][A-Za-z0-9_*?.[\]-]* */
	TOK_NUMBER, /* decimal or 0x hex; value in num */
	TOK_QUOTED, /* 'text' inside terms; the text without quotes */
	TOK_BAD,    /* a character that starts no token, or an unclosed quote */
	/* single characters stand for themselves: , { } / : = */
};

enum ev_lex_mode { LEX_EVENT, LEX_TERM_VALUE };

struct ev_token {
	int type;      /* enum ev_tok or the character */
	size_t pos;    /* offset in the text */
	size_t len;
	uint64_t num;  /* TOK_NUMBER */
	int overflow;  /* TOK_NUMBER did not fit in 64 bits */
};

/* The token at pos (spaces are not skipped: perf has none in its syntax). */
struct ev_token ev_lex(const char *text, size_t pos, enum ev_lex_mode mode);

#endif
