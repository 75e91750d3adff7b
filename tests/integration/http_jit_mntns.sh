#!/bin/bash
# The JIT map of a process in a container travels with the session under
# the host pid.  sym_prog in jit mode runs in its own mount and pid
# namespaces (unshare -mpf, a tmpfs on /tmp): it writes /tmp/perf-1.map in
# its /tmp, under its namespace pid, which the host's /tmp does not have.
# perfsink records it (-p, the host pid) with the http sink (nginx on
# loopback), which reads that map through /proc/PID/root and ships it as
# jit/perf-HOSTPID.map: the pid the samples carry.  Once the process is
# gone, `perfsink fetch` with a fresh HOME places it at /tmp/perf-HOSTPID.map
# and perf report names the JIT code.
# Then a container process that exits long before the recording ends: the
# recorded command runs it (unshare -mpf, its map in a tmpfs /tmp of its
# own) and waits on the host until the test has seen it gone.  Its
# /proc/PID/root is gone at the stream's end; the sink held its root and
# mount namespace from when it first saw the process, and ships the map.
. "$TESTS_SRCDIR/lib/http_lib.sh"
[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root (perf_event_open, unshare -mp)"; exit 0; }
command -v nginx >/dev/null || { echo "1..0 # SKIP nginx not installed"; exit 0; }
command -v cc >/dev/null || { echo "1..0 # SKIP no C compiler to build the test program"; exit 0; }
[ "$(uname -m)" = x86_64 ] || { echo "1..0 # SKIP sym_prog's jit mode runs x86-64 code only"; exit 0; }
unshare -mpf --mount-proc true 2>/dev/null || { echo "1..0 # SKIP unshare -mpf not allowed here"; exit 0; }

T=$(mktemp -d /tmp/http_jit_mntns.XXXXXX)
# The program lives outside /tmp: the namespace mounts its own /tmp.
B=$(mktemp -d /var/tmp/http_jit_mntns.XXXXXX)
HPID=none NS= HPID2=none REC=
trap 'kill -9 $NS $HPID $HPID2 $REC 2>/dev/null; [ -p "$T/go" ] && timeout 2 sh -c "echo > \"$T/go\""; nginx_stop; rm -rf "$T" "$B"; rm -f /tmp/perf-$HPID.map /tmp/perf-$HPID2.map' EXIT
echo "1..15"

collector_start "$T/ng"
cc -O1 -g -Wl,--build-id -o "$B/sym_prog" "$TESTS_SRCDIR/integration/sym_prog.c" ||
	{ echo "Bail out! cannot build sym_prog"; exit 1; }

unshare -mpf --mount-proc sh -c "mount -t tmpfs tmpfs /tmp && exec '$B/sym_prog' 60000 jit" >"$T/prog.out" 2>&1 &
NS=$!
child() { HPID=$(pgrep -P "$NS" | head -n 1); [ -n "$HPID" ] && grep -q '^pid ' "$T/prog.out"; }
wait_for 20 child || { echo "Bail out! the namespaced program did not start"; cat "$T/prog.out"; exit 1; }
HPID=$(pgrep -P "$NS" | head -n 1)
NSPID=$(sed -n 's/^pid //p' "$T/prog.out")
echo "# host pid $HPID, pid in its namespace $NSPID"
check "the map is in the process's own /tmp under its namespace pid, not in the host's" \
	bash -c "test -s '/proc/$HPID/root/tmp/perf-$NSPID.map' && test ! -e '/tmp/perf-$NSPID.map' -o '$NSPID' = '$HPID' && test ! -e '/tmp/perf-$HPID.map'"
cp "/proc/$HPID/root/tmp/perf-$NSPID.map" "$T/ns.map"

printf '[sink.net]\nplugin = http\nurl = http://127.0.0.1:%s/c\nspool_dir = %s/spool\n' "$P" "$T" > "$T/c.ini"
HOME=$T/rec "$PERFSINK" record -p "$HPID" --duration 1s -e cpu-clock -F 999 --config "$T/c.ini" >"$T/rec.out" 2>"$T/rec.err"
check "record -p of the namespaced process, with the http sink" test $? = 0 || sed 's/^/# /' "$T/rec.err"
MAP=$(find "$ROOT/c" -path "*/jit/perf-$HPID.map")
check "its map is shipped as jit/perf-HOSTPID.map, byte for byte" bash -c "test -n '$MAP' && cmp -s '$MAP' '$T/ns.map'" ||
	{ find "$ROOT/c" | sed 's/^/# /'; sed 's/^/# /' "$T/rec.err"; }
check "nothing under the namespace pid's name" test -z "$(find "$ROOT/c" -path "*/jit/perf-$NSPID.map" ! -path "*/perf-$HPID.map")"
check "counted in the summary" grep -q " 1 JIT maps" "$T/rec.err"

# Another machine: the process is gone (perf report on this host would
# otherwise find the map through its namespaces), a fresh HOME.
kill -9 "$HPID" "$NS" 2>/dev/null
wait "$NS" 2>/dev/null
wait_for 20 test ! -e "/proc/$HPID/root/tmp" || { echo "Bail out! $HPID did not exit"; exit 1; }
H=$(ls "$ROOT/c" | grep -vx buildid)
S=$(ls "$ROOT/c/$H" | grep -v '\.end$' | head -n 1)
mkdir -p "$T/fresh"
HOME=$T/fresh "$PERFSINK" fetch -o "$T/f.data" "http://127.0.0.1:$P/c/$H/$S" >"$T/f.out" 2>"$T/f.err"
check "fetch with a fresh HOME" test $? = 0 || sed 's/^/# /' "$T/f.err"
check "places it at /tmp/perf-HOSTPID.map, byte for byte" cmp -s "/tmp/perf-$HPID.map" "$T/ns.map"
HOME=$T/fresh "$PERF" report -i "$T/f.data" --stdio --no-children --sort sym 2>/dev/null | grep '%' | grep -v '^#' > "$T/f.rep"
check "perf report of the fetched file names sym_jitted_function" grep -q '\[\.\] sym_jitted_function' "$T/f.rep" ||
	sed 's/^/# /' "$T/f.rep"
echo "# after fetch: $(awk '/sym_jitted_function/ {print $1}' "$T/f.rep") of the samples in sym_jitted_function"
rm -f "/tmp/perf-$HPID.map"
HOME=$T/fresh "$PERF" report -i "$T/f.data" --stdio --no-children --sort sym 2>/dev/null | grep '%' | grep -v '^#' > "$T/n.rep"
check "without it the JIT code is a bare address (the check can fail)" \
	bash -c "! grep -q sym_jitted_function '$T/n.rep' && grep -q '\[\.\] 0x0000' '$T/n.rep'" || sed 's/^/# /' "$T/n.rep"

# A container process gone long before the stream's end.
mkfifo "$T/go"
printf '[sink.net]\nplugin = http\nurl = http://127.0.0.1:%s/c2\nspool_dir = %s/spool2\n' "$P" "$T" > "$T/c2.ini"
HOME=$T/rec "$PERFSINK" record -e cpu-clock -F 999 --config "$T/c2.ini" -- bash -c "
	unshare -mpf --mount-proc sh -c 'mount -t tmpfs tmpfs /tmp && exec \"$B/sym_prog\" 2000 jit' >'$T/prog2.out' 2>&1
	read -t 120 line <'$T/go'" >"$T/rec2.out" 2>"$T/rec2.err" &
REC=$!
started() { HPID2=$(pgrep -xf "$B/sym_prog 2000 jit" | head -n 1); [ -n "$HPID2" ] && grep -q '^pid ' "$T/prog2.out"; }
wait_for 30 started || { echo "Bail out! the recorded namespaced program did not start"; cat "$T/prog2.out" "$T/rec2.err"; exit 1; }
NSPID2=$(sed -n 's/^pid //p' "$T/prog2.out")
cp "/proc/$HPID2/root/tmp/perf-$NSPID2.map" "$T/ns2.map"
check "the recorded container process writes its map in its private /tmp only" \
	bash -c "test -s '$T/ns2.map' && test ! -e '/tmp/perf-$NSPID2.map' && test ! -e '/tmp/perf-$HPID2.map'"
wait_for 60 test ! -e "/proc/$HPID2"
check "it exits while the recording goes on" bash -c "test ! -e '/proc/$HPID2' && kill -0 $REC"
echo go > "$T/go"
wait "$REC"
check "record of the command, with the http sink" test $? = 0 || sed 's/^/# /' "$T/rec2.err"
MAP2=$(find "$ROOT/c2" -path "*/jit/perf-$HPID2.map")
check "the gone process's map is shipped as jit/perf-HOSTPID.map, byte for byte" \
	bash -c "test -n '$MAP2' && cmp -s '$MAP2' '$T/ns2.map'" ||
	{ find "$ROOT/c2" | sed 's/^/# /'; sed 's/^/# /' "$T/rec2.err"; }
H2=$(ls "$ROOT/c2" | grep -vx buildid)
S2=$(ls "$ROOT/c2/$H2" | grep -v '\.end$' | head -n 1)
mkdir -p "$T/fresh2"
HOME=$T/fresh2 "$PERFSINK" fetch -o "$T/f2.data" "http://127.0.0.1:$P/c2/$H2/$S2" >"$T/f2.out" 2>"$T/f2.err"
check "fetch with a fresh HOME" test $? = 0 || sed 's/^/# /' "$T/f2.err"
HOME=$T/fresh2 "$PERF" report -i "$T/f2.data" --stdio --no-children --sort sym 2>/dev/null | grep '%' | grep -v '^#' > "$T/f2.rep"
check "perf report of the fetched file names sym_jitted_function of the gone process" \
	grep -q '\[\.\] sym_jitted_function' "$T/f2.rep" || sed 's/^/# /' "$T/f2.rep"
exit $tap_fail
