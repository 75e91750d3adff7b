/* The event parser's cursor over the tokens, and its one error. */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/event_lex.h"
#include "config/event_parse_priv.h"
#include "config/event_spec.h"

int evp_fail(struct parser *p, size_t pos, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	if (p->ret)
		return p->ret;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(p->err, p->errlen, "'%s' at column %zu: %s", p->text, pos + 1, what);
	p->ret = -EINVAL;
	return p->ret;
}

int evp_oom(struct parser *p)
{
	snprintf(p->err, p->errlen, "out of memory");
	p->ret = -ENOMEM;
	return p->ret;
}

struct ev_token evp_peek(const struct parser *p, enum ev_lex_mode mode)
{
	return ev_lex(p->text, p->pos, mode);
}

void evp_take(struct parser *p, struct ev_token t)
{
	p->pos = t.pos + t.len;
}

/* What the token at t is, for messages. */
const char *evp_tok_what(const struct parser *p, struct ev_token t, char *buf, size_t n)
{
	if (t.type == TOK_END)
		return "the end";
	snprintf(buf, n, "'%.*s'", (int)(t.len > 40 ? 40 : t.len), p->text + t.pos);
	return buf;
}

int evp_expect(struct parser *p, int type, const char *what)
{
	struct ev_token t = evp_peek(p, LEX_EVENT);
	char buf[64];

	if (t.type != type)
		return evp_fail(p, t.pos, "%s expected, found %s", what, evp_tok_what(p, t, buf, sizeof(buf)));
	evp_take(p, t);
	return 0;
}

char *evp_tok_dup(const struct parser *p, struct ev_token t)
{
	if (t.type == TOK_QUOTED)
		return strndup(p->text + t.pos + 1, t.len - 2);
	return strndup(p->text + t.pos, t.len);
}

bool evp_tok_is(const struct parser *p, struct ev_token t, const char *s)
{
	return t.type == TOK_NAME && t.len == strlen(s) && !strncmp(p->text + t.pos, s, t.len);
}
