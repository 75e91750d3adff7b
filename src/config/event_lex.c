/* The tokenizer of perf's event syntax; see event_lex.h. */
#include <config.h>

#include <ctype.h>
#include <string.h>

#include "config/event_lex.h"

static int name_start(int c)
{
	return isalpha(c) || c == '_' || c == '*' || c == '?' || c == '[' || c == ']';
}

static int name_char(int c, enum ev_lex_mode mode)
{
	return name_start(c) || isdigit(c) || c == '.' || c == '-' ||
	       (mode == LEX_TERM_VALUE && c == ':');
}

static struct ev_token number(const char *t, size_t pos)
{
	struct ev_token k = { .type = TOK_NUMBER, .pos = pos };
	size_t i = pos;
	unsigned base = 10;

	if (t[i] == '0' && (t[i + 1] == 'x' || t[i + 1] == 'X') && isxdigit((unsigned char)t[i + 2])) {
		base = 16;
		i += 2;
	}
	for (; base == 16 ? isxdigit((unsigned char)t[i]) : isdigit((unsigned char)t[i]); i++) {
		unsigned d = isdigit((unsigned char)t[i]) ? (unsigned)(t[i] - '0')
							   : (unsigned)(tolower((unsigned char)t[i]) - 'a' + 10);
		if (k.num > (UINT64_MAX - d) / base)
			k.overflow = 1;
		k.num = k.num * base + d;
	}
	k.len = i - pos;
	return k;
}

struct ev_token ev_lex(const char *text, size_t pos, enum ev_lex_mode mode)
{
	struct ev_token k = { .type = TOK_END, .pos = pos };
	unsigned char c = (unsigned char)text[pos];

	if (!c)
		return k;
	if (isdigit(c)) {
		k = number(text, pos);
		/* 1a is no number and no name: let the parser say so */
		if (name_char((unsigned char)text[pos + k.len], mode)) {
			k.type = TOK_BAD;
			while (name_char((unsigned char)text[pos + k.len], mode))
				k.len++;
		}
		return k;
	}
	if (name_start(c) || (mode == LEX_TERM_VALUE && name_char(c, mode))) {
		size_t i = pos + 1;
		while (name_char((unsigned char)text[i], mode))
			i++;
		k.type = TOK_NAME;
		k.len = i - pos;
		return k;
	}
	if (c == '\'' && mode == LEX_TERM_VALUE) {
		const char *end = strchr(text + pos + 1, '\'');
		k.type = end ? TOK_QUOTED : TOK_BAD;
		k.len = end ? (size_t)(end - (text + pos)) + 1 : strlen(text + pos);
		return k;
	}
	k.len = 1;
	k.type = strchr(",{}/:=", c) ? c : TOK_BAD;
	return k;
}
