#!/bin/sh
# core_enospc.sh against uring_file.
. "$TESTS_SRCDIR/uring_lib.sh"
. "$TESTS_SRCDIR/core_enospc.sh"
