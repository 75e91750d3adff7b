#!/bin/sh
# core_rotate.sh against uring_file.
. "$TESTS_SRCDIR/uring_lib.sh"
. "$TESTS_SRCDIR/core_rotate.sh"
