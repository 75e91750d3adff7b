/* Kit-internal: the .gnu_debuglink section of an ELF file and its CRC32. */
#ifndef PERFSINK_KIT_DEBUGLINK_H
#define PERFSINK_KIT_DEBUGLINK_H
#include <stddef.h>
#include <stdint.h>

/*
 * The debug file name and CRC32 that the .gnu_debuglink section of the
 * ELF file open as fd holds (read with pread: only the headers, the
 * section names and the section).  name gets a plain file name (no '/',
 * not "." or ".."), at most n - 1 bytes.  0; -ENOENT when the file has no
 * such section; -ENOEXEC when it is not ELF or the section is malformed;
 * -errno on a read error.
 */
int kit_debuglink_of_fd(int fd, char *name, size_t n, uint32_t *crc);
/* The CRC32 gdb and objcopy --add-gnu-debuglink compute (zlib's crc32). */
uint32_t kit_debuglink_crc32(uint32_t crc, const uint8_t *p, size_t len);

#endif
