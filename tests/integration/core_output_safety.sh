#!/bin/sh
# aio_file outputs among hostile users: see output_safety.sh.
SINK=aio_file
. "$TESTS_SRCDIR/output_safety.sh"
