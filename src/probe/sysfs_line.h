/* Small sysfs/procfs files, as probe/ reads them (machine*.c). */
#ifndef PS_PROBE_SYSFS_LINE_H
#define PS_PROBE_SYSFS_LINE_H
#include <stdbool.h>
#include <stddef.h>

/* First line of a small sysfs/procfs file, newline stripped; false if unreadable. */
bool machine_read_line(const char *path, char *buf, size_t len);

#endif
