/*
 * The directory of the running program's file (realpath of
 * /proc/self/exe, links resolved): where a build tree's plugins and the
 * installed perfsink-profile are looked for beside perfsink.
 */
#ifndef PS_EXE_DIR_H
#define PS_EXE_DIR_H
#include <stddef.h>

/* 0 with the directory in out (len bytes), or -1 (out ""). */
int exe_dir(char *out, size_t len);

#endif
