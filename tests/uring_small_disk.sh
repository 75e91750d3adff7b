#!/bin/sh
# uring_file on disks of 4K to 1M: see small_disk.sh (tmpfs: buffered writes).
. "$TESTS_SRCDIR/uring_lib.sh"
SINK=uring_file
SIZES="4k 8k 16k 32k 64k 128k 256k 1m"
. "$TESTS_SRCDIR/small_disk.sh"
