#!/bin/sh
# zstd on disks of 16K to 1M: see small_disk.sh.  Around 72K-128K the
# header and the reserve for the features fit, but hardly a batch.
SINK=zstd
SIZES="16k 64k 72k 80k 96k 128k 256k 1m"
. "$TESTS_SRCDIR/small_disk.sh"
