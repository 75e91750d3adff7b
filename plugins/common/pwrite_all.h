/* Synchronous positioned writes for headers and features (not the data path). */
#ifndef PS_PWRITE_ALL_H
#define PS_PWRITE_ALL_H
#include <stddef.h>
#include <stdint.h>

/* Write all len bytes at off, resuming short writes; 0 or a negative errno. */
int pwrite_all(int fd, const void *p, size_t len, uint64_t off);

#endif
