/* Kit-internal: the line trimming of the small INI-like files the kit reads
 * (perf's config for buildid.dir, AWS credentials). */
#ifndef PERFSINK_KIT_TEXT_H
#define PERFSINK_KIT_TEXT_H
#include <string.h>

/* s without its leading blanks and trailing blanks and line end (cut in place). */
static inline char *kit_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && strchr(" \t\r\n", e[-1]))
		*--e = '\0';
	return s;
}

#endif
