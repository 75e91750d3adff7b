#!/bin/bash
# The http sink's spool as a hostile local user would leave it: a symlink
# to a secret, truncated and byte-flipped parts, odd names, a FIFO; and
# spool directories owned by another user, open to all, or symlinked.
# `perfsink upload` must send only the good parts (the collector's stream
# still reads) and the end marker of the run, set every bad entry aside in quarantine/ with a warning
# naming it, never send or delete it, and exit 1.
. "$TESTS_SRCDIR/lib/http_lib.sh"
command -v nginx >/dev/null || { echo "1..0 # SKIP nginx not installed"; exit 0; }

T=$(mktemp -d /tmp/http_spool.XXXXXX)
trap 'nginx_stop; rm -rf "$T"' EXIT
echo "1..20"

P=$(free_port)
nginx_conf "$T/ng" "$P"
WORKLOAD=$TESTS_BUILDDIR/integration/workload

config() { # config FILE SPOOL_DIR URL
	printf '[sink.net]\nplugin = http\nspool_dir = %s\nurl = %s\npart_size = 4K\n' "$2" "$3" > "$1"
	printf 'drain_timeout = 1s\nbackoff_base = 100ms\n' >> "$1"
}

# A spool with many parts: record while nothing listens.
config "$T/c.ini" "$T/spool" "http://127.0.0.1:$P/up"
(cd "$T" && "$PERFSINK" record -e cpu-clock -F 999 -g --config c.ini -- "$WORKLOAD" cpu 1000 \
	>"$T/rec.out" 2>"$T/rec.err")
SESS=$(dirname "$(find "$T/spool/net" -type f -name 0000000000)")
mapfile -t PARTS < <(find "$SESS" -type f -name '[0-9]*' | sort)
[ "${#PARTS[@]}" -ge 5 ] || { echo "Bail out! only ${#PARTS[@]} parts spooled"; exit 1; }
REL=${SESS#"$T/spool/net/"}
Q=$T/spool/quarantine/net/$REL

# The attack: every kind of bad entry a part name can hold.
echo "TOPSECRET-$$-$RANDOM" > "$T/secret"
SECRET=$(cat "$T/secret")
ln -s "$T/secret" "$SESS/0000000900"
mkfifo "$SESS/0000000901"
for odd in abc -000000001 12345678901234567890; do cp "${PARTS[3]}" "$SESS/$odd"; done
truncate -s -5 "${PARTS[1]}"
# The size of the first record becomes larger than the part.
python3 -c 'import sys; f=open(sys.argv[1],"r+b"); f.seek(7); f.write(b"\xff")' "${PARTS[2]}"
bad_bytes=$(( $(stat -c %s "${PARTS[1]}") + $(stat -c %s "${PARTS[2]}") + 3 * $(stat -c %s "${PARTS[3]}") ))
good=$(( ${#PARTS[@]} - 2 ))

nginx_start "$T/ng" || { echo "Bail out! nginx did not start"; exit 1; }
(cd "$T" && timeout 120 "$PERFSINK" upload --config c.ini >"$T/up.out" 2>"$T/up.err")
check "perfsink upload exits 1 when it quarantined something" test $? = 1 || sed 's/^/# /' "$T/up.err"
check "the secret behind the symlink never reached the collector" \
	bash -c "! grep -rqF '$SECRET' '$T/ng/root'"
check "the symlink is in quarantine, its target untouched" \
	bash -c "test -L '$Q/0000000900' && test \"\$(cat '$T/secret')\" = '$SECRET'"
check "the FIFO is in quarantine" test -p "$Q/0000000901"
for odd in abc -000000001 12345678901234567890; do
	check "odd name '$odd' is in quarantine, not sent" \
		bash -c "test -f '$Q/$odd' && ! test -e '$T/ng/root/up/$REL/$odd'"
done
check "the truncated part is in quarantine, not sent" \
	bash -c "test -f '$Q/${PARTS[1]##*/}' && ! test -e '$T/ng/root/up/$REL/${PARTS[1]##*/}'"
check "the byte-flipped part is in quarantine, not sent" \
	bash -c "test -f '$Q/${PARTS[2]##*/}' && ! test -e '$T/ng/root/up/$REL/${PARTS[2]##*/}'"
check "one warning names each of the 7 bad entries" \
	test "$(grep -c "warning: spool $T/spool/net/$REL/.*moved to $Q/" "$T/up.err")" = 7 ||
	sed 's/^/# /' "$T/up.err"
check "and says why (symlink, FIFO, name, records)" \
	bash -c "grep -q '0000000900: a symbolic link' '$T/up.err' && grep -q '0000000901: a FIFO' '$T/up.err' &&
		grep -q 'abc: name is not a part sequence number' '$T/up.err' &&
		grep -q '${PARTS[1]##*/}: not whole perf records' '$T/up.err'"
check "the quarantined bytes are counted as lost ($bad_bytes)" \
	grep -q "lost $bad_bytes bytes" "$T/up.err"
sent=$(count_files "$T/ng/root/up/$REL")
check "every good part was sent ($sent of $good), then the end marker; the spool holds nothing" \
	test "$sent" = $good -a -f "$T/ng/root/up/$REL.end" -a -z "$(find "$T/spool/net" -type f)"
parts_cat "$T/ng/root/up" > "$T/got.pipe"
"$PERF" script -i - < "$T/got.pipe" > "$T/got.txt" 2>"$T/got.err"
check "perf script reads the collector's stream" \
	bash -c "test -s '$T/got.txt' && grep -q cpu-clock '$T/got.txt'" || sed 's/^/# /' "$T/got.err"
check "quarantine directories are private (0700)" \
	test "$(stat -c %a "$T/spool/quarantine")" = 700 -a "$(stat -c %a "$T/spool/quarantine/net")" = 700

# -v works, and shows the sink's debug lines.
config "$T/v.ini" "$T/vspool" "http://127.0.0.1:$P/v"
(cd "$T" && "$PERFSINK" upload -v -v --config v.ini >"$T/v.out" 2>"$T/v.err")
check "perfsink upload -v works on a clean spool (exit 0)" test $? = 0 || sed 's/^/# /' "$T/v.err"

# Spool directories nobody else may have prepared.
refused() { # refused NAME MESSAGE: record and upload refuse spool T/NAME with MESSAGE
	config "$T/$1.ini" "$T/$1" "http://127.0.0.1:$P/x"
	(cd "$T" && timeout 60 "$PERFSINK" record -e cpu-clock --config "$1.ini" -- true \
		>"$T/$1.out" 2>"$T/$1.err")
	local rc=$?
	(cd "$T" && timeout 60 "$PERFSINK" upload --config "$1.ini" >"$T/$1.uout" 2>"$T/$1.uerr")
	local urc=$?
	(cd "$T" && timeout 60 "$PERFSINK" check -e cpu-clock --config "$1.ini" -- true >"$T/$1.cout" 2>"$T/$1.cerr")
	local crc=$?
	[ $rc = 2 ] && [ $urc = 1 ] && [ $crc = 2 ] && grep -q -- "$2" "$T/$1.err" &&
		grep -q -- "$2" "$T/$1.uerr" && grep -q -- "$2" "$T/$1.cerr" &&
		test -z "$(find "$T/$1" -type f)"
}
if [ "$(id -u)" = 0 ]; then
	mkdir -m 0700 "$T/foreign" && chown 65534:65534 "$T/foreign"
	check "a spool_dir owned by another user is refused with one line" \
		refused foreign "spool_dir $T/foreign: owned by uid 65534, not by the recording user (uid 0): refused"
else
	ok "# SKIP a foreign spool_dir needs root to make"
fi
mkdir "$T/open" && chmod 0777 "$T/open"
check "a spool_dir of mode 0777 is refused" refused open "spool_dir $T/open: mode 0777 lets group or others write"
if [ "$(id -u)" = 0 ]; then
	mkdir -p "$T/inst/net" && chown 65534 "$T/inst/net"
	check "an instance directory owned by another user is refused" \
		refused inst "spool_dir $T/inst/net: owned by uid 65534"
else
	ok "# SKIP a foreign instance directory needs root to make"
fi
mkdir -m 0700 "$T/link" "$T/elsewhere" && ln -s "$T/elsewhere" "$T/link/net"
check "an instance directory that is a symlink is refused" \
	refused link "spool_dir $T/link/net: a symbolic link: refused"
exit 0
