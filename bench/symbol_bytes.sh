#!/bin/bash
# symbol_bytes.sh BUILD [SECONDS]: what symbol shipping costs and gives
# (issue 31; docs/BENCHMARKS.md, "Symbols shipped and fetched").  With
# nginx on loopback as the collector (tests/lib/http_lib.sh), BUILD's
# perfsink records `-a -g --duration SECONDS` (default 2) once, into two
# http sinks: symbols = all and the default symbols = sampled, each into
# its own collector folder; then fetches each session into a
# fresh HOME with --symbols=all, lazy (the default) and none, and prints
# the bytes shipped and fetched, the share of samples perf report names
# (--sort sym, not a bare 0x address) and the call chain frames perf
# script -F ip,sym leaves [unknown] after the lazy fetch.  perf report runs in a
# private mount namespace where every file the recording names, except
# those perf itself loads, /proc/kallsyms and /sys/kernel/notes are
# covered by /dev/null: as on a machine that has none of them, only
# the fetched build-id cache can name them.  Needs root and nginx.
BUILD=$(cd "$1" && pwd) SEC=${2:-2}
export TESTS_SRCDIR=$BUILD/tests TESTS_BUILDDIR=$BUILD/tests TOP_BUILDDIR=$BUILD
. "$TESTS_SRCDIR/lib/http_lib.sh" # reads unset variables as empty: no set -u here
W=$(mktemp -d /tmp/symbol_bytes.XXXXXX)
chmod 755 "$W"
trap 'nginx_stop; [ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT # KEEP=1: leave the files for a look
NGINX_EXTRA=$NGINX_LISTING
collector_start "$W/ng" >/dev/null
URL=http://127.0.0.1:$P

# masked DATA HOME OUT PERF-ARGS...: perf PERF-ARGS -i DATA into OUT, the recorded files hidden.
masked() {
	python3 - "$@" <<'PY'
import ctypes, os, subprocess, sys
data, home, out = sys.argv[1:4]
args = sys.argv[4:]
ldd = subprocess.run(["ldd", "/usr/bin/perf"], capture_output=True, text=True).stdout
keep = {os.path.realpath(w) for w in ldd.split() if w.startswith("/")}
keep.add(os.path.realpath("/usr/bin/perf"))
ids = subprocess.run(["perf", "buildid-list", "-i", data], capture_output=True, text=True).stdout
paths = sorted({l.split(None, 1)[1] for l in ids.splitlines() if " /" in l})
libc = ctypes.CDLL("libc.so.6", use_errno=True)
CLONE_NEWNS, MS_BIND, MS_REC, MS_PRIVATE = 0x20000, 4096, 16384, 1 << 18
assert libc.unshare(CLONE_NEWNS) == 0 and libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) == 0
for p in paths + ["/proc/kallsyms", "/sys/kernel/notes"]:
    kernel = p.startswith(("/proc/", "/sys/"))
    if os.path.isfile(p) and (kernel or os.path.realpath(p) not in keep):
        libc.mount(b"/dev/null", p.encode(), None, MS_BIND, None)
with open(out, "w") as f:
    subprocess.run(["perf"] + args + ["-i", data], env=dict(os.environ, HOME=home), stdout=f,
                   stderr=subprocess.DEVNULL)
PY
}
masked_report() { masked "$@" report --stdio --no-children -g none --sort sym; }
# unknown_frames SCRIPT-OUT: "U of N" frames (call chain lines of perf script -F ip,sym) unnamed
unknown_frames() { awk 'NF >= 2 && $1 ~ /^[0-9a-f]+$/ { n++; if ($2 == "[unknown]") u++ } END { printf "%d of %d", u, n }' "$1"; }
named() { grep -v '^#' "$1" | grep '%' | awk '$3 !~ /^0x/ { s += $1 } END { printf "%.2f%%", s }'; }

# One recording, two http sinks: the same stream shipped both ways.
for mode in all sampled; do
	printf '[sink.%s]\nplugin = http\nurl = %s/%s\nspool_dir = %s/spool\nsymbols = %s\n' \
		"$mode" "$URL" "$mode" "$W" "$mode"
done >"$W/rec.ini"
mkdir -p "$W/rhome"
HOME=$W/rhome "$BUILD/src/perfsink" record -a -g --duration "$SEC" --config "$W/rec.ini" >/dev/null 2>"$W/rec.err"
echo "record -a -g --duration $SEC: $(grep -o 'Captured [0-9.]* MB' "$W/rec.err" | head -n 1)"
for mode in all sampled; do
	line=$(grep "^perfsink: $mode: symbols:" "$W/rec.err")
	echo "symbols = $mode: $(grep -o '[0-9]* files shipped ([0-9]* bytes' <<<"$line")), $(grep -o '[0-9]* no sample fell in' <<<"$line")"
	h=$(ls "$W/ng/root/$mode" | grep -vx buildid)
	s=$(ls "$W/ng/root/$mode/$h" | grep -v '\.end$')
	for how in all lazy none; do
		f=$W/f_${mode}_$how
		mkdir -p "$f.home"
		HOME=$f.home "$BUILD/src/perfsink" fetch --symbols=$how -o "$f.data" "$URL/$mode/$h/$s" \
			>/dev/null 2>"$f.err"
		masked_report "$f.data" "$f.home" "$f.rep"
		echo "  fetch --symbols=$how: $(grep -o '[0-9]* files, [0-9.]* MB fetched ([0-9]* bytes)' "$f.err" || echo nothing fetched);" \
			"perf report names $(named "$f.rep") of the samples"
	done
	HOME=$W/rhome perf report -i "$W/f_${mode}_lazy.data" --stdio --no-children -g none --sort sym \
		2>/dev/null >"$W/local_$mode.rep"
	echo "  on the recording machine (its files and cache): perf report names $(named "$W/local_$mode.rep")"
	# What stays unnamed there too: binaries without a symbol table (stripped, no -dbg package).
	HOME=$W/rhome perf report -i "$W/f_${mode}_lazy.data" --stdio --no-children -g none --sort dso,sym \
		2>/dev/null | grep -v '^#' | awk '$4 ~ /^0x/ { s[$2] += $1 } END { for (d in s) printf "%.2f%% %s\n", s[d], d }' |
		sort -rn | head -n 4 | tr '\n' ' ' | sed 's/^/    unnamed there too, by file: /; s/ $/\n/'
	# Frame by frame: the files only call chains pass through count here.
	masked "$W/f_${mode}_lazy.data" "$W/f_${mode}_lazy.home" "$W/f_${mode}_lazy.script" script -F ip,sym
	HOME=$W/rhome perf script -F ip,sym -i "$W/f_${mode}_lazy.data" >"$W/local_$mode.script" 2>/dev/null
	echo "  call chain frames unnamed (perf script -F ip,sym): $(unknown_frames "$W/f_${mode}_lazy.script")" \
		"after the lazy fetch, $(unknown_frames "$W/local_$mode.script") on the recording machine"
	diff -q <(grep -v '^#' "$W/local_$mode.rep" | grep '%' | sort) \
		<(grep -v '^#' "$W/f_${mode}_lazy.rep" | grep '%' | sort) >/dev/null &&
		echo "  after the lazy fetch perf report's lines are the recording machine's, symbol for symbol"
done
