/*
 * GNU build-ids (NT_GNU_BUILD_ID notes) of ELF files and of the running
 * kernel, for perf's BUILD_ID feature.  Only the ELF header, the program or
 * section headers and the note payloads are read (pread), never the whole
 * file.  No state; thread-safe.
 */
#ifndef PS_BUILDID_H
#define PS_BUILDID_H
#include <stddef.h>
#include <stdint.h>

#define BUILDID_MAX 20 /* perf's BUILD_ID_SIZE: longer ids are cut, like perf */

/*
 * Build-id of the ELF file at path (32- or 64-bit, either byte order): PT_NOTE
 * segments first, then SHT_NOTE sections (objects, modules).  On success
 * returns 0, id holds *len bytes (1..20) and the rest of id is zeroed.
 * Errors: -errno from open/read, -EISDIR, -ENOEXEC (not a regular file, not
 * ELF, or headers/notes cut short), -ENODATA (ELF without a build-id note).
 */
int buildid_read_file(const char *path, uint8_t id[BUILDID_MAX], size_t *len);
/* The same of the file open as fd (pread only: its offset is left alone; not closed). */
int buildid_read_fd(int fd, uint8_t id[BUILDID_MAX], size_t *len);

/* Build-id of the running kernel from /sys/kernel/notes.  Same returns. */
int buildid_read_kernel(uint8_t id[BUILDID_MAX], size_t *len);

/*
 * Build-id of the vDSO mapped into this process (getauxval(AT_SYSINFO_EHDR),
 * read through /proc/self/mem).  The kernel maps one image into every
 * process of an ABI, so it stands for "[vdso]" of the 64-bit processes
 * recorded, as perf's own vDSO does for perf.  -ENOENT without a vDSO.
 */
int buildid_read_vdso(uint8_t id[BUILDID_MAX], size_t *len);

/* Same from a raw note file (/sys/kernel/notes, /sys/module/M/notes/...). */
int buildid_read_notes_file(const char *path, uint8_t id[BUILDID_MAX], size_t *len);

/* Lowercase hex of id into out (2*len+1 bytes), as readelf and perf print it. */
void buildid_hex(const uint8_t *id, size_t len, char *out);

#endif
