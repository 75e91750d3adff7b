#!/bin/bash
# perfsink recover of a recording killed with SIGKILL gives perf the events
# the intact recording has: perf evlist -g and -v print the same for -a, -C,
# -p and a command of its own.  System-wide, the tracking event (dummy:HG,
# enabled at once) used to be taken for a member of the sampling event's
# group: evlist -g showed {cpu-clock,dummy} and perf report "anon group".
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
plan 12
cd "$T" || exit 1

printf '[sink.a]\nplugin = aio_file\npath = %s\n' "$T/out.data" > sink.ini
# rec NAME ARGS...: perfsink record ARGS into NAME.data (aio_file, buffered:
# the file grows with the data).
rec() {
	local name=$1; shift
	sed "s|$T/out.data|$T/$name.data|" sink.ini > "$name.ini"
	"$PERFSINK" record -q --config "$name.ini" -e cpu-clock -F 499 "$@" >"$name.log" 2>&1
}
size_above() { [ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -gt "$2" ]; }
# killed NAME ARGS...: rec in the background, SIGKILL once 64 KiB of data are in.
killed() {
	local name=$1; shift
	rec "$name" "$@" &
	local sh=$! ps kids
	wait_for 30 size_above "$name.data" 65536
	ps=$(pgrep -P "$sh" -x perfsink)
	kids=$(pgrep -P "$ps")
	kill -9 "$ps"
	wait "$sh" 2>/dev/null
	[ -z "$kids" ] || kill -9 $kids 2>/dev/null # its workload, by pid
	true
}
# same NAME: the intact and the recovered recording list the same events.
same() {
	"$PERFSINK" recover -o "$1.rec.data" "$1.killed.data" >"$1.recover.log" 2>&1 || return 1
	local f
	for f in intact rec; do
		local in=$1.$f.data
		[ "$f" = intact ] && in=$1.data
		"$PERF" evlist -g -i "$in" 2>/dev/null > "$1.$f.g"
		"$PERF" evlist -v -i "$in" 2>/dev/null > "$1.$f.v"
	done
	diff "$1.intact.g" "$1.rec.g" > "$1.diff" && diff "$1.intact.v" "$1.rec.v" >> "$1.diff"
}
W=$TESTS_BUILDDIR/integration/workload

"$W" cpu 60000 > /dev/null & WPID=$!
cleanup_hook() { kill "$WPID" 2>/dev/null; }
for mode in a C p cmd; do
	case $mode in
	a) args=(-a) ;;
	C) args=(-C 0) ;;
	p) args=(-p "$WPID") ;;
	cmd) args=() ;;
	esac
	if [ "$mode" = cmd ]; then
		rec "$mode" -- "$W" cpu 300
		killed "$mode.killed" -- "$W" cpu 20000
	else
		rec "$mode" --duration 1 "${args[@]}"
		killed "$mode.killed" "${args[@]}"
	fi
	check "-$mode: intact and killed recordings made" test -s "$mode.data" -a -s "$mode.killed.data" ||
		show "$mode.log" "$mode.killed.log"
	check "-$mode: recovered, perf evlist -g and -v as the intact file's" same "$mode" ||
		show "$mode.recover.log" "$mode.diff"
	check "-$mode: perf report of the recovered file says no group" \
		bash -c "! '$PERF' report -i '$mode.rec.data' --stdio 2>/dev/null | grep -q 'anon group'"
done
done_testing
