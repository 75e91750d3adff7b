#!/bin/bash
# perfsink upload on a spool holding a 20 GB sparse part (issue 27, item
# 14): the part is larger than part_size plus 64 MiB, so it is quarantined
# without being read; a 40 MiB part (part_size 1M, within the slack) is
# checked and sent from its file, with memory that does not grow with it.
. "$TESTS_SRCDIR/lib/http_lib.sh"
command -v nginx >/dev/null || { echo "1..0 # SKIP nginx not installed"; exit 0; }

T=$(mktemp -d /tmp/hostile_upload.XXXXXX)
trap 'nginx_stop; rm -rf "$T"' EXIT
echo "1..7"

collector_start "$T/ng"
mkdir -p -m 0700 "$T/spool" "$T/spool/net" "$T/spool/net/h" "$T/spool/net/h/a" "$T/spool/net/h/b"
printf '[sink.net]\nplugin = http\nspool_dir = %s\nurl = http://127.0.0.1:%s/up\npart_size = 1M\n' \
	"$T/spool" "$P" > "$T/c.ini"
# upload NAME: perfsink upload, its peak RSS in T/NAME.rss, its exit status.
# A bound on address space: a build that reads a 20 GB part fails to
# allocate it instead of taking the machine's memory.  ASan maps terabytes
# of shadow memory: the sanitizer build runs without the bound, and its
# peak RSS (shadow included) is not compared.
ASAN=
grep -q __asan_init "$PERFSINK" && ASAN=1
LIMIT="ulimit -v 4194304;"
[ -n "$ASAN" ] && LIMIT=
upload() {
	maxrss "$T/$1.rss" bash -c "$LIMIT exec '$PERFSINK' upload --deadline 30s --config '$T/c.ini'" \
		>"$T/$1.out" 2>"$T/$1.err"
}
small_rss() { [ -n "$ASAN" ] || [ "$(cat "$T/$1.rss")" -lt 32768 ]; } # small_rss NAME

A=$T/spool/net/h/a
make_stream "$A/0000000000"
python3 -c 'import struct, sys
rec = struct.pack("<IHH", 9, 0, 65528) + bytes(65520)
for i in range(640): sys.stdout.buffer.write(rec)' > "$A/0000000001"
cp "$A/0000000000" "$T/p0" && cp "$A/0000000001" "$T/p1"
upload a
check "a 40 MiB part (part_size 1M, within the slack): upload exits 0" test $? = 0 || sed 's/^/# /' "$T/a.err"
check "the part sent whole, from its file" cmp -s "$T/p1" "$ROOT/up/h/a/0000000001"
check "peak RSS $(cat "$T/a.rss") KiB: the part was never in memory (< 32 MiB${ASAN:+; not compared under ASan})" small_rss a

B=$T/spool/net/h/b
cp "$T/p0" "$B/0000000000"
truncate -s 20G "$B/0000000001"
t0=$SECONDS
upload b
check "a 20 GB sparse part: upload exits 1 (something was quarantined)" test $? = 1 || sed 's/^/# /' "$T/b.err"
check "the part is in quarantine, unread, named with why" \
	bash -c "[ \$(stat -c %s '$T/spool/quarantine/net/h/b/0000000001' 2>/dev/null) = $((20 << 30)) ] &&
		grep -q 'spool .*0000000001: 21474836480 bytes, more than a part can have (68157440: part_size plus 64 MiB): not read' '$T/b.err'" ||
	sed 's/^/# /' "$T/b.err"
check "and not sent; part 0 was" bash -c "! test -e '$ROOT/up/h/b/0000000001' && cmp -s '$T/p0' '$ROOT/up/h/b/0000000000'"
check "in $((SECONDS - t0)) s (< 20), peak RSS $(cat "$T/b.rss") KiB (< 32 MiB)" \
	bash -c "[ $((SECONDS - t0)) -lt 20 ] && { [ -n '$ASAN' ] || [ $(cat "$T/b.rss") -lt 32768 ]; }"
exit $tap_fail
