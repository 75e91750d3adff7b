/*
 * Output names of rotating file sinks and pruning of old segments.
 * A segment of base path P is "P.<YYYYmmddHHMMSS>.<NNNNNN>": the local time
 * the segment began and its number, so lexical order is time order.
 * Shared by aio_file and zstd.  Pure apart from the directory listing.
 */
#ifndef PS_SEGMENTS_H
#define PS_SEGMENTS_H
#include <perfsink/sink.h>

/* Path of the output for stream s: base itself when not rotating.  malloc'd. */
char *segment_path(const char *base, const struct perfsink_stream *s);
/* True when name (no directory) is a segment name of base name bname. */
int segment_name_matches(const char *bname, const char *name);
/*
 * Keep the newest keep segments of base, delete the older ones (only
 * regular files of the effective uid count as segments).  Returns
 * how many were deleted or a negative errno (the first failure).
 */
int segments_prune(const char *base, unsigned keep);

#endif
