#!/bin/sh
# kill -9 at random moments: every output of every sink is then read by
# perf directly or repaired by perfsink recover, and keeps all but the last
# second of the recording.  Scenarios (aio_file and zstd side by side in each
# run, so one kill hits both; aio_file also with direct = true, and uring_file
# (O_DIRECT) where io_uring works): plain files, size rotation, flight recorder
# (--overwrite, SIGUSR2 dumps).  RECOVER_SEED repeats a run's kill points,
# RECOVER_TRIALS sets the trials per scenario (default 10).
#
# What "kept" means, independent of machine speed: cpu-clock sampled every
# 1 ms of the workload's CPU time (-c 1000000) gives one sample per CPU ms,
# which a clean run confirms.  The kill comes once the workload has used a
# random amount of CPU (its /proc schedstat, read just before the kill), and
# the outputs must then hold at least that many samples minus 1000 (1 s).
# The thresholds lie between 1.1 s (so the bound is never empty) and 2.2 s.
# Rotation at 64K cuts about every 0.5 s of the workload's CPU here, so a
# kill finds segments finished before it (at 256K most kills came before
# the first cut).
. "$TESTS_SRCDIR/lib/lib.sh"
. "$TESTS_SRCDIR/lib/sinks.sh"
need_root
TRIALS=${RECOVER_TRIALS:-10}
SEED=${RECOVER_SEED:-$(date +%s)}
plan 10
diag "seed $SEED ($TRIALS trials per scenario; RECOVER_SEED=$SEED repeats the kill points)"
cd "$T"

# perf_reads FILE: perf report exits 0 and says nothing on stderr but its
# warning that the kernel lost events (a LOST record is data, not damage:
# a loaded machine or an overwritten flight-recorder ring gives them).
perf_reads() {
	"$PERF" report -i "$1" --stdio >"$1.report" 2>"$1.report.err" || return 1
	! grep -v -e '^Warning:$' -e '^$' -e 'Processed [0-9]* events and lost [0-9]* chunks!' \
		-e 'Processed [0-9]* samples and lost' -e 'Check IO/CPU overload!' "$1.report.err" | grep -q .
}
# ms of CPU the process has used.
cpu_ms() { awk '{print int($1 / 1000000)}' "/proc/$1/schedstat" 2>/dev/null || echo 0; }
cpu_above() { [ "$(cpu_ms "$1")" -ge "$2" ]; }
# Random kill thresholds: TRIALS lines "ms dumps now" from the seed.
points() {
	awk -v s="$1" -v n="$TRIALS" 'BEGIN { srand(s); for (i = 0; i < n; i++)
		printf "%d %d %d\n", 1100 + int(rand() * 1100), 1 + int(rand() * 2), rand() < 0.3 }'
}
# perf script reads it with nothing on stderr (a report of an empty file
# always says "no samples" on stderr, even for perf record's own).
script_clean() { "$PERF" script -i "$1" >/dev/null 2>"$1.script.err" && [ ! -s "$1.script.err" ]; }

write_ini() {
	cat >"$1.ini" <<INI
[record]
call-graph = fp
$2

[sink.a]
plugin = aio_file
path = $T/run/a.data

[sink.z]
plugin = zstd
path = $T/run/z.data

[sink.d]
plugin = aio_file
path = $T/run/d.data
direct = true
$URING_INI
INI
}
# uring_file beside them where it was built and io_uring works here.
SINKS="a z d"
URING_INI=
if sink_built uring_file; then
	SINKS="a z d u"
	URING_INI="[sink.u]
plugin = uring_file
path = $T/run/u.data"
fi
write_ini plain ""
write_ini rotate "switch-output = 64K"
write_ini flight "overwrite = true
mmap-pages = 16K"

# Baseline: the sampling model the kept-data checks rest on.
mkdir run
"$PERFSINK" record -q --config plain.ini -c 1000000 -- "$WORKLOAD" cpu 1500 >/dev/null 2>err
base=$(perf_samples run/a.data)
basez=$(perf_samples run/z.data)
check "a clean run keeps one sample per ms of CPU (1500 ms: aio_file $base, zstd $basez)" \
	[ "$base" -ge 1350 -a "$base" -le 1650 -a "$basez" -eq "$base" ] || show err

# start_run SCENARIO: perfsink in the background ($pid), its workload ($w).
start_run() {
	rm -rf run
	mkdir run
	"$PERFSINK" record -q --config "$1.ini" -c 1000000 -- "$WORKLOAD" cpu 600000 >/dev/null 2>run/err &
	pid=$!
	wait_for 20 child_of $pid
}
kill_run() {
	at=$(cpu_ms "$w")
	kill -9 $pid
	wait $pid 2>/dev/null
	kill -9 "$w" 2>/dev/null
}

# check_output FILE [READ]: readable directly (counted), else repaired;
# afterwards perf reads it cleanly.  READ: perf_reads' status when the caller
# has read FILE already; a file recover leaves alone is not read again (perf
# report was most of this test's CPU).  Adds to direct, repaired, bad; kept
# += samples.
check_output() {
	files=$((files + 1))
	rd=${2:-}
	[ -n "$rd" ] || { perf_reads "$1"; rd=$?; }
	[ "$rd" = 0 ] && direct=$((direct + 1))
	if ! "$PERFSINK" recover "$1" >"$1.rec" 2>&1; then
		bad=$((bad + 1))
		show "$1.rec"
		return
	fi
	if grep -q ': repaired' "$1.rec"; then
		repaired=$((repaired + 1))
		perf_reads "$1"
		rd=$?
	fi
	n=$(perf_samples "$1")
	kept=$((kept + n))
	if [ "$rd" != 0 ] && ! { [ "$n" -eq 0 ] && script_clean "$1"; }; then
		bad=$((bad + 1))
		diag "$1 unreadable after recover"
		show "$1.rec" "$1.report.err"
	fi
}

# sink_line NAME FILES DIRECT REPAIRED KEPT WANTED WORST: the figures of one sink.
sink_line() {
	diag "$1: $TRIALS kills, $2 outputs: $3 read by perf directly, $4 repaired by recover (the rest complete)," \
	     "   $5 of $6 samples kept ($(awk -v k="$5" -v w="$6" 'BEGIN { printf "%.1f", w ? 100 * k / w : 0 }') %), at most $7 ms missing"
}

# Plain files and size rotation: the kept-data bound per sink.
k=0
for scen in plain rotate; do
	k=$((k + 1))
	i=0 allbad=0 early=0
	for s in a z d u; do eval "f_$s=0 d_$s=0 r_$s=0 k_$s=0 w_$s=0 m_$s=0"; done
	points "$((SEED + k))" >pts
	while read -r ms _ _; do
		i=$((i + 1))
		start_run $scen
		wait_for 120 cpu_above "$w" "$ms"
		kill_run
		diag "$scen trial $i: kill -9 at $at ms of workload CPU (threshold $ms)"
		for s in $SINKS; do
			# Listed before perf_reads adds its .report files beside them.
			outs=run/$s.data
			[ $scen = rotate ] && outs=$(ls run/$s.data.*)
			newest=$(echo "$outs" | tail -n 1)
			files=0 direct=0 repaired=0 bad=0 kept=0
			for o in $outs; do
				# Segments finished before the kill must need no repair.
				rd=""
				if [ "$o" != "$newest" ]; then
					perf_reads "$o"
					rd=$?
					[ "$rd" = 0 ] || { early=$((early + 1)); show "$o.report.err"; }
				fi
				check_output "$o" "$rd"
			done
			miss=$((at - kept))
			[ "$miss" -gt 1000 ] && diag "$s: only $kept samples of $at ms"
			allbad=$((allbad + bad))
			eval "f_$s=\$((f_$s + files)) d_$s=\$((d_$s + direct)) r_$s=\$((r_$s + repaired))"
			eval "k_$s=\$((k_$s + kept)) w_$s=\$((w_$s + at))"
			eval "[ $miss -gt \$m_$s ] && m_$s=$miss"
		done
	done <pts
	check "$scen: after $TRIALS kills every output reads clean, directly or after recover" \
		[ $allbad -eq 0 ]
	if [ $scen = rotate ]; then
		check "rotate: every segment finished before the kill reads directly" [ $early -eq 0 ]
	fi
	sink_line "$scen aio_file" $f_a $d_a $r_a $k_a $w_a $m_a
	sink_line "$scen zstd" $f_z $d_z $r_z $k_z $w_z $m_z
	sink_line "$scen aio_file direct" $f_d $d_d $r_d $k_d $w_d $m_d
	[ -z "$URING_INI" ] || sink_line "$scen uring_file" $f_u $d_u $r_u $k_u $w_u $m_u
	check "$scen aio_file, uring_file: each kill loses at most 1 s (worst $m_a ms, direct = true $m_d ms, uring_file $m_u ms)" \
		[ $m_a -le 1000 -a $m_d -le 1000 -a $m_u -le 1000 ]
	check "$scen zstd: each kill loses at most 1 s (worst $m_z ms)" [ $m_z -le 1000 ]
done

# Flight recorder: DUMPS SIGUSR2 dumps, each awaited, then the kill at
# once (inside the last dump) or after more CPU.  Every dump finished
# before the kill reads directly and holds samples; the output being
# filled at the kill is repaired.
i=0 allbad=0 early=0 empty=0
for s in a z d u; do eval "f_$s=0 d_$s=0 r_$s=0"; done
points "$((SEED + 3))" >pts
while read -r ms dumps now; do
	i=$((i + 1))
	start_run flight
	wait_for 120 cpu_above "$w" 300
	j=0
	while [ $j -lt "$dumps" ]; do
		j=$((j + 1))
		kill -USR2 $pid
		[ $j -eq "$dumps" ] && [ "$now" = 1 ] && break
		wait_for 60 outputs_with_data 'run/a.data.*' $j
		wait_for 60 outputs_with_data 'run/z.data.*' $j
		wait_for 60 outputs_with_data 'run/d.data.*' $j
		[ -z "$URING_INI" ] || wait_for 60 outputs_with_data 'run/u.data.*' $j
	done
	[ "$now" = 1 ] || wait_for 120 cpu_above "$w" "$((ms - 1000 + $(cpu_ms "$w")))"
	kill_run
	diag "flight trial $i: $dumps SIGUSR2, kill -9 $([ "$now" = 1 ] && echo 'right after the last one' || echo "$((ms - 1000)) ms of CPU after it") (at $at ms)"
	for s in $SINKS; do
		outs=$(ls run/$s.data.* 2>/dev/null)
		newest=$(echo "$outs" | tail -n 1)
		files=0 direct=0 repaired=0 bad=0 kept=0
		for o in $outs; do
			rd=""
			if [ "$o" != "$newest" ]; then
				perf_reads "$o"
				rd=$?
				{ [ "$rd" = 0 ] && [ "$(perf_samples "$o")" -gt 0 ]; } || { early=$((early + 1)); show "$o.report.err"; }
			fi
			check_output "$o" "$rd"
		done
		allbad=$((allbad + bad))
		eval "f_$s=\$((f_$s + files)) d_$s=\$((d_$s + direct)) r_$s=\$((r_$s + repaired))"
	done
done <pts
check "flight: after $TRIALS kills every output reads clean, directly or after recover" [ $allbad -eq 0 ]
check "flight: every dump finished before the kill reads directly and holds samples" [ $early -eq 0 ]
diag "flight aio_file: $TRIALS kills, $f_a outputs: $d_a read by perf directly, $r_a repaired by recover (the rest complete)"
diag "flight zstd: $TRIALS kills, $f_z outputs: $d_z read by perf directly, $r_z repaired by recover (the rest complete)"
diag "flight aio_file direct: $TRIALS kills, $f_d outputs: $d_d read by perf directly, $r_d repaired by recover (the rest complete)"
[ -z "$URING_INI" ] || diag "flight uring_file: $TRIALS kills, $f_u outputs: $d_u read by perf directly, $r_u repaired by recover (the rest complete)"
done_testing
