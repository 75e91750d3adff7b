/* `perfsink check`'s listing: the resolved configuration as INI. */
#ifndef PS_CHECK_INI_H
#define PS_CHECK_INI_H
#include "config/opts.h"
#include "loader/bind.h"

/*
 * Print o's [record] and every sink of b on stdout as an INI file that
 * `perfsink record --config` reads back to the same configuration (but
 * the values of keys that may be credentials, printed as comments, and a
 * filter given for one of several -e); each value's origin is a comment
 * line above it.
 */
void check_ini_print(const struct record_opts *o, const struct bound_sinks *b);

#endif
