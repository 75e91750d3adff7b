# What the flame_*.sh tests share: headless Chromium (Debian's chromium) as
# the person looking at the page.  Source after lib/lib.sh.

# need_chromium: skip the whole test when there is no chromium to look with.
need_chromium() {
	CHROMIUM=$(command -v chromium || command -v chromium-browser) ||
		skip_all "chromium is not installed (Debian's chromium): nothing to open the flame graph with"
	# Its profile and caches in the test's directory, not in $HOME.
	CHROME_HOME=$T/chrome
	mkdir -p "$CHROME_HOME"
}

# chrome ARGS...: headless chromium, sandbox off (root cannot have it), bounded in time.
chrome() {
	HOME=$CHROME_HOME timeout 120 "$CHROMIUM" --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
		--no-first-run --user-data-dir="$CHROME_HOME/profile" "$@" 2>>"$T/chrome.err"
}

# dom PAGE [FRAGMENT]: what the page shows once its script ran (flame_dom.py's lines).
dom() {
	case $1 in /*) _page=$1 ;; *) _page=$PWD/$1 ;; esac
	chrome --dump-dom "file://$_page${2:+#$2}" >"$_page.dom" &&
		python3 "$TESTS_SRCDIR/integration/flame_dom.py" "$_page.dom"
}

# fact FILE KEY: the value of KEY in flame_dom.py's output FILE (the rest of the line).
fact() { awk -v k="$2" '$1 == k { sub(/^[^ ]+ /, ""); print; exit }' "$1"; }
