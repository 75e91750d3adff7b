#!/bin/sh
# perfsink recover against damaged recordings (issue 27, item 16).  The
# seeded fuzzer (integration/recover_fuzz.c) mutates the real perfsink and
# perf recordings of fuzz/recover/ for a few seconds (bit flips,
# truncations, header and attr fields, feature index entries and the
# counts inside feature sections, record sizes and types, chunks deleted
# or doubled) and runs recover on each mutant in a child:
#   - no mutant crashes recover, trips a sanitizer or hangs it;
#   - what recover calls complete or repaired, the real perf reads: perf
#     report --stats and perf script exit 0 and report no error, for the
#     first RECOVER_FUZZ_KEEP of each kind (perf is slow; the fuzzer keeps
#     only complete mutants that differ from their seed);
#   - the corpus itself is complete for recover, and perf reads it.
# The seed is printed.  RECOVER_FUZZ_SEED, RECOVER_FUZZ_SECONDS and
# RECOVER_FUZZ_KEEP change the run; `recover_fuzz --one fuzz/recover SEED
# I OUT` writes mutant I again.
. "$TESTS_SRCDIR/lib/lib.sh"
FUZZ=${RECOVER_FUZZ:-$TESTS_BUILDDIR/integration/recover_fuzz}
CORPUS="$TESTS_SRCDIR/fuzz/recover"
SEED=${RECOVER_FUZZ_SEED:-27}
SECONDS_=${RECOVER_FUZZ_SECONDS:-4}
KEEP=${RECOVER_FUZZ_KEEP:-5}
# A recover's output is fsynced: on tmpfs that costs nothing, so the few
# seconds go to mutants.
W=$(mktemp -d /dev/shm/perfsink-fuzz.XXXXXX 2>/dev/null) || W=$(mktemp -d "$T/fuzz.XXXXXX")
cleanup_hook() { rm -rf "$W"; }
plan $((2 + 2 * KEEP))

# perf_reads FILE: perf report --stats and perf script read FILE: exit 0,
# nothing on stderr that says it could not (warnings about lost events, or
# the proc map budget of the recording, are not that).
perf_reads() {
	"$PERF" report --stats -i "$1" >"$1.stats" 2>"$1.err" &&
		"$PERF" script -i "$1" >"$1.script" 2>>"$1.err" || return 1
	perf_stderr_rest "$1.err"
	! grep -Eiq "error|failed|can't|couldn't|smash|incompatible|unknown|abort|fault" "$1.err.rest"
}

bad=
for f in "$CORPUS"/*.data; do
	"$PERFSINK" recover -o "$W/seed.data" "$f" >"$W/out" 2>&1 &&
		grep -q "complete, copied unchanged" "$W/out" && perf_reads "$W/seed.data" ||
		{ bad="$bad ${f##*/}"; show "$W/out" "$W/seed.data.err"; }
done
check "every corpus file is complete for recover, and perf reads it" [ -z "$bad" ] || diag "not:$bad"

diag "recover_fuzz seed $SEED, $SECONDS_ s (replay: RECOVER_FUZZ_SEED=$SEED)"
"$FUZZ" "$CORPUS" "$W" "$SEED" "$SECONDS_" "$KEEP" >"$W/fuzz.log" 2>&1
rc=$?
diag "$(tail -n 1 "$W/fuzz.log")"
check "no mutant crashed recover, tripped a sanitizer or hung it (exit $rc)" [ $rc -eq 0 ] ||
	{ grep -E "^FAIL" "$W/fuzz.log" | sed 's/^/# /'; show "$W/fuzz.log"; }

for kind in complete repaired; do
	grep "^keep [0-9]* $kind " "$W/fuzz.log" >"$W/$kind.list"
	i=0
	while [ $i -lt "$KEEP" ]; do
		i=$((i + 1))
		line=$(sed -n "${i}p" "$W/$kind.list")
		if [ -z "$line" ]; then
			skip "fewer than $i $kind mutants in $SECONDS_ s"
			continue
		fi
		n=$(echo "$line" | cut -d' ' -f2)
		from=$(echo "$line" | cut -d'(' -f2 | tr -d ')')
		check "mutant $n ($kind, from $from): perf report --stats and perf script read it" \
			perf_reads "$W/ok-$n.data" ||
			{ show "$W/ok-$n.data.err"; diag "replay: recover_fuzz --one CORPUS $SEED $n OUT"; }
	done
done
done_testing
