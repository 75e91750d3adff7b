#!/bin/sh
# Where io_uring cannot be set up (here: a seccomp filter that fails
# io_uring_setup with ENOSYS, as a container's default profile does),
# uring_file refuses in one line that says why, and `plugin = file` records
# with aio_file and says so in the summary; so does the built-in config,
# which is plugin = file, and it picks uring_file where io_uring works.  The sysctl
# kernel.io_uring_disabled is machine-wide and other work on the machine may
# use io_uring, so the test does not set it.
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
[ -e "$TOP_BUILDDIR/plugins/uring_file/.libs/uring_file.so" ] ||
	skip_all "uring_file not built (configure found no liburing)"
NO_URING="$TESTS_BUILDDIR/integration/no_uring"
"$NO_URING" "$NO_URING" --probe && skip_all "the seccomp filter did not take (io_uring_setup still works)"
plan 13
cd "$T"

"$NO_URING" "$PERFSINK" record --sink uring_file -o u.data -- "$WORKLOAD" cpu 200 >/dev/null 2>err.u
rc=$?
check "uring_file without io_uring: exit 2, before recording (got $rc)" [ $rc -eq 2 ] || show err.u
check "one line says io_uring is unavailable and why" \
	[ "$(grep -c 'uring_file: error: io_uring unavailable: io_uring_setup: Function not implemented (a seccomp filter' err.u)" -eq 1 ] ||
	show err.u
check "and nothing was left behind" [ ! -e u.data ]

printf '[sink.f]\nplugin = file\npath = %s/f.data\n' "$T" >file.ini
"$NO_URING" "$PERFSINK" record --config file.ini -- "$WORKLOAD" cpu 300 >/dev/null 2>err.f
check "plugin = file without io_uring records (exit $?)" [ $? -eq 0 ] || show err.f
check "the summary says aio_file was chosen, and why" \
	grep -q '^\[ sink f (aio_file for plugin = file; uring_file: io_uring unavailable: ' err.f || show err.f
check "perf reads its file" perf_clean f.data || show f.data.report.err
"$NO_URING" "$PERFSINK" record -o d.data -- "$WORKLOAD" cpu 300 >/dev/null 2>err.d
check "the built-in config without io_uring records with aio_file, and says why" \
	grep -q '^\[ sink default (aio_file for plugin = file; uring_file: io_uring unavailable: ' err.d || show err.d
check "perf reads its file" perf_clean d.data || show d.data.report.err

if "$NO_URING" --probe; then
	"$PERFSINK" record -o d.data -- "$WORKLOAD" cpu 300 >/dev/null 2>err.e
	check "the built-in config with io_uring: uring_file" grep -q '^\[ sink default (uring_file for plugin = file)' err.e ||
		show err.e
	check "perf reads its file" perf_clean d.data || show d.data.report.err
	"$PERFSINK" record --config file.ini -- "$WORKLOAD" cpu 300 >/dev/null 2>err.g
	check "plugin = file with io_uring records (exit $?)" [ $? -eq 0 ] || show err.g
	check "the summary says uring_file was chosen" grep -q '^\[ sink f (uring_file for plugin = file)' err.g ||
		show err.g
	check "perf reads its file" perf_clean f.data || show f.data.report.err
else
	for _ in 1 2 3 4 5; do skip "io_uring unavailable here"; done
fi
done_testing
