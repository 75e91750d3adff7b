#!/bin/bash
# The shell completions offer every verb perfsink dispatches and each
# verb's options: bash (etc/bash-completion/perfsink) is asked as bash asks
# it, for every verb `perfsink --help` lists and every option in that verb's
# own --help (check: record's); zsh (etc/zsh-completion/_perfsink) is loaded
# by compinit without an error and registered for perfsink.
. "${TESTS_SRCDIR:-.}/lib/lib.sh"
: "${TOP_SRCDIR:?run through make check}" "${TOP_BUILDDIR:?run through make check}"
ZSH_COMP=$TOP_SRCDIR/etc/zsh-completion/_perfsink

verbs() { "$PERFSINK" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p'; }
# help_opts VERB: the long options VERB's --help shows (check shows record's).
help_opts() {
	local v=$1
	[ "$v" = check ] && v=record
	"$PERFSINK" "$v" --help 2>&1 | grep -oE -- '(^|[ ,[])--[a-z][a-z-]*' | tr -d ' ,[' | sort -u
}
# offers_all VERB: `perfsink VERB -` offers every option of help_opts VERB.
offers_all() {
	complete_words perfsink "$1" - | sort -u > "$T/$1.offered"
	help_opts "$1" | comm -23 - "$T/$1.offered" > "$T/$1.missing"
	grep -qx -- --help "$T/$1.offered" && [ ! -s "$T/$1.missing" ]
}

mapfile -t VERBS < <(verbs)
[ "${#VERBS[@]}" -ge 8 ] || { echo "Bail out! perfsink --help lists ${#VERBS[@]} verbs"; exit 1; }
plan $((${#VERBS[@]} + 5))
complete_words perfsink '' > "$T/verbs.offered"
check "bash: every verb of perfsink --help is offered (${VERBS[*]})" \
	test -z "$(printf '%s\n' "${VERBS[@]}" | sort | comm -23 - <(sort "$T/verbs.offered"))" ||
	show "$T/verbs.offered"
for v in "${VERBS[@]}"; do
	check "bash: perfsink $v - offers its options" offers_all "$v" || show "$T/$v.missing"
done
check "bash: archive offers no option from its help's tar example (-xf)" \
	bash -c "! grep -qx -- -xf '$T/archive.offered'"
mkdir -p "$T/files" && : > "$T/files/one.data"
check "bash: recover and archive complete file names" \
	eval "complete_words perfsink recover '$T/files/o' | grep -qx '$T/files/one.data' &&
	      complete_words perfsink archive '$T/files/o' | grep -qx '$T/files/one.data'"

if ! command -v zsh >/dev/null; then
	skip "zsh not installed"
	skip "zsh not installed"
else
	check "zsh: _perfsink parses (zsh -n)" zsh -n "$ZSH_COMP"
	mkdir -p "$T/zfunc" "$T/zhome" && cp "$ZSH_COMP" "$T/zfunc/"
	HOME=$T/zhome zsh -f -c 'fpath=("$1" $fpath); autoload -Uz compinit && compinit -u -D &&
		autoload +X _perfsink && print -r -- "$_comps[perfsink]"' zsh "$T/zfunc" \
		> "$T/zsh.out" 2> "$T/zsh.err"
	check "zsh: compinit loads it without error, registered for perfsink" \
		eval "[ ! -s '$T/zsh.err' ] && grep -qx _perfsink '$T/zsh.out'" || show "$T/zsh.err" "$T/zsh.out"
fi
done_testing
