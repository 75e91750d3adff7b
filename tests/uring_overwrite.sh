#!/bin/sh
# core_overwrite.sh against uring_file.
. "$TESTS_SRCDIR/uring_lib.sh"
. "$TESTS_SRCDIR/core_overwrite.sh"
