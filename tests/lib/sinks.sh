# The file-writing sinks, one line each.  The integration scripts that
# check the same thing of every such sink (integration/sink_*.sh: rotation,
# full disk, signals, output safety) run their checks once per line, so a
# new file sink is tested by adding its line here.  Source after lib.sh.
#
# Columns, separated by "|":
#   name       the plugin name a [sink.x] section gives (plugin = NAME)
#   built      the plugin under the build tree: absent means not configured
#              here (an optional library), and its checks are skipped
#   header     what `perf report --header-only` shows of this sink's own
#              output ("-": nothing of its own).  perf reads every sink's
#              output directly with report and script (zstd's through the
#              COMPRESSED feature), so this is how a check tells the sink's
#              format is the one it claims.
#   disks      tmpfs sizes for sink_small_disk.sh: from too small to
#              begin to just large enough for this sink
#   fills      a tmpfs size that sink_full_disk.sh's run fills: it holds
#              the header and some batches, not the whole recording
#   keys       "key = value" pairs (separated by ";", "-" for none) that
#              sink_rotate.sh gives the sink next to its aio_file twin
#              (zstd: two compression threads, so a cut finds both busy)
sink_table() {
	grep -v '^#' <<'EOF'
# name     | built                               | header                  | disks                            | fills | keys
aio_file   | plugins/aio_file/.libs/aio_file.so  | -                       | 4k 8k 16k 32k 64k 128k 256k 1m   | 1m    | -
zstd       | plugins/zstd/.libs/zstd.so          | ^# compressed : Zstd,   | 16k 64k 72k 80k 96k 128k 256k 1m | 256k  | threads = 2
EOF
}

# sinks: the names in the table, one a line.
sinks() { sink_table | awk -F' *[|] *' '{ print $1 }'; }
# sink_field NAME COLUMN: one field of NAME's line (COLUMN: built, header,
# disks, fills, keys).
sink_field() {
	sink_table | awk -F' *[|] *' -v n="$1" -v c="$2" '
		$1 == n { i = c == "built" ? 2 : c == "header" ? 3 : c == "disks" ? 4 : c == "fills" ? 5 : c == "keys" ? 6 : 0
		          if (i) { sub(/ +$/, "", $i); print $i } }'
}
# sink_keys NAME: its keys, one a line, for a [sink.x] section.
sink_keys() { sink_field "$1" keys | tr ';' '\n' | sed -e 's/^ *//' -e '/^-$/d'; }
# sink_built NAME: its plugin was built in this tree.
sink_built() { [ -f "$TOP_BUILDDIR/$(sink_field "$1" built)" ]; }
# skip_n N WHY: N planned checks that cannot run here.
skip_n() {
	_sk=$1
	shift
	while [ "$_sk" -gt 0 ]; do skip "$*"; _sk=$((_sk - 1)); done
}
# sink_header_ok NAME FILE: perf's header of FILE shows NAME's own line
# (always true for a sink with none).
sink_header_ok() {
	_h=$(sink_field "$1" header)
	[ "$_h" = - ] && return 0
	"$PERF" report -i "$2" --header-only 2>&1 | grep -q -- "$_h"
}
