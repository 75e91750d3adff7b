#!/bin/bash
# A normal user (nobody) with kernel.perf_event_paranoid 2: perfsink falls
# back to user space only, as perf record does, with one warning saying
# what to change; perf reads the file (samples, exclude_kernel set).
# Recording every CPU is refused with the same advice, exit 2.
. "$TESTS_SRCDIR/lib/lib.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root to run commands as nobody (runuser)"
command -v runuser >/dev/null || skip_all "runuser (util-linux) is not installed"
PARANOID=$(cat /proc/sys/kernel/perf_event_paranoid)
[ "$PARANOID" -ge 2 ] || skip_all "kernel.perf_event_paranoid is $PARANOID; the fallback happens at 2 or more (not changed by a test)"
as_nobody() { runuser -u nobody -- "$@"; }
as_nobody test -x "$PERFSINK" || skip_all "nobody cannot run $PERFSINK (a parent directory is closed)"
plan 6
chown nobody "$T"
chmod 755 "$T"
cd "$T"
as_nobody "$PERFSINK" record -o "$T/user.data" -- "$WORKLOAD" cpu 300 > user.out 2> user.err
check "as nobody, a command is recorded (exit 0)" test $? = 0 || show user.err
check "with one warning, naming the sysctl and CAP_PERFMON" \
	eval "test \$(grep -c 'warning' user.err) = 1 &&
	      grep -q 'kernel.perf_event_paranoid = $PARANOID forbids kernel samples to this user: recording user space only (as -e cpu-clock:u); to record the kernel too, run as root, grant CAP_PERFMON, or set kernel.perf_event_paranoid to 1' user.err" ||
	show user.err
check "perf reads it: user-space samples of the workload" \
	eval "as_nobody '$PERF' report -i '$T/user.data' --stdio --sort comm 2>/dev/null | grep -q 'workload'"
check "its event excludes the kernel, as perf's fallback does" \
	eval "'$PERF' evlist -v -f -i '$T/user.data' 2>/dev/null | grep -q 'exclude_kernel: 1'"
as_nobody "$PERFSINK" record -a -o "$T/all.data" --duration 1s > all.out 2> all.err
check "every CPU (-a) as nobody: refused, exit 2" test $? = 2
check "saying what it needs" \
	grep -q "recording every CPU (-a, -C) needs root, CAP_PERFMON or kernel.perf_event_paranoid 0 or lower (it is $PARANOID)" all.err ||
	show all.err
done_testing
