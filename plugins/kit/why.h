/* Kit-internal: the one-line reasons kit functions give in `why`. */
#ifndef PERFSINK_KIT_WHY_H
#define PERFSINK_KIT_WHY_H
#include <stddef.h>

/* Format one line into why (when not NULL) and return -err. */
int kit_say(char *why, size_t n, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
