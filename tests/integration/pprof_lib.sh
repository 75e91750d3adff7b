# What the pprof_*.sh tests share: the oracle of issue 29.  Source after
# lib/lib.sh.  go tool pprof (Debian's golang-go) is the reference reader
# of profile.proto; perf report is the reference for what the recording holds.

# need_go: skip the whole test when go is not installed.
need_go() {
	command -v go >/dev/null 2>&1 || skip_all "go is not installed (Debian's golang-go): no pprof reader"
	GOCACHE=$T/gocache
	export GOCACHE
}

# go_top PROFILE: "SHARE NAME" per function by flat share (value: period),
# every function (no node dropped).
go_top() {
	go tool pprof -top -nodefraction=0 -nodecount=1000000 "$1" 2>/dev/null |
		awk 'f && NF >= 6 { n = $6; for (i = 7; i <= NF; i++) n = n " " $i; sub(/%$/, "", $2); print $2, n }
		     /^ *flat  *flat%/ { f = 1 }'
}

# perf_shares DATA: "SHARE NAME" per symbol name, as perf report --no-children
# --sort sym shows them, largest first.  perf keeps one entry per symbol, so
# two files with a function of one name (two builds of the workload in a
# system-wide recording) are two entries; pprof's -top is per function name:
# their shares are added up.
perf_shares() {
	"$PERF" report -i "$1" --no-children --stdio --sort sym -g none 2>/dev/null |
		awk '/^ +[0-9.]+%/ { n = $3; for (i = 4; i <= NF; i++) n = n " " $i; sub(/%$/, "", $1); s[n] += $1 }
		     END { for (n in s) printf "%.2f %s\n", s[n], n }' | sort -k1,1 -rn
}

# same_top DATA PROFILE: the top 10 named functions of each (addresses
# nothing names are "[unknown]" in ours, each its own hex in perf's: left
# out of both lists) have shares within 1 percentage point in the other.
# Prints both lists as diagnostics.
same_top() {
	perf_shares "$1" | grep -v -e ' 0x[0-9a-f]*$' -e ' \[unknown\]$' >"$1.perf_top"
	go_top "$2" | grep -v ' \[unknown\]$' >"$2.go_top"
	diag "perf report vs go tool pprof -top (top 10, %):"
	awk 'NR == FNR { p[substr($0, index($0, " ") + 1)] = $1; if (FNR <= 10) pt[FNR] = substr($0, index($0, " ") + 1); next }
	     { g[substr($0, index($0, " ") + 1)] = $1; if (FNR <= 10) gt[FNR] = substr($0, index($0, " ") + 1) }
	     END {
		bad = 0
		for (i = 1; i <= 10; i++) {
			printf "# %-40s perf %6.2f  pprof %6.2f\n", pt[i], p[pt[i]], g[pt[i]]
			d = p[pt[i]] - g[pt[i]]; if (d < 0) d = -d; if (pt[i] != "" && d > 1.0) bad = 1
			d = p[gt[i]] - g[gt[i]]; if (d < 0) d = -d; if (gt[i] != "" && d > 1.0) { bad = 1; printf "# (pprof top %s: perf %.2f, pprof %.2f)\n", gt[i], p[gt[i]], g[gt[i]] }
		}
		exit bad
	     }' "$1.perf_top" "$2.go_top"
}

# main_share PROFILE COMM: of COMM's samples whose stack has a hot_*
# function, the percentage (integer, rounded down) whose stack has main.
# Also writes the sample count to PROFILE.n.
main_share() {
	go tool pprof -traces -sample_index=samples "$1" 2>/dev/null | awk -v comm="$2" -v out="$1.n" '
		function flush() { if (c == comm && hot) { n += v; if (m) k += v } c = ""; hot = m = v = 0 }
		/^-----------\+/ { flush(); next }
		$1 == "comm:" { c = $2; next }
		$1 ~ /^[a-z]+:$/ { next }
		$1 ~ /^[0-9]+$/ && NF >= 2 { v = $1; $1 = "" }
		{ if ($0 ~ / hot_/ || $1 ~ /^hot_/) hot = 1; if ($1 == "main" || $0 ~ / main$/) m = 1 }
		END { flush(); print n + 0 > out; if (n) printf "%d\n", 100 * k / n; else print 0 }'
}

# go_samples PROFILE: the total of samples/count.
go_samples() {
	go tool pprof -top -sample_index=samples "$1" 2>/dev/null | awk '/Total samples =/ { print $NF + 0; exit }'
}

# convert_top DATA: perfsink pprof DATA -> DATA.pb.gz with every sample
# perf counts and the same top 10 (same_top).
convert_top() {
	"$PERFSINK" pprof -o "$1.pb.gz" "$1" 2>"$1.conv.err" || { show "$1.conv.err"; return 1; }
	same_top "$1" "$1.pb.gz" || return 1
	[ "$(go_samples "$1.pb.gz")" = "$(perf_samples "$1")" ] ||
		{ diag "$1: pprof $(go_samples "$1.pb.gz") samples, perf $(perf_samples "$1")"; return 1; }
}

# workload_checks KIND DATA PB: the four checks every recording of the
# workload passes (KIND names it: "a -g", "a DWARF"): perfsink pprof
# converts DATA to PB; go tool pprof's top 10 are perf report's; main is
# under the hot functions for >= 99 % of the workload's samples; PB holds
# every sample perf counts.
workload_checks() {
	local s
	check "perfsink pprof converts $1 recording" "$PERFSINK" pprof -o "$3" "$2" 2>conv.err ||
		show conv.err rec.err
	diag "$(cat conv.err)"
	check "go tool pprof -top and perf report agree on the top 10 (within 1 point)" same_top "$2" "$3"
	s=$(main_share "$3" workload)
	diag "workload samples in hot functions with main under them: $s % of $(cat "$3.n")"
	check "main is under the hot functions for >= 99 % of them" [ "$s" -ge 99 ]
	check "the profile holds every sample perf counts" [ "$(go_samples "$3")" = "$(perf_samples "$2")" ]
}
