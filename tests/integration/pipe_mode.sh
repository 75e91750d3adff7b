#!/bin/sh
# -o -: perf's pipe format on standard output, read by the real perf from
# its standard input (perf script, perf report, perf inject), as with
# perf record -o -.
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
plan 21
cd "$T"

"$PERFSINK" record -F 999 -g -o - -- "$WORKLOAD" cpu 500 2>rec.err | "$PERF" script -i - >script 2>script.err
check "perf script -i - reads the stream" grep -q 'hot_alpha' script || show script.err rec.err
check "with call chains through main" grep -q 'main' script
check "and nothing on its stderr" [ ! -s script.err ] || show script.err
check "no file named '-' is written" [ ! -e ./- ]
check "the summary went to stderr" grep -q 'perfsink record: Captured' rec.err || show rec.err

"$PERFSINK" record -q -o - -- "$WORKLOAD" cpu 500 | "$PERF" report -i - --stdio --sort sym >report 2>report.err
check "perf report -i - names the hot functions" grep -q 'hot_beta' report || show report report.err

"$PERFSINK" record -q -o - -- "$WORKLOAD" cpu 500 | "$PERF" inject -i - -o injected.data 2>inject.err
check "perf inject -i - -o FILE succeeds" [ $? -eq 0 ] || show inject.err
check "and perf report reads its file" perf_clean injected.data || show injected.data.report.err
check "which names the workload's functions" grep -q 'hot_alpha' injected.data.report

# As perf record: no -o and no config, standard output a pipe: the stream
# goes there, and no perf.data is written.
mkdir auto && cd auto
"$PERFSINK" record -q -F 999 -- "$WORKLOAD" cpu 300 2>auto.err | "$PERF" script -i - >script 2>script.err
check "no -o, stdout a pipe: perf script -i - reads the stream" grep -q 'hot_alpha' script || show script.err auto.err
check "and no perf.data is written" [ ! -e perf.data ]
# A config names its outputs: they are kept.
printf '[sink.f]\nplugin = aio_file\npath = %s/auto/f.data\n' "$T" >f.ini
"$PERFSINK" record -q --config f.ini -- "$WORKLOAD" cpu 100 2>/dev/null | cat >cfg.out
check "with --config, stdout a pipe: the config's file is written" perf_clean f.data
cd ..

# The workload's output must not corrupt the stream: it goes to stderr, as
# perf record sends it there in pipe mode.
# (The marker is made by the shell: the command line itself is in the header.)
"$PERFSINK" record -q -o - -- sh -c 'echo "marker-$((6 * 7))"' >stream 2>wl.err
check "the stream begins with perf's magic" [ "$(head -c 8 stream)" = PERFILE2 ]
check "the workload's stdout is not in it" fails grep -q marker-42 stream
check "but on stderr" grep -q marker-42 wl.err || show wl.err

# The reader goes away: the recording ends at once with one message and
# the status a shell shows for a process SIGPIPE killed (perf record's).
( "$PERFSINK" record -o - -- "$WORKLOAD" cpu 60000 2>epipe.err; echo $? >epipe.status ) | head -c 100 >/dev/null
check "a closed pipe ends the recording with status 141" [ "$(cat epipe.status)" = 141 ] || show epipe.status epipe.err
check "and says so in one line" [ "$(grep -c 'closed the pipe' epipe.err)" = 1 ] || show epipe.err

if command -v script >/dev/null 2>&1; then
	script -qec "\"$PERFSINK\" record -o - -- true" /dev/null >tty.out 2>&1
	check "a terminal on stdout is refused (status 2)" [ $? -eq 2 ] || show tty.out
	check "saying why" grep -q 'is a terminal' tty.out || show tty.out
else
	skip "no script(1) to give perfsink a terminal"
	skip "no script(1) to give perfsink a terminal"
fi

"$PERFSINK" record -o - --switch-output=1s -- true >/dev/null 2>rot.err
check "--switch-output with -o - is refused (status 2)" [ $? -eq 2 ]
check "saying why" grep -q 'one pipe-mode stream' rot.err || show rot.err
done_testing
