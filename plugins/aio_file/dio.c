/* O_DIRECT splitting of a record stream; see dio.h. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/stat.h>
#include "dio.h"

struct dio_split dio_split(const uint8_t *data, size_t len, size_t pending)
{
	struct dio_split s = { 0 };
	if (pending) {
		size_t room = DIO_BLOCK - pending;
		s.head = len < room ? len : room;
		s.block_full = s.head == room;
		if (!s.block_full) {
			s.aligned = true; /* all of it went into the pending block */
			return s;
		}
	}
	size_t rest = len - s.head;
	s.mid = rest / DIO_BLOCK * DIO_BLOCK;
	s.tail = rest - s.mid;
	s.aligned = s.mid == 0 || (uintptr_t)(data + s.head) % DIO_BLOCK == 0;
	return s;
}

bool dio_usable(int fd)
{
#ifdef STATX_DIOALIGN
	struct statx st;
	if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &st) < 0 || !(st.stx_mask & STATX_DIOALIGN))
		return false;
	return st.stx_dio_mem_align && st.stx_dio_offset_align &&
	       DIO_BLOCK % st.stx_dio_mem_align == 0 && DIO_BLOCK % st.stx_dio_offset_align == 0;
#else
	(void)fd;
	return false;
#endif
}
