#!/bin/bash
# Issue 27, item 4, fetch side: `perfsink fetch` fills ~/.debug as root
# among users it does not trust (symbols.c).  As perf record's cache:
#   - HOME owned by nobody, who planted ~/.debug as a link to a root
#     directory (a sudoers.d stand-in): the cache is refused in one line,
#     counted, nothing is written through the link (exit 1, the perf.data
#     is written);
#   - a directory inside root's ~/.debug owned by nobody, who planted a
#     link in it: the entries below it are refused (one line, counted),
#     nothing lands outside, the other entries are placed;
#   - the kernel's symbol table is cached 0600, new directories 0700.
# The links are planted in directories nobody owns, which are not sticky:
# fs.protected_symlinks would not stop root following them either way.
. "$TESTS_SRCDIR/lib/http_lib.sh"
[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root (another user)"; exit 0; }
command -v nginx >/dev/null || { echo "1..0 # SKIP nginx not installed"; exit 0; }
command -v setpriv >/dev/null || { echo "1..0 # SKIP no setpriv"; exit 0; }

T=$(mktemp -d /tmp/fetch_cache_hostile.XXXXXX)
chmod 755 "$T"
trap 'nginx_stop; rm -rf "$T"' EXIT
echo "1..11"
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }

collector_start "$T/ng"
mkdir -p "$T/bin" "$T/rec"
cp "$TESTS_BUILDDIR/integration/workload" "$T/bin/workload"
printf '[sink.net]\nplugin = http\nurl = http://127.0.0.1:%s/c\nspool_dir = %s/spool\n' "$P" "$T" > "$T/c.ini"
HOME=$T/rec "$PERFSINK" record -e cpu-clock -F 999 --config "$T/c.ini" -- "$T/bin/workload" cpu 300 \
	>"$T/rec.out" 2>"$T/rec.err"
SESS=$(one_session "$ROOT/c")
BID=$(LC_ALL=C readelf -n "$T/bin/workload" | awk '/Build ID/ { print $3 }')
check "a recording with the http sink ships the program's file (what a fetch places)" \
	test -n "$SESS" -a -s "$ROOT/c/buildid/$BID/executable" || sed 's/^/# /' "$T/rec.err"
URL=http://127.0.0.1:$P/c/$SESS
fetch() { # fetch NAME HOME
	HOME=$2 "$PERFSINK" fetch -o "$T/$1.data" "$URL" >"$T/$1.out" 2>"$T/$1.err"
}

# 1. HOME owned by nobody; ~/.debug a link to a root directory.
H=$T/alice
mkdir -m 755 "$H" "$T/sudoers.d"
chown nobody "$H"
as_nobody ln -s "$T/sudoers.d" "$H/.debug"
fetch a "$H"
rc=$?
check "HOME of another user: fetch exits 1" test "$rc" = 1 || sed 's/^/# /' "$T/a.err"
check "nothing is written through the ~/.debug link planted there" test -z "$(ls -A "$T/sudoers.d")"
check "one line says why, naming the owner, and counts what was not placed" \
	bash -c "[ \$(grep -c 'refusing to' '$T/a.err') = 1 ] &&
		grep -q \"symbols: refusing to use the build-id cache: directory '$H' belongs to uid 65534.*; [1-9][0-9]* build-ids not placed\" '$T/a.err'" ||
	sed 's/^/# /' "$T/a.err"
check "the perf.data is written all the same" bash -c "'$PERF' report -i '$T/a.data' --stdio >/dev/null 2>&1"

# 2. root's HOME and ~/.debug, a directory inside owned by nobody, who
# plants a link there where the program's entry goes.
R=$T/root
mkdir -p -m 700 "$R/.debug/tmp" "$T/sudoers2"
chmod 755 "$R" "$R/.debug"
chown nobody "$R/.debug/tmp"
as_nobody ln -s "$T/sudoers2" "$R/.debug/tmp/$(basename "$T")"
fetch b "$R"
rc=$?
check "a directory in ~/.debug owned by nobody: fetch exits 1" test "$rc" = 1 || sed 's/^/# /' "$T/b.err"
check "nothing is written through the link planted in it" test -z "$(ls -A "$T/sudoers2")"
check "one line names the directory, the count is in the summary" \
	bash -c "[ \$(grep -c 'refusing to' '$T/b.err') = 1 ] &&
		grep -q \"directory '$R/.debug/tmp' belongs to uid 65534\" '$T/b.err' &&
		grep -q 'symbols: .* [1-9][0-9]* refused' '$T/b.err'" || sed 's/^/# /' "$T/b.err"
KID=$(ls "$R/.debug/[kernel.kallsyms]" 2>/dev/null | head -n 1)
check "the other entries are placed: the kernel's symbol table, mode 0600" \
	test -n "$KID" -a "$(stat -c %a "$R/.debug/[kernel.kallsyms]/$KID/kallsyms" 2>&1)" = 600
check "in new directories of mode 0700" \
	test "$(stat -c %a "$R/.debug/[kernel.kallsyms]" "$R/.debug/[kernel.kallsyms]/$KID" | sort -u)" = 700

# 3. A HOME of root's own: the program's entry is placed.
fetch c "$T/home"
check "root's own cache: the program is placed in perf's layout, exit 0" \
	bash -c "test $? = 0 && cmp -s '$T/home/.debug$T/bin/workload/$BID/elf' '$T/bin/workload' &&
		cmp -s '$T/home/.debug/.build-id/${BID:0:2}/${BID:2}/elf' '$T/bin/workload'" || sed 's/^/# /' "$T/c.err"
exit $tap_fail
