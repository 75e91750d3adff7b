#!/bin/bash
# Build-ids of files mapped by a process in another mount namespace (a
# container) are those of the files that process sees, read through
# /proc/PID/root as perf does.  The namespace bind-mounts another directory
# over a directory, so the host's file there (a copy of true) and the
# namespace's (a copy of the workload) have different build-ids.  (A
# directory, not a file: /proc/PID/maps read from the host names a file
# bind-mounted in another namespace "/ (deleted)", and neither recorder can
# synthesize a usable map for it with -p.)
#  - a live process recorded with -p: the same build-id as perf record -p
#  - a workload that exits before the recording ends: still the
#    namespace's file (perfsink reads it when the map is first seen; perf
#    6.1 reads at the end and then gives the host file's id)
#  - in both, the build-id cache ($HOME/.debug) gets the namespace's file
#    under its build-id, not the host's file
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
command -v unshare >/dev/null && command -v readelf >/dev/null || skip_all "needs unshare and readelf"
unshare -m true 2>/dev/null || skip_all "unshare -m not allowed here"
plan 6
cd "$T"
export HOME=$T # perf's build-id cache stays in the test directory

mkdir host ns
cp /bin/true host/prog
cp "$WORKLOAD" ns/prog
elf_id() { readelf -n "$1" | awk '/Build ID/ { print $3 }'; }
host_id=$(elf_id host/prog)
ns_id=$(elf_id ns/prog)
diag "host file: $host_id, namespace file: $ns_id"
bid() { "$PERF" buildid-list -i "$1" 2>/dev/null | awk -v f="$T/host/prog" '$2 == f { print $1 }'; }

# A live process in its namespace, recorded by both with -p.
# unshare execs sh, which execs prog: $! is prog.
unshare -m sh -c "mount --bind '$T/ns' '$T/host' && exec '$T/host/prog' cpu 600000" >/dev/null 2>&1 &
NS=$!
cleanup_hook() { kill "$NS"; wait "$NS"; }
wait_for 10 sh -c '[ "$(cat /proc/$1/comm)" = prog ]' - "$NS" || diag "prog did not start"
"$PERF" record -q -p "$NS" -o perf.data -- sleep 1 >/dev/null 2>perf.err
rm -rf "$T/.debug" # what perf cached: perfsink's cache is checked below
"$PERFSINK" record -q -p "$NS" --duration 1 -o live.data >/dev/null 2>live.err
check "-p of a process in another mount namespace: BUILD_ID is its file's" \
	[ "$(bid live.data)" = "$ns_id" ] || { diag "got '$(bid live.data)'"; show live.err; }
check "... the same as perf record -p gives" [ "$(bid live.data)" = "$(bid perf.data)" -a -n "$(bid perf.data)" ] ||
	diag "perf: '$(bid perf.data)'"
cached() { cmp -s "$T/.debug/.build-id/${ns_id:0:2}/${ns_id:2}/elf" "$T/ns/prog"; }
check "... and the build-id cache has the namespace's file under that id" cached
kill "$NS"
wait "$NS"
cleanup_hook() { :; }
rm -rf "$T/.debug"

# A workload gone before the end.
"$PERFSINK" record -q -o exit.data -- unshare -m sh -c \
	"mount --bind '$T/ns' '$T/host' && exec '$T/host/prog' cpu 300" >/dev/null 2>exit.err
check "a workload in another mount namespace that exited: BUILD_ID is still its file's" \
	[ "$(bid exit.data)" = "$ns_id" ] || { diag "got '$(bid exit.data)'"; show exit.err; }
check "... and the build-id cache has that file" cached
# The host path itself, recorded from the host: the host file's id.
"$PERFSINK" record -q -o host.data -- "$T/host/prog" >/dev/null 2>host.err
check "the same path from the host namespace: the host file's" [ "$(bid host.data)" = "$host_id" ] ||
	diag "got '$(bid host.data)'"
done_testing
