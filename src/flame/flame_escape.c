/* Escaping names for XML and JavaScript; see flame_escape.h. */
#include "flame/flame_escape.h"

#include <stdio.h>
#include <string.h>

#define BAD 0xfffdu

/* The code point at s (NUL-terminated) in *cp, U+FFFD for a bad sequence
 * (overlong, surrogate, past U+10FFFF, cut short); the bytes it took. */
static unsigned utf8_next(const unsigned char *s, uint32_t *cp)
{
	unsigned n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3
		   : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
	if (n == 1) {
		*cp = s[0];
		return 1;
	}
	*cp = BAD;
	if (!n)
		return 1;
	uint32_t v = s[0] & (0x7f >> n);
	for (unsigned i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return i;
		v = v << 6 | (s[i] & 0x3f);
	}
	static const uint32_t min[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	if (v >= min[n] && v <= 0x10ffff && (v < 0xd800 || v > 0xdfff))
		*cp = v;
	return n;
}

static void put_utf8(struct bytes *b, uint32_t c)
{
	uint8_t o[4];
	unsigned n;
	if (c < 0x80) {
		o[0] = (uint8_t)c;
		n = 1;
	} else if (c < 0x800) {
		o[0] = (uint8_t)(0xc0 | c >> 6);
		o[1] = (uint8_t)(0x80 | (c & 0x3f));
		n = 2;
	} else if (c < 0x10000) {
		o[0] = (uint8_t)(0xe0 | c >> 12);
		o[1] = (uint8_t)(0x80 | (c >> 6 & 0x3f));
		o[2] = (uint8_t)(0x80 | (c & 0x3f));
		n = 3;
	} else {
		o[0] = (uint8_t)(0xf0 | c >> 18);
		o[1] = (uint8_t)(0x80 | (c >> 12 & 0x3f));
		o[2] = (uint8_t)(0x80 | (c >> 6 & 0x3f));
		o[3] = (uint8_t)(0x80 | (c & 0x3f));
		n = 4;
	}
	bytes_add(b, o, n);
}

static void put_str(struct bytes *b, const char *s)
{
	bytes_add(b, s, strlen(s));
}

void flame_xml(struct bytes *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		uint32_t c;
		p += utf8_next(p, &c);
		switch (c) {
		case '&': put_str(b, "&amp;"); break;
		case '<': put_str(b, "&lt;"); break;
		case '>': put_str(b, "&gt;"); break;
		case '"': put_str(b, "&quot;"); break;
		case '\'': put_str(b, "&#39;"); break;
		default:
			/* XML 1.0 allows tab, LF, CR only below 0x20; 0x7f-0x9f are discouraged. */
			put_utf8(b, (c < 0x20 && c != '\t') || (c >= 0x7f && c < 0xa0) || c == 0xfffe || c == 0xffff
					    ? BAD : c);
		}
	}
}

void flame_js(struct bytes *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	bytes_add(b, "\"", 1);
	while (*p) {
		uint32_t c;
		char u[8];
		p += utf8_next(p, &c);
		if (c == '\\' || c == '"') {
			bytes_add(b, "\\", 1);
			put_utf8(b, c);
		} else if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x2028 || c == 0x2029 ||
			   (c >= 0x7f && c < 0xa0)) {
			snprintf(u, sizeof(u), "\\u%04x", (unsigned)c);
			put_str(b, u);
		} else {
			put_utf8(b, c);
		}
	}
	bytes_add(b, "\"", 1);
}
