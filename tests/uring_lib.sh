# Sourced first by the uring_*.sh tests: skip the whole test (TAP 1..0)
# where the uring_file sink was not built (no liburing) or io_uring cannot
# be set up here (uring_unavailable.sh tests what the sink says then).
if [ ! -e "$TOP_BUILDDIR/plugins/uring_file/.libs/uring_file.so" ]; then
	echo "1..0 # SKIP uring_file not built (configure found no liburing)"
	exit 0
fi
if ! "$TESTS_BUILDDIR/no_uring" --probe; then
	echo "1..0 # SKIP io_uring unavailable here (kernel.io_uring_disabled or a seccomp filter)"
	exit 0
fi
FILE_SINK=uring_file
