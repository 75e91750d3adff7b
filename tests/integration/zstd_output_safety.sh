#!/bin/sh
# zstd outputs among hostile users: see output_safety.sh.
SINK=zstd
. "$TESTS_SRCDIR/output_safety.sh"
