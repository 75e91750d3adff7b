/*
 * Symbol names into the page: they come from the recorded binaries, so any
 * byte may be in them (a name "</script><script>..." or invalid UTF-8 must
 * stay text).  Both escapes decode UTF-8 first and put U+FFFD for a bad
 * byte, so the XML stays well-formed.  Pure; errors stick in b->err.
 */
#ifndef PS_FLAME_ESCAPE_H
#define PS_FLAME_ESCAPE_H
#include "base/bytes.h"

/* s as XML/HTML text or attribute value: & < > " ' as entities, control
 * characters (XML 1.0 forbids them) as U+FFFD. */
void flame_xml(struct bytes *b, const char *s);
/* s as a double-quoted JavaScript string literal, quotes included, safe
 * inside an HTML <script> and an SVG CDATA section: < > & as \u003c...,
 * \ " and control characters escaped, U+2028/U+2029 escaped. */
void flame_js(struct bytes *b, const char *s);

#endif
