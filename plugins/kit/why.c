#include <stdarg.h>
#include <stdio.h>
#include "why.h"

int kit_say(char *why, size_t n, int err, const char *fmt, ...)
{
	if (why && n) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why, n, fmt, ap);
		va_end(ap);
	}
	return -err;
}
