#!/bin/bash
# The option and sink-key references agree with the tables the code uses.
#
# The truth is what the built binary prints and the option table it parses:
#   perfsink record --help    long options, short letters, stated defaults
#   perfsink sinks            every plugin's perfsink_key table: key, type,
#                             default, range
#   perfsink --help           the verbs; each verb's --help, its options
#   record_opt_names[] and DEFAULT_* in the source file that defines them
#                             (the [record] keys and the real defaults)
# Checked against them: man/perfsink.1 (OPTIONS, SYNOPSIS), man/perfsink.ini.5
# ([record] key list, one .SS per plugin), README.md (the option list under
# "Recording") and etc/perfsink.ini (every key, with its default).  Each
# disagreement is one "# " line naming the file, the option or key and both
# values.  Every man page must also render without a warning, and every
# "perf-format.md §N" cited in the code must be a section of
# docs/perf-format.md.
#
# An option's stated default is the first "default X" / "default: X" in its
# description ("the default ..." and "by default" are prose).  A key line in
# etc/perfsink.ini (commented out or not) holds the default, or the comment
# just above it says "default X" with the real default.  Values are compared
# in one spelling: yes/on = true, no/off = false, 512K = 524288, 1s = 1000ms,
# a bare mmap-pages number is pages.
#
# Usage: check_docs.sh          check the tree's docs, then show on broken
#                               copies (and a help with the old --aio
#                               default) that each check can fail
#        check_docs.sh DIR      check the docs under DIR only; list what
#                               disagrees, exit 1 if anything does
set -u
: "${PERFSINK:?run through make check}" "${TOP_SRCDIR:?run through make check}"
W=$(mktemp -d /tmp/perfsink-docs.XXXXXX)
trap 'rm -rf "$W"' EXIT

# Record options that are not [record] keys: they choose the config itself
# or only steer the command line.
CLI_ONLY="config sink quiet help no-status dry-run"
PAGE=$(getconf PAGESIZE)

# ---------------------------------------------------------------- helpers

# norm_to KEY VALUE: VALUE in the one spelling used to compare defaults, in
# $_n (no subshell: the checks compare a few hundred values, and a fork was
# most of this test's time).
norm_to() {
	local k=$1 v=${2%[.:]} n u
	case $v in
	yes | true | on) _n=true; return ;;
	no | false | off) _n=false; return ;;
	esac
	if [[ $v =~ ^([0-9]+)([KMGT])(i?B)?$ ]]; then
		n=${BASH_REMATCH[1]}
		case ${BASH_REMATCH[2]} in
		K) u=10 ;; M) u=20 ;; G) u=30 ;; T) u=40 ;;
		esac
		_n=$((n << u))
	elif [[ $k == mmap-pages && $v =~ ^[0-9]+$ ]]; then
		_n=$((v * PAGE))
	elif [[ $v =~ ^([0-9]+)(ms|s|m|h)$ ]]; then
		n=${BASH_REMATCH[1]}
		case ${BASH_REMATCH[2]} in
		ms) _n=$n ;; s) _n=$((n * 1000)) ;;
		m) _n=$((n * 60000)) ;; h) _n=$((n * 3600000)) ;;
		esac
	else
		_n=$v
	fi
}

# same_value KEY A B: A and B are one value once normalized.
same_value() {
	local a
	norm_to "$1" "$2"
	a=$_n
	norm_to "$1" "$3"
	[ "$a" = "$_n" ]
}

# The awk function that finds a stated default in a description.
AWK_DEFAULT='
function dflt(t,   m) {
	gsub(/[Tt]he default/, "the-dflt", t)
	gsub(/by default/, "by-dflt", t)
	gsub(/default to /, "dflt-to ", t)
	if (!match(t, /[Dd]efault:? [^ ,;)]+/))
		return ""
	m = substr(t, RSTART, RLENGTH)
	sub(/^[Dd]efault:? /, "", m)
	sub(/\.$/, "", m)
	return m
}
function unroff(l) {
	gsub(/\\f[BIRP]/, "", l); gsub(/\\-/, "-", l); gsub(/\\&/, "", l)
	gsub(/"/, "", l)
	return l
}'

# help_opts: record --help on stdin -> "name<TAB>short<TAB>default".
# (A field that may be empty before another is "-": read collapses tabs.)
help_opts() {
	awk "$AWK_DEFAULT"'
	function flush() { if (name != "") print name "\t" short "\t" dflt(text); name = "" }
	/^  -[A-Za-z], --[a-z]/ || /^      --[a-z]/ {
		flush()
		match($0, /--[a-z][a-z-]*/)
		name = substr($0, RSTART + 2, RLENGTH - 2)
		short = ($0 ~ /^  -[A-Za-z],/) ? substr($0, 4, 1) : "-"
		text = substr($0, RSTART + RLENGTH)
		next
	}
	/^                         / && name != "" { text = text " " $0; next }
	{ flush() }
	END { flush() }'
}

# man1_opts FILE: the OPTIONS entries -> "name<TAB>default".
man1_opts() {
	awk "$AWK_DEFAULT"'
	function flush() { if (name != "") print name "\t" dflt(text); name = ""; text = "" }
	/^\.SH/ { flush(); insec = ($0 ~ /^\.SH OPTIONS/); next }
	!insec { next }
	{ l = unroff($0) }
	/^\.TP/ { flush(); tag = 1; next }
	tag {
		tag = 0
		if (match(l, /--[a-z][a-z-]*/))
			name = substr(l, RSTART + 2, RLENGTH - 2)
		next
	}
	/^\.(PP|SS)/ { flush(); next }
	name != "" { text = text " " l }
	END { flush() }' "$1"
}

# readme_opts FILE: the option paragraph of "Recording" -> "--name<TAB>default"
# for each long option and "-x<TAB>" for each short one it names.
readme_opts() {
	awk "$AWK_DEFAULT"'
	/^Options follow perf record/ { on = 1 }
	on && /^$/ { on = 0 }
	on { para = para " " $0 }
	function flush(   i) { for (i = 1; i <= nn; i++) print "--" names[i] "\t" dflt(text); nn = 0; text = "" }
	END {
		n = split(para, p, "`")
		for (i = 2; i <= n; i += 2) {
			code = p[i]
			if (code ~ /--[a-z]/) {
				flush()
				rest = code
				while (match(rest, /--[a-z][a-z-]*/)) {
					names[++nn] = substr(rest, RSTART + 2, RLENGTH - 2)
					rest = substr(rest, RSTART + RLENGTH)
				}
			} else {
				text = text " " code
			}
			m = split(code, tok, /[\/ ]/)
			for (j = 1; j <= m; j++)
				if (tok[j] ~ /^-[A-Za-z]$/)
					print tok[j] "\t"
			text = text " " p[i + 1]
		}
		flush()
	}' "$1"
}

# etc_keys FILE -> "section<TAB>key<TAB>value<TAB>comment above" for every
# key line, commented out or not; "# [sink.x]" starts a section too.
etc_keys() {
	awk '
	/^#? ?\[[^]]+\]/ { match($0, /\[[^]]+\]/); sec = substr($0, RSTART + 1, RLENGTH - 2); cmt = ""; next }
	/^(# ?)?[a-z][a-z0-9_-]* = / {
		l = $0; sub(/^# ?/, "", l)
		k = l; sub(/ = .*/, "", k)
		v = l; sub(/^[^=]* = /, "", v)
		print sec "\t" k "\t" v "\t" cmt
		cmt = ""
		next
	}
	/^#/ { cmt = cmt " " $0; next }
	{ cmt = "" }' "$1"
}

# sinks_keys: perfsink sinks on stdin -> "plugin<TAB>key<TAB>type<TAB>default<TAB>range".
# Columns as print_key writes them: name 18, type 8, default 14 (longer
# defaults push the description right; an empty one is blank).
sinks_keys() {
	awk '
	/^  [a-z_0-9]+ - / { plugin = $1; next }
	/^    [a-z]/ {
		key = $1; type = $2
		d = substr($0, 33)
		if (substr($0, 33, 1) == " ") d = "-"; else sub(/ .*/, "", d)
		r = "-"
		if (match($0, /\[[^]]*\]$/)) r = substr($0, RSTART + 1, RLENGTH - 2)
		print plugin "\t" key "\t" type "\t" d "\t" r
	}'
}

# ini5_keys FILE -> "context<TAB>tag|bold<TAB>key<TAB>what the tag says in ()".
# context: record, common ([sink.NAME] keys), or the plugin of a .SS.
ini5_keys() {
	awk '
	/^\.SH/ { ss = ""; ctx = ($0 ~ /\[record\]/) ? "record" : ($0 ~ /\[sink/) ? "common" : "other"; next }
	/^\.SS/ { ctx = $2; next }
	/^\.TP/ { tag = 1; next }
	{
		l = $0; gsub(/\\-/, "-", l)
		if (tag && l ~ /^\.BR? /) {
			paren = ""
			if (match(l, /\(.*\)/)) paren = substr(l, RSTART + 1, RLENGTH - 2)
			print ctx "\ttag\t" $2 "\t" paren
		}
		tag = 0
		while (match(l, /\\fB[a-z][a-z0-9_-]*\\fR/)) {
			print ctx "\tbold\t" substr(l, RSTART + 3, RLENGTH - 6) "\t"
			l = substr(l, RSTART + RLENGTH)
		}
	}' "$1"
}

# code_table FILE -> record_opt_names, one a line; code_defaults FILE ->
# "option<TAB>value" from #define DEFAULT_<OPTION> value.
code_table() {
	awk '/record_opt_names\[\] = \{/ { on = 1; next }
	on && /^\};/ { exit }
	on { l = $0; while (match(l, /"[^"]*"/)) { print substr(l, RSTART + 1, RLENGTH - 2); l = substr(l, RSTART + RLENGTH) } }' "$1"
}
code_defaults() {
	sed -n 's/^#define DEFAULT_\([A-Z_]*\)[[:space:]]\{1,\}\([^[:space:]]*\).*/\1\t\2/p' "$1" |
		tr -d '"' | awk -F'\t' '{ k = tolower($1); gsub(/_/, "-", k); print k "\t" $2 }'
}

# lookup FILE KEY: the second field of the first line whose first field is
# KEY, in $_v; status 1 when none.  Read by the shell: the checks look up a
# few hundred keys, and a process for each was most of this test's time.
lookup() {
	local line rest
	_v=""
	while IFS= read -r line; do
		[ "${line%%$'\t'*}" = "$2" ] || continue
		if [[ $line == *$'\t'* ]]; then
			rest=${line#*$'\t'}
			_v=${rest%%$'\t'*}
		fi
		return 0
	done <"$1"
	return 1
}

# ---------------------------------------------------------------- checks
# Each check prints one line per disagreement to stdout.

# help-options: record --help and the code's option table name the same options.
chk_help_options() {
	local o
	while read -r o; do
		grep -qx "$o" "$W/opt_names" || [[ " $CLI_ONLY " == *" $o "* ]] ||
			echo "perfsink record --help: --$o is no [record] key in record_opt_names[] and not command-line-only ($CLI_ONLY)"
	done < <(cut -f1 "$W/help_opts")
	while read -r o; do
		lookup "$W/help_opts" "$o" ||
			echo "perfsink record --help: option table key '$o' (record_opt_names[]) has no --$o"
	done <"$W/opt_names"
}

# man1-options: perfsink.1 documents every option and verb, nothing else.
chk_man1() {
	local d=$1 o v
	while read -r o; do
		lookup "$W/man1_opts" "$o" ||
			echo "man/perfsink.1: OPTIONS has no entry for --$o (perfsink record --help has it)"
	done < <(cut -f1 "$W/help_opts")
	while read -r o; do
		lookup "$W/help_opts" "$o" ||
			echo "man/perfsink.1: OPTIONS documents --$o, which perfsink record --help does not have"
	done < <(cut -f1 "$W/man1_opts")
	sed 's/\\-/-/g; s/\\f[BIRP]//g' "$d/man/perfsink.1" >"$W/man1.txt"
	while read -r v; do
		grep -q "^\.B perfsink $v\b" "$W/man1.txt" ||
			echo "man/perfsink.1: SYNOPSIS has no 'perfsink $v' (perfsink --help lists it)"
		[ "$v" = record ] && continue
		for o in $("$PERFSINK" "$v" --help 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u); do
			[ "$o" = --help ] && continue
			grep -q -- "$o\b" "$W/man1.txt" ||
				echo "man/perfsink.1: does not mention $o (perfsink $v --help has it)"
		done
	done <"$W/verbs"
}

# readme-options: README's option list names every option.
chk_readme() {
	local d=$1 o s v
	while IFS=$'\t' read -r o s _; do
		lookup "$W/readme_opts" "--$o" && continue
		[ "$s" != - ] && lookup "$W/readme_opts" "-$s" && continue
		echo "README.md: the option list under Recording does not name --$o$([ "$s" = - ] || echo " or -$s")"
	done <"$W/help_opts"
	while read -r v; do
		grep -q "perfsink $v\b" "$d/README.md" ||
			echo "README.md: never shows 'perfsink $v' (perfsink --help lists it)"
	done <"$W/verbs"
}

# record-keys: perfsink.ini(5) and etc/perfsink.ini list every [record] key.
chk_record_keys() {
	local k
	while read -r k; do
		grep -qP "^record\tbold\t\Q$k\E\t" "$W/ini5" ||
			echo "man/perfsink.ini.5: [record] does not list '$k' (record_opt_names[] has it)"
		grep -qP "^record\t\Q$k\E\t" "$W/etc" ||
			echo "etc/perfsink.ini: [record] has no '$k' line (record_opt_names[] has it)"
	done <"$W/opt_names"
	awk -F'\t' '$1 == "record" && $2 == "bold" { print $3 }' "$W/ini5" | sort -u | while read -r k; do
		grep -qx "$k" "$W/opt_names" ||
			echo "man/perfsink.ini.5: [record] lists '$k', which is no [record] key"
	done
	awk -F'\t' '$1 == "record" { print $2 }' "$W/etc" | sort -u | while read -r k; do
		grep -qx "$k" "$W/opt_names" ||
			echo "etc/perfsink.ini: [record] sets '$k', which is no [record] key"
	done
}

# etc_says SECTIONS KEY DEFAULT: the key's line in one of the etc sections
# holds DEFAULT or its comment states it; status 1 with what it holds in
# $_said otherwise.
etc_says() {
	local secs=$1 k=$2 def=$3 sec key val cmt
	while IFS=$'\t' read -r sec key val cmt; do
		[[ " $secs " == *" $sec "* && $key == "$k" ]] || continue
		same_value "$k" "$val" "$def" && return 0
		[[ $cmt =~ [Dd]efault:?\ ([^ ,\;\)]+) ]] && same_value "$k" "${BASH_REMATCH[1]}" "$def" && return 0
		_said=$val
		return 1
	done <"$W/etc"
	return 0 # absent: reported by the presence checks
}

# defaults: every stated default of a record option is the same value.
chk_defaults() {
	local o s h m r c e ref v bad
	while IFS=$'\t' read -r o s h; do
		lookup "$W/man1_opts" "$o"
		m=$_v
		lookup "$W/readme_opts" "--$o"
		r=$_v
		lookup "$W/code_defaults" "$o"
		c=$_v
		# The code's own default first, else the first document that states one.
		for ref in "$c" "$h" "$m" "$r" ""; do
			[ -n "$ref" ] && break
		done
		[ -n "$ref" ] || continue
		bad=0
		for v in "$c" "$h" "$m" "$r"; do
			[ -z "$v" ] || same_value "$o" "$v" "$ref" || bad=1
		done
		e=""
		etc_says record "$o" "$ref" || { e=$_said; bad=1; }
		[ "$bad" = 0 ] && continue
		echo "default of --$o disagrees: code ${c:--}, --help ${h:--}, perfsink.1 ${m:--}, README ${r:--}, etc/perfsink.ini ${e:-ok}"
	done <"$W/help_opts"
}

# range_says KEY TABLE-RANGE MAN-PAREN: the man page states the table's
# range (LO..HI, LO.. as "at least LO", sizes with K/M/G/T) or choices (a|b).
range_says() {
	local k=$1 r=$2 paren=$3 lo hi lo_n hi_n
	case $r in
	*..*)
		if [[ $paren =~ ([0-9]+[KMGT]?)\.\.([0-9]+[KMGT]?)? ]]; then
			lo=${BASH_REMATCH[1]} hi=${BASH_REMATCH[2]}
		elif [[ $paren =~ at\ least\ ([0-9]+[KMGT]?) ]]; then
			lo=${BASH_REMATCH[1]} hi=""
		else
			echo "man/perfsink.ini.5: $k states no range, perfsink sinks says [$r]"
			return
		fi
		norm_to "" "$lo"
		lo_n=$_n hi_n=""
		[ -z "$hi" ] || { norm_to "" "$hi"; hi_n=$_n; }
		[ "$lo_n..$hi_n" = "$r" ] ||
			echo "man/perfsink.ini.5: $k range ${lo}..$hi, perfsink sinks says [$r]"
		;;
	*"|"*)
		[[ $paren == *"$r"* ]] ||
			echo "man/perfsink.ini.5: $k does not state the choices $r (perfsink sinks)"
		;;
	esac
}

# sink-keys: each plugin key is in perfsink.ini(5) and etc/perfsink.ini with
# the table's type, range and default; neither documents a key no table has.
chk_sink_keys() {
	local p k t d r paren secs mt md ctx kind sec val cmt found
	# The man page, the example and the table, each read once into arrays
	# ("plugin key"): a grep or awk per key was most of this test's time.
	local -A documented paren_of secs_of etc_has plugin_of listed told
	while IFS=$'\t' read -r ctx kind k paren; do
		documented["$ctx $k"]=1
		[ "$kind" = tag ] && [ -z "${paren_of["$ctx $k"]+set}" ] && paren_of["$ctx $k"]=$paren
	done <"$W/ini5"
	while IFS=$'\t' read -r sec k val cmt; do
		etc_has["$sec $k"]=1
		if [ "$k" = plugin ]; then
			secs_of[$val]+="$sec "
			[ -n "${plugin_of[$sec]+set}" ] || plugin_of[$sec]=$val
		fi
	done <"$W/etc"
	while IFS=$'\t' read -r p k _; do listed["$p $k"]=1; done <"$W/sink_keys"
	while IFS=$'\t' read -r p k t d r; do
		[ "$d" = "(required)" ] || [ "$d" = - ] && d=""
		[ "$r" = - ] && r=""
		[ -n "${documented["$p $k"]+set}" ] ||
			echo "man/perfsink.ini.5: .SS $p does not document $k ($t, default ${d:-none})"
		paren=${paren_of["$p $k"]-}
		if [ -n "$paren" ]; then
			mt=${paren%%[ ,]*}
			[ "$mt" = "$t" ] ||
				echo "man/perfsink.ini.5: $p.$k is '$mt', perfsink sinks says '$t'"
			range_says "$p.$k" "$r" "$paren"
			if [[ $paren =~ default\ ([^ ,\;\)]+) ]]; then
				md=${BASH_REMATCH[1]}
				same_value "$k" "$md" "$d" ||
					echo "man/perfsink.ini.5: $p.$k default $md, perfsink sinks says ${d:-none}"
			fi
		fi
		secs=${secs_of[$p]-}
		if [ -z "$secs" ]; then
			[ -n "${told[$p]+set}" ] ||
				echo "etc/perfsink.ini: no [sink.NAME] section with plugin = $p"
			told[$p]=1
			continue
		fi
		found=""
		for sec in $secs; do
			[ -n "${etc_has["$sec $k"]+set}" ] && found=1
		done
		[ -n "$found" ] ||
			echo "etc/perfsink.ini: the $p section has no '$k' line ($t, default ${d:-none})"
		[ -n "$d" ] || continue
		etc_says "$secs" "$k" "$d" ||
			echo "etc/perfsink.ini: $p.$k = $_said, the default is $d (say 'default $d' above it when the example differs)"
	done <"$W/sink_keys"
	# Nothing documented that no table has.
	while IFS=$'\t' read -r ctx kind k _; do
		[ "$kind" = tag ] || continue
		case $ctx in record | common | other) continue ;; esac
		[ -n "${listed["$ctx $k"]+set}" ] ||
			echo "man/perfsink.ini.5: .SS $ctx documents '$k', which perfsink sinks does not list for $ctx"
	done <"$W/ini5"
	while IFS=$'\t' read -r sec k _; do
		[ "$sec" = record ] && continue
		case $k in plugin | on_error | rotate) continue ;; esac
		p=${plugin_of[$sec]-}
		[ -n "$p" ] || continue
		[ -n "${listed["$p $k"]+set}" ] ||
			echo "etc/perfsink.ini: [$sec] sets '$k', which plugin $p does not have"
	done <"$W/etc"
	# The keys every sink section has (the engine's, not a plugin's).
	for k in plugin on_error rotate; do
		grep -qP "^common\ttag\t$k\t" "$W/ini5" ||
			echo "man/perfsink.ini.5: [sink.NAME] has no entry for $k"
		grep -qE "^#? *$k *=" "$1/etc/perfsink.ini" ||
			echo "etc/perfsink.ini: never shows the $k key of every sink"
		grep -q "\b$k\b" "$W/sinks.txt" ||
			echo "perfsink sinks: does not name the $k key every section has"
	done
}

# format-citations: every "perf-format.md §N" in the code names a section
# of docs/perf-format.md ("## N." or "### N").
chk_citations() {
	local d=$1 cite sec
	grep -rnoE --include='*.[ch]' --include='*.sh' --include='*.am' --exclude=check_docs.sh \
		'perf-format\.md( §[0-9.]+(, §[0-9.]+)*)?' "$TOP_SRCDIR/src" "$TOP_SRCDIR/plugins" \
		"$TOP_SRCDIR/include" "$TOP_SRCDIR/tests" 2>/dev/null | while IFS= read -r cite; do
		if [ ! -f "$d/docs/perf-format.md" ]; then
			echo "${cite%%:*}: cites docs/perf-format.md, which does not exist"
			continue
		fi
		for sec in $(grep -oE '§[0-9.]+' <<<"${cite#*:*:}" | tr -d '§'); do
			sec=${sec%.}
			grep -qE "^#{2,3} ${sec//./\\.}[. ]" "$d/docs/perf-format.md" ||
				echo "${cite%%:*}: cites perf-format.md §$sec, which docs/perf-format.md does not have"
		done
	done
}

# man-render: every page renders without a warning.
chk_man_render() {
	local f out
	command -v groff >/dev/null || { echo "groff is not installed (bootstrap installs groff-base)"; return; }
	for f in "$1"/man/*.[1-9]; do
		out=$(groff -ww -z -man "$f" 2>&1
			! command -v man >/dev/null ||
				LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l -E UTF-8 "$f" 2>&1 >/dev/null)
		[ -z "$out" ] || printf '%s\n' "$out" | sed "s|^|${f#"$1"/}: |"
	done
}

CHECKS="help-options man1-options readme-options record-keys defaults sink-keys man-render format-citations"

# check_tree DIR [CHECK]: every check (or only CHECK) on the docs under DIR;
# output "CHECK<TAB>message".  The self-tests name their check: the whole
# set, run once per broken copy, was most of this test's time.
check_tree() {
	local d=$1 only=${2:-} src
	"$PERFSINK" record --help >"$W/help.txt" 2>&1 || echo "help-options	perfsink record --help failed"
	"$PERFSINK" sinks >"$W/sinks.txt" 2>&1 || echo "sink-keys	perfsink sinks failed"
	"$PERFSINK" --help 2>&1 | awk '/^  [a-z]+  / { print $1 }' >"$W/verbs"
	src=$(grep -rl --include='*.c' 'record_opt_names\[\] = {' "$TOP_SRCDIR/src" | head -n 1)
	[ -n "$src" ] || echo "help-options	no record_opt_names[] in $TOP_SRCDIR/src"
	code_table "$src" >"$W/opt_names"
	code_defaults "$src" >"$W/code_defaults"
	help_opts <"$W/help.txt" >"$W/help_opts"
	man1_opts "$d/man/perfsink.1" >"$W/man1_opts"
	readme_opts "$d/README.md" >"$W/readme_opts"
	etc_keys "$d/etc/perfsink.ini" >"$W/etc"
	sinks_keys <"$W/sinks.txt" >"$W/sink_keys"
	ini5_keys "$d/man/perfsink.ini.5" >"$W/ini5"
	run_check help-options chk_help_options
	run_check man1-options chk_man1 "$d"
	run_check readme-options chk_readme "$d"
	run_check record-keys chk_record_keys
	run_check defaults chk_defaults
	run_check sink-keys chk_sink_keys "$d"
	run_check man-render chk_man_render "$d"
	run_check format-citations chk_citations "$d" | sed "s|\t$TOP_SRCDIR/|\t|"
}

# run_check NAME FUNCTION ARGS...: FUNCTION's lines prefixed "NAME<TAB>",
# unless check_tree was asked for another check ($only, set by check_tree).
run_check() {
	local name=$1
	shift
	[ -z "$only" ] || [ "$only" = "$name" ] || return 0
	"$@" | sed "s/^/$name\t/"
}

if [ $# -ge 1 ]; then
	out=$(check_tree "$1")
	[ -z "$out" ] && exit 0
	printf '%s\n' "$out"
	exit 1
fi

# ---------------------------------------------------------------- TAP run
n=0 failed=0
tap() { # tap STATUS DESCRIPTION [DIAG...]: one TAP line, DIAG lines as comments
	local res=$1 desc=$2
	shift 2
	n=$((n + 1))
	if [ "$res" = 0 ]; then
		echo "ok $n - $desc"
	else
		failed=$((failed + 1))
		echo "not ok $n - $desc"
	fi
	[ $# -eq 0 ] || printf '# %s\n' "$@"
}

# tap_lines STATUS DESCRIPTION TEXT: tap with each line of TEXT as a comment.
tap_lines() {
	local lines
	mapfile -t lines <<<"$3"
	tap "$1" "$2" "${lines[@]}"
}

# broken NAME SED-SCRIPT FILE CHECK WORD: a copy of the docs with FILE
# edited by SED-SCRIPT must fail CHECK with a line naming WORD.
broken() {
	local name=$1 script=$2 file=$3 chk=$4 word=$5 copy="$W/broken.$1" out
	mkdir -p "$copy"
	cp -r "$TOP_SRCDIR/README.md" "$TOP_SRCDIR/man" "$TOP_SRCDIR/etc" "$TOP_SRCDIR/docs" "$copy"/
	sed -i -e "$script" "$copy/$file"
	if cmp -s "$copy/$file" "$TOP_SRCDIR/$file"; then
		tap 1 "self-test $name: the edit changed nothing in $file"
		return
	fi
	out=$(check_tree "$copy" "$chk" | awk -F'\t' -v c="$chk" '$1 == c { print $2 }')
	printf '%s\n' "$out" | grep -q -- "$word"
	tap_lines $? "self-test $name: $chk catches it" "${out:-$chk found nothing}"
}

echo "1..$(($(wc -w <<<"$CHECKS") + 12))"
out=$(check_tree "$TOP_SRCDIR")
for c in $CHECKS; do
	msgs=$(printf '%s\n' "$out" | awk -F'\t' -v c="$c" '$1 == c { print $2 }')
	if [ -z "$msgs" ]; then
		tap 0 "$c"
	else
		tap_lines 1 "$c" "$msgs"
	fi
done

broken etc-aio 's/^aio = 4$/aio = 3/; s/1\.\.32 (default 4)/1..32 (default 3)/' etc/perfsink.ini defaults 'aio'
broken etc-http-default 's/^# part_size = 4M$/# part_size = 8M/' etc/perfsink.ini sink-keys 'part_size'
broken man-key-gone '/^\.BR max_pending /,/^\.TP/d' man/perfsink.ini.5 sink-keys 'max_pending'
broken man-key-default 's/^\(\.BR level .*\)default 1)/\1default 3)/' man/perfsink.ini.5 sink-keys 'zstd.level default 3'
broken man-option-gone '/^\.BR \\-\\-switch\\-max\\-files/,/^\.TP/d' man/perfsink.1 man1-options 'switch-max-files'
broken man-troff 's/^\\&\.\/perf\.data)/.\/perf.data)/' man/perfsink.1 man-render 'perfsink.1'
broken format-section-gone 's/^## 6\. The kernel ring/## The kernel ring/' docs/perf-format.md format-citations 'ring.h: cites perf-format.md §6'
# shellcheck disable=SC2016 # the backquotes are README's, not a command
broken readme-option-gone 's/`--overwrite`, //' README.md readme-options '--overwrite'
broken man-key-range 's/^\(\.BR queue_size " (size 4K\.\.\)4G/\18G/' man/perfsink.ini.5 sink-keys 'http.queue_size range 4K..8G'
broken etc-stale-key 's/^fsync = false$/fsync = false\nfsync_every = 1s/' etc/perfsink.ini sink-keys 'fsync_every'
broken record-key-gone 's/\\fBrealtime\\fR//' man/perfsink.ini.5 record-keys 'realtime'

# The bug of issue 14: --help saying --aio defaults to 2.
mkdir -p "$W/bin"
printf '#!/bin/sh\n"%s" "$@" | sed "s/1\\.\\.32 (default 4)/1..32 (default 2)/"\n' "$PERFSINK" >"$W/bin/perfsink"
chmod +x "$W/bin/perfsink"
out=$(PERFSINK="$W/bin/perfsink" check_tree "$TOP_SRCDIR" defaults | awk -F'\t' '$1 == "defaults" { print $2 }')
grep -q -- '--aio.*--help 2' <<<"$out"
tap_lines $? "self-test help-aio: a --help saying --aio default 2 is caught" "${out:-defaults found nothing}"
exit $((failed > 0))
