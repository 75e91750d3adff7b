#!/bin/bash
# pprof and flamegraph run as perfsink-profile, so that `perfsink record`
# does not load libdw, libelf and protobuf-c: the program perfsink runs is
# the one beside its own file, checked as a plugin is (owner, modes, every
# directory above) before it is run from the descriptor that checked it.
. "$TESTS_SRCDIR/lib/lib.sh"
need_root
plan 6
cd "$T"
PROFILE=$(dirname "$PERFSINK")/perfsink-profile
ldd "$PERFSINK" >ldd 2>&1
check "perfsink itself links none of libdw, libelf, libprotobuf-c" \
	eval "grep -q libc.so ldd && ! grep -qE 'libdw|libelf|libprotobuf-c' ldd" || show ldd
check "perfsink-profile does" grep -q libdw <(ldd "$PROFILE")
"$PERFSINK" record -q -o rec.data -- "$WORKLOAD" cpu 200 >/dev/null 2>rec.err
"$PERFSINK" pprof -o out.pb.gz rec.data >pprof.out 2>&1
check "perfsink pprof converts through it (exit 0, a gzip profile)" \
	eval "[ $? = 0 ] && [ \"\$(head -c2 out.pb.gz | od -An -tx1 | tr -d ' ')\" = 1f8b ]" || show pprof.out rec.err
# A copy of perfsink with a perfsink-profile beside it that others may write.
mkdir -m 0755 bin
cp "$PERFSINK" "$PROFILE" bin/
chmod 0757 bin
bin/perfsink pprof --help >open.out 2>&1
rc=$?
check "beside a directory others may write: refused, exit 1, one line" \
	eval "[ $rc = 1 ] && [ \$(wc -l <open.out) = 1 ] &&
	      grep -q '^perfsink: error: cannot run perfsink-profile: .*bin/perfsink-profile: refusing plugin: directory .* is world-writable' open.out" ||
	show open.out
chmod 0755 bin && chmod 0646 bin/perfsink-profile
bin/perfsink flamegraph --help >w.out 2>&1
rc=$?
check "a perfsink-profile others may write: refused, exit 1" \
	eval "[ $rc = 1 ] && grep -q 'cannot run perfsink-profile: .*refusing a world-writable plugin' w.out" || show w.out
chmod 0755 bin/perfsink-profile
bin/perfsink flamegraph --help >ok.out 2>&1
check "trusted again: the copy beside it runs (flamegraph --help, exit 0)" \
	eval "[ $? = 0 ] && grep -q '^usage: perfsink flamegraph' ok.out" || show ok.out
done_testing
