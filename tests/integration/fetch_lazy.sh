#!/bin/bash
# Issue 31 part 3, fetch side: `fetch --symbols=lazy` (the default) takes
# only the build-ids of the DSOs samples fell in, and none ~/.debug holds.
# A program maps a large ELF file it never runs (listed in BUILD_ID,
# shipped by the http sink to nginx) and spins in its own code: a lazy
# fetch into a fresh HOME pulls fewer bytes than --symbols=all, perf
# report still names as many samples (the program is moved away first,
# so only the fetched copy names it), and a second lazy fetch pulls 0.
. "$TESTS_SRCDIR/lib/http_lib.sh"
[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root (perf_event_open of a cpu-clock for the sink)"; exit 0; }
command -v nginx >/dev/null || { echo "1..0 # SKIP nginx not installed"; exit 0; }
command -v cc >/dev/null || { echo "1..0 # SKIP no C compiler to build the test program"; exit 0; }

T=$(mktemp -d /tmp/fetch_lazy.XXXXXX)
trap 'nginx_stop; rm -rf "$T"' EXIT
echo "1..7"
collector_start "$T/ng"
mkdir -p "$T/bin"
cat > "$T/spin.c" <<'EOC'
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
/* spin MS FILE...: map each FILE executable, never call it; spin MS ms. */
/* The loop is inside spin_here, so nearly every sample names it (a
 * one-multiply spin_here called from main's loop got 2 % of the samples,
 * and none at all in one CI run of 255). */
__attribute__((noinline)) static unsigned long spin_here(unsigned long x)
{
	volatile unsigned long v = x;
	for (int i = 0; i < 100000; i++)
		v = v * 2654435761u + 1;
	return v;
}
int main(int argc, char **argv)
{
	struct timespec t0, t;
	volatile unsigned long x = 1;
	for (int i = 2; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY);
		if (fd < 0 || mmap(0, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
			return 1;
		close(fd);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		x = spin_here(x);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < atol(argv[1]));
	return 0;
}
EOC
cc -O1 -g -Wl,--build-id -o "$T/bin/spin" "$T/spin.c" || { echo "Bail out! cannot build spin"; exit 1; }
cp "$PERFSINK" "$T/bin/big" # any large ELF file with a build-id
# symbols = all: the http sink ships every mapped file (not only the sampled
# ones, its default), so the collector holds one that lazy can leave out.
printf '[sink.net]\nplugin = http\nurl = http://127.0.0.1:%s/c\nspool_dir = %s/spool\nsymbols = all\n' "$P" "$T" > "$T/c.ini"
# On one CPU: this test is about fetch.  (A sample read from one CPU's
# ring before the program's MMAP in another's once left spin unmarked,
# twice under ASan on a loaded machine; such a sample now waits for its
# MMAP, probe/dso_pending.c, test_dso_pending.)
HOME=$T/rec "$PERFSINK" record -e cpu-clock -F 999 -g --config "$T/c.ini" -- taskset -c 0 "$T/bin/spin" 600 "$T/bin/big" \
	>"$T/rec.out" 2>"$T/rec.err"
SESS=$(one_session "$ROOT/c")
BIG=$(LC_ALL=C readelf -n "$T/bin/big" | awk '/Build ID/ { print $3 }')
check "the collector has the mapped, never run file (what lazy leaves out)" \
	test -n "$SESS" -a -s "$ROOT/c/buildid/$BIG/executable" || sed 's/^/# /' "$T/rec.err"
mv "$T/bin/spin" "$T/spin.moved"
URL=http://127.0.0.1:$P/c/$SESS
fetch() { # fetch NAME HOME [options]
	local name=$1 home=$2; shift 2
	HOME=$home "$PERFSINK" fetch "$@" -o "$T/$name.data" "$URL" >"$T/$name.out" 2>"$T/$name.err"
}
bytes() { sed -n 's/.*symbols: .* fetched (\([0-9]*\) bytes).*/\1/p' "$T/$1.err"; }
# unknown NAME HOME: the share (%) of samples perf report cannot name
unknown() {
	HOME=$2 "$PERF" report -i "$T/$1.data" --stdio --no-children -g none --sort dso,sym 2>/dev/null |
		awk '/%/ && /\[unknown\]|\[\.\] 0x/ { s += $1 } END { printf "%.2f\n", s }'
}
fetch all "$T/h_all" --symbols=all
fetch lazy "$T/h_lazy"
fetch again "$T/h_lazy"
A=$(bytes all) L=$(bytes lazy) G=$(bytes again)
echo "# symbol bytes fetched: --symbols=all $A, lazy $L, lazy again $G"
check "lazy (the default) fetches fewer bytes than --symbols=all" test "${L:-x}" -lt "${A:-0}" 2>/dev/null ||
	sed 's/^/# /' "$T/all.err" "$T/lazy.err"
check "and leaves the file no sample fell in" test ! -e "$T/h_lazy/.debug$T/bin/big" -a -e "$T/h_all/.debug$T/bin/big"
check "counting it as not needed, in one line" grep -q 'symbols: .* [1-9][0-9]* not needed' "$T/lazy.err"
UA=$(unknown all "$T/h_all") UL=$(unknown lazy "$T/h_lazy")
echo "# samples perf report cannot name: $UA% after --symbols=all, $UL% after lazy"
HOME=$T/h_lazy "$PERF" report -i "$T/lazy.data" --stdio --sort sym >"$T/lazy.rep" 2>"$T/lazy.rep.err"
check "perf report names as many samples (unknowns differ by less than 1%)" \
	bash -c "grep -q spin_here '$T/lazy.rep' && [ \"\$(echo '$UL - $UA < 1' | bc)\" = 1 ]" ||
	head -n 30 "$T/lazy.rep" "$T/lazy.rep.err" "$T/lazy.err" "$T/rec.err" | sed 's/^/# /'
check "a second lazy fetch fetches 0 bytes, the files already in ~/.debug" \
	bash -c "[ '$G' = 0 ] && grep -q 'symbols: 0 files, .* [1-9][0-9]* already there' '$T/again.err'" ||
	sed 's/^/# /' "$T/again.err"
fetch bad "$T/h_bad" --symbols=some
check "--symbols with another value is bad input (exit 2)" test $? = 2
exit $tap_fail
