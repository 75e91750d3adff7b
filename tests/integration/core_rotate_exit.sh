#!/bin/sh
# A size cut made while the recorded command is exiting: /proc/PID/maps is
# empty by then, yet the command's last samples are still in the rings and
# go to the new output.  That output gets the maps the command had at the
# previous cut, so perf report names its functions there too.
#
# Made certain on any machine: the recorder is stopped while the command
# spins and exits (it stays a zombie: its parent, the recorder, is stopped);
# with 4K outputs and call chains every pass leaves a cut waiting, so the
# first thing the recorder does when it runs again is that cut.
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
plan 4
cd "$T"
rec=
cleanup_hook() { kill -CONT "$rec" 2>/dev/null; kill "$rec" 2>/dev/null; }
"$PERFSINK" record -F 2000 -g --switch-output=4K -o seg.data -- "$WORKLOAD" cpu 1500 >/dev/null 2>err & rec=$!
child() { pgrep -P "$rec" -x workload; }
two_outputs() { [ "$(ls seg.data.* 2>/dev/null | wc -l)" -ge 2 ] && child >/dev/null; }
wait_for 60 two_outputs
wl=$(child)
kill -STOP "$rec"
zombie() { [ "$(awk '{ print $3 }' "/proc/$wl/stat" 2>/dev/null)" = Z ]; }
wait_for 60 zombie
check "the command exited while the recorder was stopped" zombie
kill -CONT "$rec"
wait "$rec"
check "the recording ends, exit 0" [ $? -eq 0 ] || show err

last=$(ls -d seg.data.[0-9]*.[0-9]* | grep -vE '\.(report|syms)' | tail -n 1)
"$PERF" report -i "$last" --stdio --no-children -g none --comms workload --sort dso,sym >last.syms 2>/dev/null
"$PERF" script -i "$last" --show-task-events -F comm,tid 2>/dev/null >last.tasks
check "the last output holds the command's last samples and its EXIT" \
	sh -c "grep -v '^#' last.syms | grep -q '%' && grep -q 'PERF_RECORD_EXIT' last.tasks" || show last.syms last.tasks
# User space only: a sample the workload takes in a module loaded by
# another test meanwhile (a loop device's) is the kernel's, not this cut's.
check "and names their functions: no unknown user-space object" \
	sh -c "grep -q hot_ last.syms && ! grep -qE '\[unknown\] +\[\.\]' last.syms" || show last.syms
done_testing
