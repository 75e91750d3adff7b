/*
 * Where perf keeps its build-id cache, so the recorder, which fills it,
 * and `perfsink fetch`, which fills it from a collector, use the one perf
 * report reads.  Reads perf's config files; any thread.
 */
#ifndef PERFSINK_BASE_BUILDID_DIR_H
#define PERFSINK_BASE_BUILDID_DIR_H
#include <stddef.h>

/*
 * The cache directory perf uses: buildid.dir from perf's config files
 * ($PERF_CONFIG alone, else /etc/perfconfig then ~/.perfconfig, the last
 * one wins), else $HOME/.debug, or ".debug" when HOME is unset (as perf's
 * set_buildid_dir).  A config file is read only when it is a regular file
 * owned by root or the effective uid (perf's rule for ~/.perfconfig, here
 * for each: under root, HOME or PERF_CONFIG may be another user's).
 * 0, or -ENAMETOOLONG.
 */
int buildid_cache_dir(char *out, size_t len);
/* The same; note (nlen bytes) gets one line naming a config file ignored, else "". */
int buildid_cache_dir_note(char *out, size_t len, char *note, size_t nlen);

#endif
