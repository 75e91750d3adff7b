#!/bin/bash
# Issue 27, items 3 and 4: what a recorded process, or another user's HOME,
# can make root read, cache and ship.
#
# Item 3.  "nobody" runs an execute-only (0711) root binary, which it may
# run but not read, that maps nobody's own copy of a program; once perfsink (-p, to aio_file, zstd with
# symbols = true and the http sink on nginx) has seen the mapping, nobody
# swaps that path for a link to a root-only 0600 file with the same
# build-id (the program with a secret appended).  The same again in a
# private user and mount namespace (unshare -Urm), where the process maps
# its own executable.  It also maps a jitdump file, whose directory
# nobody swaps for a link to root's directory holding one of that name.
# Neither secret, nor the execute-only binary, may
# reach ~/.debug, the zstd sink's archive, `perfsink archive`'s, or the
# collector; the program that ran is shipped; the binary its process could
# not read is named and counted in the summary and --summary-json.
#
# Item 4.  HOME owned by nobody (sudo -E keeps it, SUDO_UID names its
# owner): its ~/.perfconfig is ignored (perf's rule) and its ~/.debug,
# where nobody planted a link to a root directory, is refused with one
# line; the run records and writes nothing there or through the link.
# The kernel's symbol table (with the addresses root sees) is cached 0600
# and archived 0600, in an archive of mode 0600.
#
# The links are planted in directories nobody owns, which are not sticky:
# fs.protected_symlinks would not stop root following them either way.
. "$TESTS_SRCDIR/lib/http_lib.sh"
[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root (perf_event_open, another user)"; exit 0; }
command -v nginx >/dev/null || { echo "1..0 # SKIP nginx not installed"; exit 0; }
command -v zstd >/dev/null || { echo "1..0 # SKIP zstd (the program) not installed"; exit 0; }
command -v cc >/dev/null || { echo "1..0 # SKIP no C compiler to build the test program"; exit 0; }
command -v setpriv >/dev/null || { echo "1..0 # SKIP no setpriv"; exit 0; }

T=$(mktemp -d /tmp/hostile_symbols.XXXXXX)
chmod 755 "$T" # nobody reaches its own directories below
ATT_PIDS=
trap 'for p in $ATT_PIDS; do kill "$p" 2>/dev/null; done; nginx_stop; rm -rf "$T"' EXIT
echo "1..26"
export HOME=$T/home
mkdir -p "$HOME"
NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
as_nobody() { $NOBODY "$@"; }

P=$(free_port)
nginx_conf "$T/ng" "$P"
nginx_start "$T/ng" || { echo "Bail out! nginx did not start"; exit 1; }
ROOT=$T/ng/root

# hold FILE...: map each FILE executable (an MMAP2 record names it), then wait.
cat > "$T/hold.c" <<'EOC'
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
static const char *volatile tag = TAG;
int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY);
		if (fd < 0 || mmap(0, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
			return 1;
		close(fd);
	}
	for (;;)
		pause();
	return tag[0];
}
EOC
build() { cc -O1 -Wl,--build-id -DTAG="\"$1\"" -o "$2" "$T/hold.c"; }
elf_id() { LC_ALL=C readelf -n "$1" | awk '/Build ID/ { print $3 }'; }
marker() { printf 'SECRET-%s-%s' "$1" "$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"; }
mkdir -m 755 "$T/xo" "$T/att" "$T/att2"
mkdir -m 700 "$T/secret"
chown nobody "$T/att" "$T/att2"
M1=$(marker swapped) M2=$(marker container) M3=$(marker execonly) M4=$(marker jitdump)
build a "$T/att/app" && build c "$T/att2/app" && build x "$T/xo/hold" ||
	{ echo "Bail out! cannot build the test program"; exit 1; }
# The secrets: each program with a secret appended, root's only; the same build-id.
{ cat "$T/att/app"; echo "$M1"; } > "$T/secret/app" && chmod 600 "$T/secret/app"
{ cat "$T/att2/app"; echo "$M2"; } > "$T/secret/app2" && chmod 600 "$T/secret/app2"
echo "$M3" >> "$T/xo/hold" && chmod 711 "$T/xo/hold"
# A jitdump file the http sink ships at the end, in a directory nobody
# then swaps for a link to root's directory holding a file of that name.
mkdir -m 755 "$T/att/d" && echo "a JIT's own dump" > "$T/att/d/jit-4242.dump"
mkdir -m 700 "$T/secretjit" && echo "$M4" > "$T/secretjit/jit-4242.dump"
chown -R nobody "$T/att/d"
chown nobody "$T/att/app" "$T/att2/app"
ID=$(elf_id "$T/att/app") ID2=$(elf_id "$T/att2/app") IDX=$(elf_id "$T/xo/hold")
check "each secret has the build-id of the program nobody maps (what the attack needs)" \
	test -n "$ID" -a "$(elf_id "$T/secret/app")" = "$ID" -a "$(elf_id "$T/secret/app2")" = "$ID2"

cat > "$T/c.ini" <<EOF
[sink.f]
plugin = aio_file
path = $T/f.data
[sink.z]
plugin = zstd
path = $T/z.data
symbols = true
[sink.net]
plugin = http
url = http://127.0.0.1:$P/c
spool_dir = $T/spool
# the held program is mapped, not sampled: ship every file mapped
symbols = all
EOF

cached() { test -e "$HOME/.debug$1/$2/elf"; } # cached PATH BUILD-ID
maps() { grep -q "$2" "/proc/$1/maps" 2>/dev/null; } # maps PID FILE
kallsyms_cached() { ls "$HOME/.debug/[kernel.kallsyms]"/*/kallsyms >/dev/null 2>&1; }
# attack NAME PID PATH BUILD-ID SECRET: record PID until the cache has PATH,
# then nobody swaps PATH for a link to SECRET; the run ends (SIGINT).
attack() {
	local name=$1 pid=$2 path=$3 id=$4 secret=$5 rp
	wait_for 20 maps "$pid" "$path" || echo "# $pid never mapped $path"
	"$PERFSINK" record -e cpu-clock -p "$pid" --config "$T/c.ini" --summary-json "$T/$name.json" \
		>"$T/$name.out" 2>"$T/$name.err" &
	rp=$!
	wait_for 20 cached "$path" "$id" || echo "# the cache never had $path"
	# the kernel's entry comes last (at least 300 ms in): this run checks its mode
	[ "$name" = host ] && { wait_for 20 kallsyms_cached || echo "# no kallsyms in the cache"; }
	as_nobody sh -c "mv '$path' '$path.real' && ln -s '$secret' '$path'"
	[ "$name" = host ] && as_nobody sh -c "mv '$T/att/d' '$T/att/d.real' && ln -s '$T/secretjit' '$T/att/d'"
	kill -INT "$rp"
	wait "$rp"
}

$NOBODY "$T/xo/hold" "$T/att/app" "$T/att/d/jit-4242.dump" & # setpriv execs it: $! is its pid
ATT_PIDS="$ATT_PIDS $!"
attack host $! "$T/att/app" "$ID" "$T/secret/app"
check "record of nobody's process (-p) to aio_file, zstd and http exits 0" test $? = 0 ||
	sed 's/^/# /' "$T/host.err"

mkdir "$T/zx" "$T/ax"
tar -I zstd -xf "$T/z.data.symbols.tar.zst" -C "$T/zx" 2>"$T/zx.err"
HOME=$T/home "$PERFSINK" archive "$T/f.data" >"$T/arch.out" 2>"$T/arch.err"
tar -I zstd -xf "$T/f.data.symbols.tar.zst" -C "$T/ax" 2>"$T/ax.err"
secret_in() { grep -rqF -e "$M1" -e "$M2" -e "$M3" -e "$M4" "$@"; }
check "no secret and no execute-only binary in the build-id cache" fails secret_in "$HOME/.debug"
check "nor in the zstd sink's symbol archive" fails secret_in "$T/zx"
check "nor in perfsink archive's" fails secret_in "$T/ax"
check "nor on the collector" fails secret_in "$ROOT"
check "the zstd sink's archive holds the program that ran, byte for byte" \
	cmp -s "$T/zx$T/att/app/$ID/elf" "$T/att/app.real" || sed 's/^/# /' "$T/zx.err" "$T/host.err"
check "so does perfsink archive's" cmp -s "$T/ax$T/att/app/$ID/elf" "$T/att/app.real" ||
	sed 's/^/# /' "$T/arch.out" "$T/arch.err"
check "and the collector, under its build-id" cmp -s "$ROOT/c/buildid/$ID/executable" "$T/att/app.real"
check "the build-id cache, too" cmp -s "$HOME/.debug$T/att/app/$ID/elf" "$T/att/app.real"
check "the execute-only binary is not listed for the collector" test ! -e "$ROOT/c/buildid/$IDX"
check "the jitdump whose directory nobody swapped is named, not shipped" \
	grep -qF "jitdump $T/att/d/jit-4242.dump not shipped: not the file its process mapped" "$T/host.err"
check "the summary names it: its process could not read it" \
	grep -qF "$T/xo/hold (its process could not read it)" "$T/host.err" || sed 's/^/# /' "$T/host.err"
check "--summary-json counts it" grep -q '"mapped_files_refused": 1,' "$T/host.json" ||
	sed 's/^/# /' "$T/host.json"
check "both archives are 0600" test "$(stat -c %a "$T/z.data.symbols.tar.zst" "$T/f.data.symbols.tar.zst" |
	sort -u)" = 600
kid=$(ls "$HOME/.debug/[kernel.kallsyms]" 2>/dev/null | head -n 1)
check "the kernel's symbol table is cached 0600" \
	test -n "$kid" -a "$(stat -c %a "$HOME/.debug/[kernel.kallsyms]/$kid/kallsyms" 2>&1)" = 600
check "and archived 0600" bash -c "tar -I zstd -tvf '$T/z.data.symbols.tar.zst' |
	grep '/kallsyms\$' | grep -q '^-rw------- '"

# The same from a private user and mount namespace, nobody's own executable.
if as_nobody unshare -Urm true 2>/dev/null; then
	rm -rf "$T/z.data"* "$T/f.data"*
	$NOBODY unshare -Urm "$T/att2/app" &
	ATT_PIDS="$ATT_PIDS $!"
	attack ns $! "$T/att2/app" "$ID2" "$T/secret/app2"
	check "in another mount namespace: record exits 0" test $? = 0 || sed 's/^/# /' "$T/ns.err"
	rm -rf "$T/zx" && mkdir "$T/zx"
	tar -I zstd -xf "$T/z.data.symbols.tar.zst" -C "$T/zx"
	check "no secret in the cache, the archive, on the collector" \
		fails secret_in "$HOME/.debug" "$T/zx" "$ROOT"
	check "the collector has the executable that ran" \
		cmp -s "$ROOT/c/buildid/$ID2/executable" "$T/att2/app.real"
else
	for i in 1 2 3; do tap_n=$((tap_n + 1)); echo "ok $tap_n # SKIP unshare -Urm not allowed for nobody"; done
fi

# Item 4: HOME owned by nobody, as sudo -E leaves it.
H=$T/alice
mkdir -p "$H/.debug" "$T/sudoers.d"
printf '[buildid]\n\tdir = %s/chosen\n' "$T" > "$H/.perfconfig"
chown -R nobody "$H"
as_nobody ln -s "$T/sudoers.d" "$H/.debug/[kernel.kallsyms]"
SUDO_UID=65534 HOME=$H "$PERFSINK" record -o "$T/h1.data" -- true >"$T/h1.out" 2>"$T/h1.err"
check "HOME of another user: the run records (exit 0)" test $? = 0 || sed 's/^/# /' "$T/h1.err"
check "its ~/.perfconfig is ignored, in one line" \
	grep -q "ignoring $H/.perfconfig: it belongs to uid 65534" "$T/h1.err" || sed 's/^/# /' "$T/h1.err"
check "so nothing is made where it says" test ! -e "$T/chosen"
rm "$H/.perfconfig"
SUDO_UID=65534 HOME=$H "$PERFSINK" record -o "$T/h2.data" -- true >"$T/h2.out" 2>"$T/h2.err"
check "its ~/.debug is refused in one line, the run records" \
	bash -c "[ \$(grep -c 'build-id cache: not filled this run' '$T/h2.err') = 1 ] &&
		grep -q \"directory '$H' belongs to uid 65534\" '$T/h2.err' &&
		'$PERF' buildid-list -i '$T/h2.data' >/dev/null 2>&1" || sed 's/^/# /' "$T/h2.err"
check "nothing is written through the link planted in it" test -z "$(ls -A "$T/sudoers.d")"
check "nor in it" test "$(find "$H/.debug" | wc -l)" = 2
exit $tap_fail
