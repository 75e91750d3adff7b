#!/bin/bash
# perf record's run options in perfsink, by what they do to a recording
# (perf_compat.sh compares attrs, fields and records with perf record's):
# -D delays the samples, --control's commands are acked and obeyed, -k
# gives wall-clock times, --max-size stops the session, --timestamp-filename
# renames the output, -z compresses it, --namespaces writes NAMESPACES for
# the workload, and a refused option says its own reason.
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
plan 16

rec() { "$PERFSINK" record "$@" 2>"$T/err"; }

# -D 200: samples begin at least 200 ms after the workload's exec (its COMM).
rec -D 200 -o "$T/d.data" -- "$WORKLOAD" cpu 500
"$PERF" script --show-task-events -F comm,time -i "$T/d.data" >"$T/d.txt" 2>/dev/null
exec_t=$(awk '/PERF_RECORD_COMM exec/ { sub(/:$/, "", $2); print $2; exit }' "$T/d.txt")
first_t=$("$PERF" script -F time -i "$T/d.data" 2>/dev/null | head -n 1 | tr -d ' :')
check "-D 200: the first sample comes 200 ms or more after exec ($exec_t -> $first_t)" \
	awk -v a="$exec_t" -v b="$first_t" 'BEGIN { exit !(a != "" && b != "" && b - a >= 0.2) }' ||
	show "$T/d.txt" "$T/err"
check "-D: says Events disabled, then Events enabled" \
	grep -qzE 'Events disabled.*Events enabled' "$T/err"

# --control: -D -1 records nothing until "enable"; every command is acked.
mkfifo "$T/ctl" "$T/ack"
exec 7<>"$T/ack"
"$PERFSINK" record -D -1 --control "fifo:$T/ctl,$T/ack" -o "$T/c.data" \
	-- "$WORKLOAD" cpu 60000 2>"$T/cerr" &
ps_pid=$!
ack() { # ack COMMAND: send it, read one "ack" within 10 s
	local a
	echo "$1" >"$T/ctl"
	read -r -t 10 a <&7 && [ "$a" = ack ]
}
wait_for 10 grep -q 'Events disabled' "$T/cerr"
check "--control: ping is acked" ack ping
wl_pid=$(pgrep -P "$ps_pid" | head -n 1)
check "--control: enable is acked" ack enable
# Let the workload run 50 ms of CPU while enabled (about 200 samples at 4 kHz).
t0=$(cpu_ticks "$wl_pid")
wait_for 30 eval 'test "$(cpu_ticks "$wl_pid")" -ge $((t0 + 5))'
check "--control: disable is acked" ack disable
check "--control: stop is acked" ack stop
wait "$ps_pid"
rc=$?
check "--control stop ends the recording (exit $rc: the workload got SIGTERM)" test "$rc" = 143
check "--control: the samples between enable and disable are in the file" \
	test "$(perf_samples "$T/c.data")" -gt 0 || show "$T/cerr"

# -k realtime: perf script -F tod prints today's date.
rec -k realtime -o "$T/k.data" -- "$WORKLOAD" cpu 50
tod=$("$PERF" script -F tod -i "$T/k.data" 2>"$T/kerr" | head -n 1 | awk '{ print $1 }')
check "-k: perf script -F tod prints wall-clock times ($tod)" test "$tod" = "$(date +%Y-%m-%d)" ||
	show "$T/kerr"
check "-k: the header has the clock" grep -q 'clockid: realtime' \
	<("$PERF" report --header-only -i "$T/k.data" 2>/dev/null)

# --max-size: a 60 s workload stops at 64K of data.
rec --max-size 64K -o "$T/m.data" -- "$WORKLOAD" cpu 60000
check "--max-size: the session stops at the size, as perf says" \
	grep -q 'size limit reached' "$T/err" || show "$T/err"
check "--max-size: perf reads the output" test "$(perf_samples "$T/m.data")" -gt 0

# --timestamp-filename: PATH.<16 digits>, readable.
rec --timestamp-filename -o "$T/t.data" -- "$WORKLOAD" cpu 50
f=$(ls "$T"/t.data.* 2>/dev/null | head -n 1)
check "--timestamp-filename: renamed PATH.YYYYmmddHHMMSScc (${f##*/})" \
	grep -qE '/t\.data\.[0-9]{16}$' <<<"$f"

# -z: a COMPRESSED perf.data.
rec -z -o "$T/z.data" -- "$WORKLOAD" cpu 50
check "-z: perf reads a zstd-compressed output" \
	grep -q 'compressed : Zstd, level = 1' <("$PERF" report --header-only -i "$T/z.data" 2>/dev/null)

# --namespaces: the workload's NAMESPACES record (synthesized before exec).
rec --namespaces -o "$T/n.data" -- "$WORKLOAD" cpu 50
check "--namespaces: perf script shows NAMESPACES with 7 namespaces" \
	grep -q 'PERF_RECORD_NAMESPACES.*nr_namespaces: 7' \
	<("$PERF" script --show-namespace-events -i "$T/n.data" 2>/dev/null)

# A refused option gives its reason, detected on this machine.
rec -b -o "$T/b.data" -- true
check "-b is refused with the reason about the PMU" \
	grep -qE 'branch stacks (need a hardware PMU; none on this machine|: this machine has a hardware PMU)' "$T/err" ||
	show "$T/err"
done_testing
