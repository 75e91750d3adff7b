#!/bin/sh
# uring_file's ring is a single issuer's with deferred task work
# (IORING_SETUP_SINGLE_ISSUER|DEFER_TASKRUN) where the kernel has them
# (6.1); before that it falls back to a plain ring, still driven by its
# one I/O thread, and says so in one -v line.  The old kernel here is a
# shim (old_uring.so) that makes liburing refuse those flags as it does.
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
[ -e "$TOP_BUILDDIR/plugins/uring_file/.libs/uring_file.so" ] ||
	skip_all "uring_file not built (configure found no liburing)"
SHIM=$TESTS_BUILDDIR/integration/.libs/old_uring.so
[ -e "$SHIM" ] || skip_all "no $SHIM"
# The shim is not built with the sanitizer: let it load ahead of its runtime.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
plan 5
cd "$T"
MSG='u: debug: io_uring without SINGLE_ISSUER|DEFER_TASKRUN (a kernel before 6.1): completions run as task work of the I/O thread'
printf '[sink.u]\nplugin = uring_file\npath = %s/u.data\n' "$T" >u.ini

LD_PRELOAD=$SHIM "$PERFSINK" record -v --config u.ini -- "$WORKLOAD" cpu 300 >/dev/null 2>err.old
rc=$?
check "uring_file on an old kernel: exit 0 (got $rc)" [ $rc -eq 0 ] || show err.old
check "one -v line says the ring is a plain one" [ "$(grep -cF "$MSG" err.old)" -eq 1 ] || show err.old
check "perf reads its file" perf_clean u.data || show u.data.report.err

"$PERFSINK" record -v --config u.ini -- "$WORKLOAD" cpu 300 >/dev/null 2>err.new
check "without the shim: exit 0 (got $?)" [ $? -eq 0 ] || show err.new
case $(uname -r) in
[1-5].* | 6.0.*) skip "kernel $(uname -r) before 6.1" ;;
*) check "and on this kernel ($(uname -r)) nothing to say" [ "$(grep -cF 'io_uring without' err.new)" -eq 0 ] ||
	show err.new ;;
esac
done_testing
