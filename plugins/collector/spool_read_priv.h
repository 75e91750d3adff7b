/*
 * A spooled part read back with bounded memory: its records checked from
 * its file a window at a time (a 20 GB sparse part once drove `perfsink
 * upload` to 20.9 GB of RSS), then its bytes sent from the file.
 *
 * Single-threaded: the sink's thread.
 */
#ifndef COLLECTOR_SPOOL_READ_PRIV_H
#define COLLECTOR_SPOOL_READ_PRIV_H
#include <stddef.h>
#include <stdint.h>

/*
 * Whether the len bytes of fd are whole perf pipe-mode records, by the
 * rules of perfsink_kit_records_validate (prologue: the pipe header
 * first), reading only the record headers through a window.  0, or
 * -EBADMSG with where and why in why, or -errno when fd cannot be read.
 */
int spool_records_check_fd(int fd, uint64_t len, int prologue, char *why, size_t whylen);

#endif
