/* Kit-internal: the BUILD_ID feature section of a perf.data file. */
#ifndef PERFSINK_KIT_PERF_BUILD_IDS_H
#define PERFSINK_KIT_PERF_BUILD_IDS_H
#include <perfsink/kit.h>

/* perfsink_kit_perf_file_build_ids on a descriptor (left open). */
int kit_build_ids_of_fd(int fd, struct perfsink_kit_buf *out);

#endif
