/*
 * The profile model to bytes: a perftools.profiles.Profile packed by
 * protobuf-c (from profile.proto), gzip-compressed with zlib as pprof
 * files are.  Single-threaded.
 */
#ifndef PS_PPROF_WRITE_H
#define PS_PPROF_WRITE_H
#include <stdio.h>

struct pp_profile;

/* Write p to out, gzipped.  0, -ENOMEM, -EIO. */
int pp_write(const struct pp_profile *p, FILE *out);

#endif
