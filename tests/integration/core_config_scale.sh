#!/bin/sh
# A config of 100000 [sink.*] sections is read in linear time and refused
# by the sink limit (64) in one line.  Linear means 100 times the sections
# take about 100 times as long; the check allows 300 (a quadratic reader
# took 10000 times as long), and compares two runs of this machine, never
# an absolute time.
. "$TESTS_SRCDIR/lib/lib.sh"
plan 5
cd "$T"
sections() { # N FILE
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++)
		printf "[sink.s%d]\nplugin = aio_file\npath = outdir/s%d.data\n", i, i }' >"$2"
}
sections 1000 small.ini
sections 100000 big.ini
now_us() { echo $(($(date +%s%N) / 1000)); }
# best of 3 runs, in microseconds: the least disturbed by other load
best_us() { # CONFIG
	_best=0
	for _i in 1 2 3; do
		_t0=$(now_us)
		"$PERFSINK" record --config "$1" -- true >/dev/null 2>err.run
		_t=$(($(now_us) - _t0))
		[ $_best -eq 0 ] || [ $_t -lt $_best ] && _best=$_t
	done
	echo $_best
}
mkdir outdir
"$PERFSINK" record --config big.ini -- true >/dev/null 2>err
rc=$?
check "100000 sections: exit 2 (got $rc)" [ $rc -eq 2 ]
check "one line" [ "$(wc -l <err)" -eq 1 ] || show err
check "it names the limit and the first section over it" \
	grep -q '^perfsink: error: big.ini:193: \[sink.s64\]: too many sinks: 100000 \[sink.NAME\] sections, at most 64$' err ||
	show err
check "no output file was created" [ -z "$(ls outdir)" ]
small=$(best_us small.ini)
big=$(best_us big.ini)
diag "1000 sections: $small us, 100000 sections: $big us, ratio $((big / small))"
check "100 times the sections take less than 300 times as long" [ $((big / small)) -lt 300 ]
done_testing
