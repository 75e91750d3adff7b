#!/bin/sh
# aio_file on disks of 4K to 1M: see small_disk.sh.  From 8K on the
# header fits, and up to about 100K not one ring buffer.
SINK=aio_file
SIZES="4k 8k 16k 32k 64k 128k 256k 1m"
. "$TESTS_SRCDIR/small_disk.sh"
