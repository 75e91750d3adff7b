#!/bin/sh
# --call-graph dwarf must unwind: the share of samples whose chain reaches
# main, for perfsink and for perf record on the same binary.  The workload is
# linked with Debian's default separate code (-z separate-code): its
# .eh_frame_hdr sits in a read-only, non-exec mapping that the unwinder only
# finds through MMAP2 records for data maps (attr mmap_data, and synthesized
# ones for a process that already runs: -p).
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
plan 7
cd "$T"

# Share (percent) of samples in $1 whose callchain names main; total in $2.
main_share() {
	"$PERF" script -i "$1" 2>/dev/null | awk -v out="$2" 'BEGIN { RS = "" }
		{ n++; if ($0 ~ /[ \t]main(\+0x[0-9a-f]+)? \(/) m++ }
		END { print n + 0 > out; if (n) printf "%d\n", 100 * m / n; else print 0 }'
}

"$PERF" record -q -F 999 --call-graph dwarf -o perf.data -- "$WORKLOAD" cpu 1000 >/dev/null 2>perf.err
"$PERFSINK" record -F 999 --call-graph dwarf -o sink.data -- "$WORKLOAD" cpu 1000 >/dev/null 2>sink.err
p=$(main_share perf.data perf.n)
s=$(main_share sink.data sink.n)
diag "samples reaching main: perf record $p % of $(cat perf.n), perfsink $s % of $(cat sink.n)"
check "perfsink's dwarf samples unwind to main (>= 95 %)" [ "$s" -ge 95 ] ||
	{ show sink.err; "$PERF" script -v -i sink.data 2>&1 | grep -m 3 'no map' | sed 's/^/# /'; }
check "as many as perf record's (within 5 points)" [ "$s" -ge $((p - 5)) ]
check "the attr has mmap_data, as perf's does" \
	sh -c "'$PERF' evlist -v -i sink.data 2>/dev/null | grep -q 'mmap_data: 1'"
"$PERF" buildid-list -i perf.data 2>/dev/null | grep ' \[vdso\]$' >vdso.perf
"$PERF" buildid-list -i sink.data 2>/dev/null | grep ' \[vdso\]$' >vdso.sink
check "BUILD_ID has [vdso] with perf record's id" \
	sh -c '[ -s vdso.perf ] && cmp -s vdso.perf vdso.sink' || show vdso.perf vdso.sink

# A copy too small for the stack: with -v the summary counts the samples
# that filled it.  (How many fill the default 8 KiB depends on the
# environment and on ASLR's gap at the stack top, so nothing is asserted
# about it.)
"$PERFSINK" record -v -F 999 --call-graph dwarf,64 -o small.data -- "$WORKLOAD" cpu 300 >/dev/null 2>small.err
check "the summary counts DWARF stacks cut at the size limit" \
	grep -q "samples ([0-9.]*%) filled the 64-byte DWARF stack copy.*dwarf,256" small.err || show small.err

# -p: the maps of a running process come from /proc, data maps included.
# Runs until the test ends (cleanup_hook kills it); -p once it has exec'd.
cleanup_hook() { kill "$busy" 2>/dev/null; }
"$WORKLOAD" cpu 120000 >/dev/null & busy=$!
wait_for 10 sh -c "readlink /proc/$busy/exe | grep -q workload"
"$PERFSINK" record -q -F 999 --call-graph dwarf -p "$busy" --duration 1 -o pid.data >/dev/null 2>pid.err
kill "$busy" 2>/dev/null; wait "$busy" 2>/dev/null
s=$(main_share pid.data pid.n)
diag "-p: samples reaching main: perfsink $s % of $(cat pid.n)"
check "-p: synthesized data maps are there (MMAP2 with MMAP_DATA)" \
	sh -c "'$PERF' script -i pid.data --show-mmap-events 2>/dev/null | grep -q 'MMAP2.*r--p.*workload'"
check "-p: perfsink's dwarf samples unwind to main (>= 95 %)" [ "$s" -ge 95 ] || show pid.err
done_testing
