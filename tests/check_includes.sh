#!/bin/sh
# The include rules: which part of src/ may include which, and that sinks
# include only the public headers; and that the CLI never uses a sink's ops.
# The folders are the architecture; this check keeps them so.
#   check_includes.sh TOPDIR   check the tree at TOPDIR: each bad include is
#                              printed as FILE:LINE: reason; exit 1 if any.
#   check_includes.sh          (make check) TAP: the real tree passes, and a
#                              tree with a bad include fails, naming FILE:LINE.
set -u

# The one table.  A part may include itself and what its line names: a whole
# part, or one header of a part (part/header.h).  Headers named *_priv.h are for
# their own folder only.  Arrows point down: cli -> recover -> engine ->
# loader/probe -> config/format -> base; fetch (ls, fetch) -> format -> base.
# kit is the sink kit, plugins/kit, through its public header only
# (#include <perfsink/kit.h>): the program links it, so src/ uses it rather
# than a copy of it; format stays pure and base knows nothing of ours.
# collector is the collector client, plugins/collector (<perfsink/collector.h>,
# libcurl), shared with the http sink.
RULES='
cli:     config loader engine format probe recover fetch pprof flame base kit
flame:   pprof/pp_profile.h pprof/pp_intern.h base
fetch:   format base kit collector
pprof:   fetch/rec_reader.h format base kit
recover: engine format probe base kit
engine:  format probe loader config/config_file.h config/opts.h config/value_parse.h config/event_spec.h base kit
loader:  config/config_file.h config/opts.h config/value_parse.h base
probe:   format base kit
config:  base kit
format:  base
base:
kit:
collector:
'

# The table read once into variables (_allow_PART: what PART may include):
# a sed per include made this check most of a minute on a loaded 2-core VM.
while read -r _p _rest; do
	[ -n "$_p" ] || continue
	_p=${_p%:}
	eval "_allow_$_p=\$_rest"
done <<EOF
$RULES
EOF

# is_part NAME: NAME has a line in the table (its _allow_ is set, maybe empty).
is_part() {
	case $1 in '' | *[!a-z0-9_]*) return 1 ;; esac
	eval "[ -n \"\${_allow_$1+set}\" ]"
}

# allowed_for PART: sets _al to what PART's line names.
_al=
allowed_for() { eval "_al=\${_allow_$1:-}"; }

# may_include PART TARGET: 0 when PART may include TARGET (part/header.h).
may_include() {
	_tp=${2%%/*}
	[ "$_tp" = "$1" ] && return 0
	case ${2##*/} in *_priv.h) return 1 ;; esac
	allowed_for "$1"
	for _a in $_al; do
		[ "$_a" = "$_tp" ] || [ "$_a" = "$2" ] && return 0
	done
	return 1
}

# includes FILE: "LINE NAME" for each #include "NAME" in FILE.
includes() {
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$1" |
		sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1 \2/'
}

# lib_includes FILE: "LINE NAME" for each #include <perfsink/NAME.h> of a
# library the program links (kit, collector) in FILE.
lib_includes() {
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*<perfsink/\(kit\|collector\)\.h>' "$1" |
		sed 's/^\([0-9]*\):.*<perfsink\/\([a-z]*\)\.h>.*/\1 \2/'
}

# check_src TOP: every quoted include under TOP/src.
check_src() {
	_bad=0
	for _f in $(cd "$1" && find src -name '*.[ch]' ! -name '*.pb-c.[ch]' | sort); do
		_rel=${_f#src/}
		case $_rel in
		*/*) _part=${_rel%%/*} ;;
		*) echo "$_f:1: not in a part folder (src/PART/)"; _bad=1; continue ;;
		esac
		if ! is_part "$_part"; then
			echo "$_f:1: '$_part' is not a part in the table of tests/check_includes.sh"
			_bad=1
			continue
		fi
		includes "$1/$_f" > "$_tmp"
		while read -r _line _inc; do
			# The generated autoconf header.
			[ "$_inc" = config.h ] && continue
			case $_inc in
			*/*) ;;
			*) echo "$_f:$_line: \"$_inc\" does not name its part (write \"PART/$_inc\")"
			   _bad=1; continue ;;
			esac
			if [ ! -f "$1/src/$_inc" ]; then
				echo "$_f:$_line: \"$_inc\" is not a header under src/"
				_bad=1
			elif ! may_include "$_part" "$_inc"; then
				case $_inc in
				*_priv.h) _why="private to src/${_inc%%/*}/" ;;
				*) allowed_for "$_part"
				   _why="$_part may include: $_al and itself" ;;
				esac
				echo "$_f:$_line: $_part may not include \"$_inc\" ($_why)"
				_bad=1
			fi
		done < "$_tmp"
		lib_includes "$1/$_f" > "$_tmp"
		while read -r _line _lib; do
			may_include "$_part" "$_lib" && continue
			allowed_for "$_part"
			echo "$_f:$_line: $_part may not include <perfsink/$_lib.h> ($_part may include: $_al and itself)"
			_bad=1
		done < "$_tmp"
	done
	return $_bad
}

# check_plugins TOP: a sink (and the kit, and the collector client) includes
# the public headers (include/perfsink, with <>) and its own folder, never
# another folder's headers: a kit-internal header (plugins/kit/*.h) is not a
# contract, and src/ is the program's.
check_plugins() {
	_bad=0
	[ -d "$1/plugins" ] || return 0
	for _f in $(cd "$1" && find plugins -name '*.[ch]' | sort); do
		_dir=$(dirname "$_f")
		includes "$1/$_f" > "$_tmp"
		while read -r _line _inc; do
			[ "$_inc" = config.h ] && continue
			# protoc-c's output, generated in the build tree (plugins/pprofmodel).
			case $_inc in *.pb-c.h) continue ;; esac
			[ -f "$1/$_dir/$_inc" ] || [ -f "$1/include/$_inc" ] && continue
			if [ -f "$1/plugins/$_inc" ]; then
				echo "$_f:$_line: a sink may not include \"$_inc\" (another folder's header: only <perfsink/*.h> and its own folder)"
			elif [ -f "$1/src/$_inc" ] || [ -n "$(cd "$1" && find src -name "${_inc##*/}" 2>/dev/null)" ]; then
				echo "$_f:$_line: a sink may not include \"$_inc\" from src/ (only include/perfsink and its own folder)"
			else
				echo "$_f:$_line: \"$_inc\" is not a header of include/ or of its folder"
			fi
			_bad=1
		done < "$_tmp"
	done
	return $_bad
}

# check_cli_ops TOP: the CLI reaches sinks through the sinkset (engine/sinkset.h)
# and plugins through loader/plugin.h, never through a plugin's ops table, so
# the sink lifecycle (open, upload, close, ...) is driven from one place.
check_cli_ops() {
	_bad=0
	for _f in $(cd "$1" && find src/cli -name '*.[ch]' | sort); do
		grep -n 'ops->' "$1/$_f" > "$_tmp" || continue
		while IFS=: read -r _line _rest; do
			echo "$_f:$_line: the CLI may not use a sink's ops (use engine/sinkset.h, loader/plugin.h)"
		done < "$_tmp"
		_bad=1
	done
	return $_bad
}

check_tree() {
	_tmp=$(mktemp)
	_rc=0
	check_src "$1" || _rc=1
	check_plugins "$1" || _rc=1
	check_cli_ops "$1" || _rc=1
	rm -f "$_tmp"
	return $_rc
}

if [ $# -gt 0 ]; then
	check_tree "$1"
	exit
fi

# make check: TAP.
: "${TOP_SRCDIR:?run through make check, or give the top source directory}"
self=$TOP_SRCDIR/tests/check_includes.sh
T=$(mktemp -d /tmp/perfsink-inc.XXXXXX)
trap 'rm -rf "$T"' EXIT
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
diag() { sed 's/^/# /' "$1"; }
echo "1..8"

if sh "$self" "$TOP_SRCDIR" > "$T/real.out" 2>&1; then
	ok "src/ and plugins/ keep the include rules"
else
	not_ok "src/ and plugins/ keep the include rules"
	diag "$T/real.out"
fi

# A copy of the tree, then one bad include at a known line.
mkdir "$T/tree"
(cd "$TOP_SRCDIR" && tar cf - src plugins include) | (cd "$T/tree" && tar xf -)
chmod -R u+w "$T/tree"   # distcheck's source tree is read-only
sh "$self" "$T/tree" > "$T/copy.out" 2>&1 && ok "the copy passes" ||
	{ not_ok "the copy passes"; diag "$T/copy.out"; }

bad=src/format/record.c
line=$(($(wc -l < "$T/tree/$bad") + 1))
echo '#include "engine/sinkset.h"' >> "$T/tree/$bad"
if sh "$self" "$T/tree" > "$T/bad.out" 2>&1; then
	not_ok "format including engine/sinkset.h fails"
else
	ok "format including engine/sinkset.h fails"
fi
grep -q "^$bad:$line: format may not include \"engine/sinkset.h\"" "$T/bad.out" &&
	ok "... naming $bad:$line" || { not_ok "... naming $bad:$line"; diag "$T/bad.out"; }

# fails_naming WHAT PATTERN: the check fails on the copy, with a line matching PATTERN.
fails_naming() {
	if sh "$self" "$T/tree" > "$T/out" 2>&1; then
		not_ok "$1 fails"
	elif grep -q "$2" "$T/out"; then
		ok "$1 fails, naming it"
	else
		not_ok "$1 fails, naming it"
		diag "$T/out"
	fi
}

# The CLI calling a sink op itself.
cp "$TOP_SRCDIR/$bad" "$T/tree/$bad"
cli=src/cli/main.c
line=$(($(wc -l < "$T/tree/$cli") + 1))
echo 'static int f(const struct perfsink_sink_ops *ops) { return ops->barrier(0); }' >> "$T/tree/$cli"
fails_naming "$cli calling a sink op" "^$cli:$line: the CLI may not use a sink's ops"
cp "$TOP_SRCDIR/$cli" "$T/tree/$cli"

# format (pure) using the kit.
fmt=src/format/record.c
line=$(($(wc -l < "$T/tree/$fmt") + 1))
echo '#include <perfsink/kit.h>' >> "$T/tree/$fmt"
fails_naming "$fmt including <perfsink/kit.h>" "^$fmt:$line: format may not include <perfsink/kit.h>"
cp "$TOP_SRCDIR/$fmt" "$T/tree/$fmt"

# A sink reaching into src/.
sink=$(cd "$T/tree" && find plugins -name '*.c' | sort | head -n 1)
echo '#include "engine/drain.h"' >> "$T/tree/$sink"
fails_naming "$sink including src/engine/drain.h" "^$sink:[0-9]*: a sink may not include"
# A sink reaching into the kit's own headers (uring_file did, for the write queue).
cp "$TOP_SRCDIR/$sink" "$T/tree/$sink"
echo '#include "kit/write_queue.h"' >> "$T/tree/$sink"
fails_naming "$sink including kit/write_queue.h" "^$sink:[0-9]*: a sink may not include \"kit/write_queue.h\" (another folder"

exit $((failed > 0))
