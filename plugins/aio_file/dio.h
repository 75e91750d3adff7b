/*
 * O_DIRECT writing of a stream of whole records: how each buffer splits
 * into direct writes.
 *
 * The file is written in DIO_BLOCK units from a block-aligned offset.  A
 * buffer's bytes first complete the pending partial block left by the
 * buffers before it (copied into a bounce block, written once full), then
 * its block-aligned middle is written straight from the buffer (the host
 * places buffer data at its stream offset modulo DIO_BLOCK: sink ABI 1.2),
 * and its last partial block becomes the new pending block, written when
 * the next buffers fill it or, at the end, with a buffered write.  Every
 * block is written once, so no two writes in flight share a block.
 */
#ifndef PS_DIO_H
#define PS_DIO_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <perfsink/sink.h>

#define DIO_BLOCK PERFSINK_BUF_ALIGN

struct dio_split {
	size_t head;      /* bytes copied into the pending block */
	bool block_full;  /* the pending block is then full: write it */
	size_t mid;       /* bytes written straight from data + head (a multiple of DIO_BLOCK) */
	size_t tail;      /* bytes that start the next pending block */
	bool aligned;     /* data + head is DIO_BLOCK-aligned (or mid is 0) */
};

/* Split len bytes at data, with pending bytes (< DIO_BLOCK) in the pending block. */
struct dio_split dio_split(const uint8_t *data, size_t len, size_t pending);

/*
 * May fd take O_DIRECT writes whose memory, offset and length are
 * multiples of DIO_BLOCK?  Asks the kernel (statx DIOALIGN); false where it
 * does not say (tmpfs, older kernels), so those files stay buffered.
 */
bool dio_usable(int fd);

#endif
