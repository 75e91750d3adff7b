#!/bin/sh
# Targets and event kinds: -a, -C 0, -p PID, two events, tracepoints.
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
plan 14
cd "$T"

# Runs until the test ends (cleanup_hook kills it).
"$WORKLOAD" cpu 120000 & busy=$!
cleanup_hook() { kill "$busy" 2>/dev/null; }

"$PERFSINK" record -q -a --duration 1 -o all.data 2>err
check "-a --duration 1 records" [ $? -eq 0 ]
check "-a: perf report clean" perf_clean all.data || show err all.data.report.err
check "-a: sees the running workload" grep -q hot_alpha all.data.report

"$PERFSINK" record -q -C 0 --duration 0.5 -o cpu0.data 2>err
"$PERF" script -i cpu0.data -F cpu 2>/dev/null | sort -u >cpus
check "-C 0: samples only from CPU 0" [ "$(cat cpus | tr -d ' []')" = "000" ] || show cpus err

"$PERFSINK" record -q -p "$busy" --duration 0.5 -o pid.data 2>err
"$PERF" script -i pid.data -F pid 2>/dev/null | sort -u >pids
check "-p PID: samples only from that process" [ "$(tr -d ' ' <pids)" = "$busy" ] || show pids err
check "-p PID: resolves its symbols" sh -c "'$PERF' report -i pid.data --stdio 2>/dev/null | grep -q hot_alpha"

"$PERFSINK" record -q -e cpu-clock -e task-clock -o two.data -- "$WORKLOAD" cpu 300 2>err
"$PERF" report -i two.data --stdio >two.report 2>two.err
check "two events: both named in perf report" sh -c "grep -q \"of event 'cpu-clock'\" two.report && grep -q \"of event 'task-clock'\" two.report"
check "two events: nothing on stderr" [ ! -s two.err ] || show two.err

"$PERFSINK" record -q -e syscalls:sys_enter_getppid -o tp.data -- "$WORKLOAD" getppid 1234 2>err
"$PERF" script -i tp.data >tp.script 2>tp.err
check "tracepoint: one sample per getppid call" [ "$(grep -c sys_enter_getppid tp.script)" = 1234 ] || show err tp.err
check "tracepoint: perf script clean" [ ! -s tp.err ] || show tp.err

"$PERFSINK" record -q -a -m 8M -e sched:sched_switch --duration 0.5 -o sw.data 2>err
"$PERF" script -i sw.data >sw.script 2>sw.err.all
# System-wide on a busy machine the kernel may still drop a chunk; perf
# then says so (counted, not silent).  Anything else on stderr is a failure.
perf_stderr_rest sw.err.all
grep -vE '^(Warning:|Processed [0-9]+ events and lost [0-9]+ chunks!|Check IO/CPU overload!|)$' sw.err.all.rest >sw.err
check "sched_switch: fields decoded" grep -q 'prev_comm=.*prev_pid=[0-9]*.*next_comm=' sw.script || show sw.err
check "sched_switch: perf script clean" [ ! -s sw.err ] || show sw.err

# -a on a syscall tracepoint: perfsink's own write()s are filtered out on
# every CPU, with one program per tracepoint and no warning.
"$PERFSINK" record -a -e raw_syscalls:sys_enter -o rs.data -- "$WORKLOAD" getppid 20000 2>rs.err & rec=$!
wait $rec
check "-a tracepoint: no warning (exclude-self on every CPU)" fails grep -q warning rs.err || show rs.err
"$PERF" script -i rs.data -F pid 2>/dev/null | tr -d ' ' | sort | uniq -c | sort -rn >rs.pids
check "-a tracepoint: no event of perfsink itself (pid $rec)" fails grep -q " $rec\$" rs.pids || show rs.pids
done_testing
