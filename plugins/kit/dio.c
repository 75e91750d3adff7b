/* O_DIRECT splitting of a record stream; see kit.h (perfsink_kit_dio_*). */
#include <fcntl.h>
#include <sys/stat.h>
#include <perfsink/kit.h>

#define B PERFSINK_KIT_DIO_BLOCK

struct perfsink_kit_dio_split perfsink_kit_dio_split(const uint8_t *data, size_t len, size_t pending)
{
	struct perfsink_kit_dio_split s = { 0 };
	if (pending) {
		size_t room = B - pending;
		s.head = len < room ? len : room;
		s.block_full = s.head == room;
		if (!s.block_full) {
			s.aligned = 1; /* all of it went into the pending block */
			return s;
		}
	}
	size_t rest = len - s.head;
	s.mid = rest / B * B;
	s.tail = rest - s.mid;
	s.aligned = s.mid == 0 || (uintptr_t)(data + s.head) % B == 0;
	return s;
}

int perfsink_kit_dio_usable(int fd)
{
#ifdef STATX_DIOALIGN
	struct statx st;
	if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &st) < 0 || !(st.stx_mask & STATX_DIOALIGN))
		return 0;
	return st.stx_dio_mem_align && st.stx_dio_offset_align &&
	       B % st.stx_dio_mem_align == 0 && B % st.stx_dio_offset_align == 0;
#else
	(void)fd;
	return 0;
#endif
}
