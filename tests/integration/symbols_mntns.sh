#!/bin/bash
# A program run in a private mount namespace (a container) symbolizes as
# the program that ran, not as whatever the host has at its path.  The
# namespace bind-mounts the test program (sym_prog, built here) over a
# decoy: another build of it whose functions are named decoy_*, with
# another build-id.  perfsink records it from outside the namespace,
# fanned out to aio_file and the http sink (nginx on loopback):
#  - the build-id cache (a temporary HOME) gets the file the process
#    mapped, under the name it mapped and its own build-id, so perf report
#    of the aio_file copy on this host names sym_alpha_work/sym_beta_work;
#  - the http sink ships that file (the host's file at the path has
#    another build-id: it is read from the build-id cache), so with a
#    fresh HOME `perfsink fetch` and perf report name the same functions;
#  - `perfsink archive` of the aio_file copy holds it too.
. "$TESTS_SRCDIR/lib/http_lib.sh"
[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root (perf_event_open, unshare -m)"; exit 0; }
command -v nginx >/dev/null || { echo "1..0 # SKIP nginx not installed"; exit 0; }
command -v cc >/dev/null || { echo "1..0 # SKIP no C compiler to build the test program"; exit 0; }
command -v unshare >/dev/null && unshare -m true 2>/dev/null || { echo "1..0 # SKIP unshare -m not allowed here"; exit 0; }

T=$(mktemp -d /tmp/symbols_mntns.XXXXXX)
trap 'nginx_stop; rm -rf "$T"' EXIT
echo "1..13"

P=$(free_port)
URL=http://127.0.0.1:$P
NGINX_EXTRA="autoindex on; autoindex_format json;"
have_dav_ext && NGINX_EXTRA=$NGINX_LISTING
nginx_conf "$T/ng" "$P"
nginx_start "$T/ng" || { echo "Bail out! nginx did not start"; exit 1; }
ROOT=$T/ng/root

mkdir "$T/bin" "$T/rec" "$T/fresh" "$T/unpack"
cc -O1 -g -Wl,--build-id -o "$T/bin/real" "$TESTS_SRCDIR/integration/sym_prog.c" &&
	cc -O1 -g -Wl,--build-id -Dsym_alpha_work=decoy_alpha_work -Dsym_beta_work=decoy_beta_work \
		-o "$T/bin/prog" "$TESTS_SRCDIR/integration/sym_prog.c" ||
	{ echo "Bail out! cannot build sym_prog"; exit 1; }
elf_id() { LC_ALL=C readelf -n "$1" | awk '/Build ID/ { print $3 }'; }
ID=$(elf_id "$T/bin/real")
DECOY_ID=$(elf_id "$T/bin/prog")
echo "# the program that runs: $ID; the host's file at its path: $DECOY_ID"

{
	printf '[sink.local]\nplugin = aio_file\npath = %s/local.data\n' "$T"
	printf '[sink.net]\nplugin = http\nurl = %s/c\nspool_dir = %s/spool\n' "$URL" "$T"
} > "$T/c.ini"
# unshare execs sh, which mounts and execs the program: the MMAP2 of its
# text names $T/bin/prog, as that namespace sees it.
HOME=$T/rec "$PERFSINK" record -e cpu-clock -F 999 -g --config "$T/c.ini" -- \
	unshare -m sh -c "mount --bind '$T/bin/real' '$T/bin/prog' && exec '$T/bin/prog' 500" \
	>"$T/rec.out" 2>"$T/rec.err"
check "record of a program in another mount namespace, to aio_file and http" test $? = 0 ||
	sed 's/^/# /' "$T/rec.err"
check "BUILD_ID gives the path as recorded with the build-id of the file that ran" \
	grep -qx "$ID $T/bin/prog" <("$PERF" buildid-list -i "$T/local.data" 2>/dev/null)

C=$T/rec/.debug
check "the build-id cache has the file that ran, under its path and build-id" \
	cmp -s "$C$T/bin/prog/$ID/elf" "$T/bin/real"
check "and the .build-id link to it" cmp -s "$C/.build-id/${ID:0:2}/${ID:2}/elf" "$T/bin/real"
check "nothing is cached under the host file's build-id for that path" test ! -e "$C$T/bin/prog/$DECOY_ID"

report() { # report FILE HOME: the program's samples by dso and symbol
	HOME=$2 "$PERF" report -i "$1" --stdio --no-children -g none --sort comm,dso,sym 2>/dev/null |
		grep '%' | grep -v '^# (Tip:' | awk '$2 == "prog" && $3 == "prog"'
}
report "$T/local.data" "$T/rec" > "$T/here.txt"
named() { grep -q "\] sym_alpha_work" "$1" && grep -q "\] sym_beta_work" "$1" && ! grep -q decoy_ "$1"; }
check "perf report here names the program's own functions (dso: the path's name)" named "$T/here.txt" ||
	sed 's/^/# /' "$T/here.txt"

check "the collector has buildid/<id>/executable: the file that ran, byte for byte" \
	cmp -s "$ROOT/c/buildid/$ID/executable" "$T/bin/real" || sed 's/^/# /' "$T/rec.err"
check "and nothing under the host file's build-id" test ! -e "$ROOT/c/buildid/$DECOY_ID"
sed -n 's/.*\(symbols: [0-9]* files shipped ([0-9]* bytes\).*/# \1)/p' "$T/rec.err"

# symbols_max holds for the file the process mapped, not the host's file at
# its path: a decoy grown past the cap keeps nothing back.
truncate -s +3M "$T/bin/prog"
sed -e "s|/c$|/c2|" -e '$a symbols_max = 1M' "$T/c.ini" | grep -v '^\[sink.local\]\|^plugin = aio_file\|^path = ' > "$T/c2.ini"
HOME=$T/rec "$PERFSINK" record -e cpu-clock -F 999 -g --config "$T/c2.ini" -- \
	unshare -m sh -c "mount --bind '$T/bin/real' '$T/bin/prog' && exec '$T/bin/prog' 300" \
	>"$T/rec2.out" 2>"$T/rec2.err"
check "symbols_max 1M, host file at the path 3M bigger: the file that ran ($(stat -c %s "$T/bin/real") bytes) is shipped" \
	cmp -s "$ROOT/c2/buildid/$ID/executable" "$T/bin/real" || sed 's/^/# /' "$T/c2.ini" "$T/rec2.err"

# Another machine: a fresh HOME, the decoy still at the path, no real binary.
rm "$T/bin/real"
HOST=$(ls "$ROOT/c" | grep -vx buildid)
S=$(ls "$ROOT/c/$HOST" | grep -v '\.end$' | head -n 1)
HOME=$T/fresh "$PERFSINK" fetch -o "$T/fetched.data" "$URL/c/$HOST/$S" >"$T/fetch.out" 2>"$T/fetch.err"
check "fetch of the session with a fresh HOME" test $? = 0 || sed 's/^/# /' "$T/fetch.err"
report "$T/fetched.data" "$T/fresh" > "$T/there.txt"
check "perf report after fetch names the same functions, the same way" \
	bash -c "$(declare -f named); named '$T/there.txt' && diff -q '$T/here.txt' '$T/there.txt' >/dev/null" ||
	diff "$T/here.txt" "$T/there.txt" | head -n 8 | sed 's/^/# /'

# perfsink archive on the recording host (its ~/.debug), unpacked on a fresh HOME.
HOME=$T/rec "$PERFSINK" archive "$T/local.data" >"$T/arch.out" 2>"$T/arch.err"
mkdir -p "$T/unpack/.debug"
check "perfsink archive holds the file that ran" \
	bash -c "tar -I zstd -xf '$T/local.data.symbols.tar.zst' -C '$T/unpack/.debug' &&
		cmp -s '$T/unpack/.debug/.build-id/${ID:0:2}/${ID:2}/elf' '$C$T/bin/prog/$ID/elf'" ||
	sed 's/^/# /' "$T/arch.out" "$T/arch.err"
report "$T/local.data" "$T/unpack" > "$T/unpacked.txt"
check "and symbolizes as on the recording host" \
	bash -c "$(declare -f named); named '$T/unpacked.txt' && diff -q '$T/here.txt' '$T/unpacked.txt' >/dev/null" ||
	diff "$T/here.txt" "$T/unpacked.txt" | head -n 8 | sed 's/^/# /'
exit $tap_fail
